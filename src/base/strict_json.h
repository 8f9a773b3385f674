// The strict field reader every format's parser is built on (mission, control request, config,
// policy; simdjson's DOM underneath). Each reader checks one value and, when it is not what the
// format says, throws strict::Failure carrying a ParseError that names the field by its path in
// the document ("profiles.codex.env", "done_when[1].rc") and what was expected. A parser reads the
// whole document inside one try (ReadDocument) and turns the Failure into its result, so nothing
// is returned half-read and the first bad field is the one reported.
//
// The words are fixed, so every format says the same thing the same way: "expected a string",
// "expected a non-empty string", "expected a list of strings", "expected a non-empty list",
// "expected an integer", "integer out of range", "expected an integer from LO to HI",
// "expected a number", "expected true or false", "expected an object", "field given twice",
// "unknown field (KNOWN)".
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/json_error.h"
#include "base/parse_error.h"
#include "base/simdjson_util.h"

namespace hangar::strict {

using simdjson::dom::element;
using simdjson::dom::element_type;

struct Failure {
  ParseError error;
};

[[noreturn]] void Fail(std::string field, std::string reason);

// The path of member KEY of the object at FIELD ("a.b"; "b" at the top), of item I of a list.
std::string Member(const std::string& field, std::string_view key);
std::string Item(const std::string& field, size_t i);

std::string String(element e, const std::string& field);
std::string NonEmptyString(element e, const std::string& field);
struct ListRule {
  bool non_empty_items = false;  // each item a non-empty string
  bool non_empty = false;        // at least one item
};
std::vector<std::string> Strings(element e, const std::string& field, ListRule rule = {});
int64_t Integer(element e, const std::string& field);
int64_t IntegerIn(element e, const std::string& field, int64_t lo, int64_t hi);
double Number(element e, const std::string& field);
bool Bool(element e, const std::string& field);
// An object of strings (an environment): each key non-empty without '=', each value a string.
std::map<std::string, std::string> StringMap(element e, const std::string& field);

// Calls fn(key, member_field, value) for each member of the object e, in document order; fails
// when e is not an object ("expected an object", or WHAT_OBJECT when given), on a key given
// twice, and, when fn returns false, with "unknown field (KNOWN)".
template <typename Fn>
void Members(element e, const std::string& field, const std::string& known, Fn fn,
             const char* what_object = "expected an object") {
  if (e.type() != element_type::OBJECT) Fail(field, what_object);
  std::set<std::string, std::less<>> seen;
  for (auto [key, value] : AsObject(e)) {
    const std::string k(key), kf = Member(field, k);
    if (!seen.insert(k).second) Fail(kf, "field given twice");
    if (!fn(k, kf, value)) Fail(kf, "unknown field (" + known + ")");
  }
}

// Calls fn(item, item_field) for each item of the list e; fails when e is not a list (WHAT_LIST).
template <typename Fn>
void Items(element e, const std::string& field, const char* what_list, Fn fn) {
  if (e.type() != element_type::ARRAY) Fail(field, what_list);
  size_t i = 0;
  for (element x : AsArray(e)) fn(x, Item(field, i++));
}

// A parser of this thread's, kept for the next document: a fresh simdjson parser allocates its
// buffers anew, which costs more than parsing a small document. Documents read inside the reading
// of another (a blob in a record) each get their own, so none is reused while its elements live.
class PooledParser {
 public:
  PooledParser();
  ~PooledParser();
  PooledParser(const PooledParser&) = delete;
  PooledParser& operator=(const PooledParser&) = delete;
  simdjson::dom::parser& get() { return *parser_; }

 private:
  simdjson::dom::parser* parser_;
};

// Parses BYTES as one JSON document and reads its root with read(element) -> T inside the one
// try: T, or the first field that failed, or ("", "not valid JSON: ...") when BYTES is no JSON.
template <typename T, typename Read>
std::variant<T, ParseError> ReadDocument(std::string_view bytes, Read read) {
  PooledParser parser;
  element root;
  if (auto err = parser.get().parse(bytes.data(), bytes.size()).get(root))
    return ParseError{"", json::SyntaxError(bytes, err)};
  try {
    return read(root);
  } catch (const Failure& f) {
    return f.error;
  }
}

}  // namespace hangar::strict
