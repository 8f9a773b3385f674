#include "base/strict_json.h"

#include <memory>
#include <vector>

namespace hangar {

namespace strict {

namespace {

// Per thread: the parsers, and how many of them are in use now (the depth of nested reads).
thread_local std::vector<std::unique_ptr<simdjson::dom::parser>> pool;
thread_local size_t in_use = 0;

}  // namespace

PooledParser::PooledParser() {
  if (pool.size() == in_use) pool.push_back(std::make_unique<simdjson::dom::parser>());
  parser_ = pool[in_use++].get();
}

PooledParser::~PooledParser() {
  --in_use;
}

void Fail(std::string field, std::string reason) {
  throw Failure{ParseError{std::move(field), std::move(reason)}};
}

std::string Member(const std::string& field, std::string_view key) {
  return field.empty() ? std::string(key) : field + "." + std::string(key);
}

std::string Item(const std::string& field, size_t i) {
  return field + "[" + std::to_string(i) + "]";
}

std::string String(element e, const std::string& field) {
  if (e.type() != element_type::STRING) Fail(field, "expected a string");
  return std::string(e.get_string().value_unsafe());
}

std::string NonEmptyString(element e, const std::string& field) {
  std::string s = String(e, field);
  if (s.empty()) Fail(field, "expected a non-empty string");
  return s;
}

std::vector<std::string> Strings(element e, const std::string& field, ListRule rule) {
  std::vector<std::string> out;
  Items(e, field, "expected a list of strings", [&](element x, const std::string& f) {
    out.push_back(rule.non_empty_items ? NonEmptyString(x, f) : String(x, f));
  });
  if (rule.non_empty && out.empty()) Fail(field, "expected a non-empty list");
  return out;
}

int64_t Integer(element e, const std::string& field) {
  if (e.type() == element_type::INT64) return e.get_int64().value_unsafe();
  if (e.type() == element_type::UINT64) Fail(field, "integer out of range");
  Fail(field, "expected an integer");
}

int64_t IntegerIn(element e, const std::string& field, int64_t lo, int64_t hi) {
  const std::string range =
      "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (e.type() != element_type::INT64 && e.type() != element_type::UINT64)
    Fail(field, "expected an integer");
  if (e.type() == element_type::UINT64) Fail(field, range);
  const int64_t v = e.get_int64().value_unsafe();
  if (v < lo || v > hi) Fail(field, range);
  return v;
}

double Number(element e, const std::string& field) {
  switch (e.type()) {
    case element_type::INT64:
      return double(e.get_int64().value_unsafe());
    case element_type::UINT64:
      return double(e.get_uint64().value_unsafe());
    case element_type::DOUBLE:
      return e.get_double().value_unsafe();
    default:
      Fail(field, "expected a number");
  }
}

bool Bool(element e, const std::string& field) {
  if (e.type() != element_type::BOOL) Fail(field, "expected true or false");
  return e.get_bool().value_unsafe();
}

std::map<std::string, std::string> StringMap(element e, const std::string& field) {
  if (e.type() != element_type::OBJECT) Fail(field, "expected an object of strings");
  std::map<std::string, std::string> out;
  for (auto [key, value] : AsObject(e)) {
    const std::string name(key);
    if (name.empty() || name.find('=') != std::string::npos)
      Fail(field, "bad variable name \"" + name + "\"");
    out[name] = String(value, Member(field, name));
  }
  return out;
}

}  // namespace strict
}  // namespace hangar
