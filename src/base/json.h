// json::Value: the one in-memory JSON value of hangar, and the one writer of JSON text.
//
// Parsing goes through simdjson (Parse); writing through Write. Objects keep their keys sorted
// (std::map, byte order), so every file hangar writes is canonical: sorted keys, no insignificant
// whitespace, UTF-8, one object per file, a trailing newline added by the caller where wanted.
// Strings must hold valid UTF-8; Write escapes control characters, '"' and '\\' only.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/status.h"

namespace hangar::json {

class Value;
using Array = std::vector<Value>;
using Object = std::map<std::string, Value>;

class Value {
 public:
  Value() : v_(nullptr) {}
  Value(std::nullptr_t) : v_(nullptr) {}
  Value(bool b) : v_(b) {}
  Value(int i) : v_(static_cast<int64_t>(i)) {}
  Value(int64_t i) : v_(i) {}
  Value(uint64_t i) : v_(static_cast<int64_t>(i)) {}
  Value(double d) : v_(d) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(Array a) : v_(std::move(a)) {}
  Value(Object o) : v_(std::move(o)) {}

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_int() const { return std::holds_alternative<int64_t>(v_); }
  bool is_double() const { return std::holds_alternative<double>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_array() const { return std::holds_alternative<Array>(v_); }
  bool is_object() const { return std::holds_alternative<Object>(v_); }

  bool as_bool() const { return std::get<bool>(v_); }
  int64_t as_int() const { return std::get<int64_t>(v_); }
  double as_double() const { return is_int() ? double(as_int()) : std::get<double>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Array& as_array() const { return std::get<Array>(v_); }
  Array& as_array() { return std::get<Array>(v_); }
  const Object& as_object() const { return std::get<Object>(v_); }
  Object& as_object() { return std::get<Object>(v_); }

  // Object member access; the value must be an object. find returns nullptr when absent.
  const Value* find(const std::string& key) const;
  Value& operator[](const std::string& key) { return std::get<Object>(v_)[key]; }

  bool operator==(const Value& o) const { return v_ == o.v_; }

 private:
  std::variant<std::nullptr_t, bool, int64_t, double, std::string, Array, Object> v_;
};

// Canonical text: sorted keys, no whitespace. Doubles use the shortest text that reads back equal.
std::string Write(const Value& v);
// The same document indented by two spaces, for files people read with cat. Ends with "\n".
std::string WritePretty(const Value& v);
// Parses one JSON document with simdjson. On error: Invalid("... at byte N: reason").
Result<Value> Parse(std::string_view text);
// The string members named of the object text holds, in the order named, as Parse(text) and
// find(name) would give them (a name given twice: its last value), without building a Value: for
// readers of many small files that want a few strings of each. nullopt for a member that is absent
// or no string, or when the document is no object; Invalid as Parse when text is no JSON.
Result<std::vector<std::optional<std::string>>> StringMembers(
    std::string_view text, std::initializer_list<std::string_view> names);
// Appends s to out as a JSON string literal (with quotes).
void AppendQuoted(std::string* out, std::string_view s);
// True when s is valid UTF-8.
bool ValidUtf8(std::string_view s);

}  // namespace hangar::json
