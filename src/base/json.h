// json::Value: the one in-memory JSON value of hangar, and the one writer of JSON text.
//
// Parsing goes through simdjson (Parse); writing through Write. Objects keep their keys sorted
// (byte order), so every file hangar writes is canonical: sorted keys, no insignificant
// whitespace, UTF-8, one object per file, a trailing newline added by the caller where wanted.
// Strings must hold valid UTF-8; Write escapes control characters, '"' and '\\' only.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/status.h"

namespace hangar::json {

class Value;
using Array = std::vector<Value>;

// A JSON object: members sorted by key in byte order, each key once. The interface is std::map's
// (the part hangar uses), the storage one sorted vector: an object of a dozen members is one
// allocation instead of a dozen tree nodes, and is walked in order without chasing pointers.
// Unlike std::map, adding a member may move the others: a reference or iterator into an object
// does not survive adding a member to it (erase and assignment to existing members keep the
// ones before them). Adding a member that sorts last is cheap; one that sorts before others
// moves them: an object of untrusted size and order is built with FromMembers. A key is not
// const as in std::map (a vector moves its members): never change one through an iterator.
class Object {
 public:
  using value_type = std::pair<std::string, Value>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  Object() = default;
  // As std::map's: of members named twice, the first is kept.
  Object(std::initializer_list<value_type> members);
  // Members in any order, as a parser reads them: of members named twice, the last is kept.
  // Sorts once (n log n), where adding them one by one out of order costs n each.
  static Object FromMembers(std::vector<value_type> members);

  // Every member function is defined below Value: they need it complete.
  iterator begin();
  iterator end();
  const_iterator begin() const;
  const_iterator end() const;
  size_t size() const;
  bool empty() const;
  void clear();

  iterator find(std::string_view key);
  const_iterator find(std::string_view key) const;
  size_t count(std::string_view key) const;
  bool contains(std::string_view key) const;
  // The member named key; throws std::out_of_range when there is none.
  Value& at(std::string_view key);
  const Value& at(std::string_view key) const;
  // The member named key, added as null when absent.
  Value& operator[](std::string_view key);
  // Adds the member unless one is named key already; the iterator names the member either way.
  std::pair<iterator, bool> emplace(std::string key, Value v);
  size_t erase(std::string_view key);
  iterator erase(const_iterator at);

  bool operator==(const Object& o) const;

 private:
  // The first member whose key is not below key.
  const_iterator LowerBound(std::string_view key) const;
  iterator LowerBound(std::string_view key);

  std::vector<value_type> m_;
};

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

inline Object::iterator Object::begin() {
  return m_.begin();
}
inline Object::iterator Object::end() {
  return m_.end();
}
inline Object::const_iterator Object::begin() const {
  return m_.begin();
}
inline Object::const_iterator Object::end() const {
  return m_.end();
}
inline size_t Object::size() const {
  return m_.size();
}
inline bool Object::empty() const {
  return m_.empty();
}
inline void Object::clear() {
  m_.clear();
}
inline Object::iterator Object::erase(const_iterator at) {
  return m_.erase(at);
}

// a < b in byte order, as std::string_view's <, with the first bytes compared inline: an object's
// keys mostly differ there, and a call to memcmp costs more than the rest of the comparison.
inline bool KeyBefore(std::string_view a, std::string_view b) {
  if (!a.empty() && !b.empty() && a[0] != b[0])
    return static_cast<unsigned char>(a[0]) < static_cast<unsigned char>(b[0]);
  return a < b;
}

inline Object::const_iterator Object::LowerBound(std::string_view key) const {
  // Members are most often added in order (parsed canonical text, builders): the end first.
  if (m_.empty() || KeyBefore(m_.back().first, key)) return m_.end();
  size_t lo = 0, hi = m_.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (KeyBefore(m_[mid].first, key))
      lo = mid + 1;
    else
      hi = mid;
  }
  return m_.begin() + lo;
}

inline Object::iterator Object::LowerBound(std::string_view key) {
  return m_.begin() + (std::as_const(*this).LowerBound(key) - m_.cbegin());
}

inline Object::iterator Object::find(std::string_view key) {
  iterator it = LowerBound(key);
  return it != m_.end() && it->first == key ? it : m_.end();
}

inline Object::const_iterator Object::find(std::string_view key) const {
  const_iterator it = LowerBound(key);
  return it != m_.end() && it->first == key ? it : m_.end();
}

inline size_t Object::count(std::string_view key) const {
  return contains(key) ? 1 : 0;
}

inline bool Object::contains(std::string_view key) const {
  return find(key) != end();
}

inline Value& Object::operator[](std::string_view key) {
  iterator it = LowerBound(key);
  if (it != m_.end() && it->first == key) return it->second;
  return m_.emplace(it, std::string(key), Value())->second;
}

inline std::pair<Object::iterator, bool> Object::emplace(std::string key, Value v) {
  iterator it = LowerBound(key);
  if (it != m_.end() && it->first == key) return {it, false};
  return {m_.emplace(it, std::move(key), std::move(v)), true};
}

inline Object::Object(std::initializer_list<value_type> members) {
  m_.reserve(members.size());
  for (const value_type& m : members) emplace(m.first, m.second);
}

inline bool Object::operator==(const Object& o) const {
  return m_ == o.m_;
}

// Canonical text: sorted keys, no whitespace. Doubles use the shortest text that reads back equal.
std::string Write(const Value& v);
// Write(v) appended to *out, without the string Write returns (writers of records made of parts).
void AppendWritten(std::string* out, const Value& v);
// The same document indented by two spaces, for files people read with cat. Ends with "\n".
std::string WritePretty(const Value& v);
// v written as WritePretty writes it, without the final "\n", its lines indented as at nesting
// depth (1 for a member of the document's top object): for base/pretty_writer.h.
void AppendPretty(std::string* out, const Value& v, int depth);
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
