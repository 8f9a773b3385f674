#include "base/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "base/json_error.h"
#include "base/simdjson_util.h"

namespace hangar::json {

Value& Object::at(std::string_view key) {
  iterator it = find(key);
  if (it == end()) throw std::out_of_range("json::Object::at: no member " + std::string(key));
  return it->second;
}

const Value& Object::at(std::string_view key) const {
  const_iterator it = find(key);
  if (it == end()) throw std::out_of_range("json::Object::at: no member " + std::string(key));
  return it->second;
}

Object Object::FromMembers(std::vector<value_type> members) {
  std::stable_sort(members.begin(), members.end(),
                   [](const value_type& a, const value_type& b) { return a.first < b.first; });
  Object o;
  o.m_.reserve(members.size());
  for (value_type& m : members) {
    if (!o.m_.empty() && o.m_.back().first == m.first)
      o.m_.back().second = std::move(m.second);  // named again later: the later one counts
    else
      o.m_.push_back(std::move(m));
  }
  return o;
}

size_t Object::erase(std::string_view key) {
  const_iterator it = find(key);
  if (it == end()) return 0;
  m_.erase(it);
  return 1;
}

const Value* Value::find(const std::string& key) const {
  const Object& o = as_object();
  auto it = o.find(key);
  return it == o.end() ? nullptr : &it->second;
}

namespace {

// True when one of the 8 bytes of w is below 0x20, '"' or '\\': a byte that needs an escape
// (the bit tricks of "Bit Twiddling Hacks": a zero byte of w ^ c is a byte equal to c).
bool NeedsEscape(uint64_t w) {
  constexpr uint64_t k01 = 0x0101010101010101ULL, k80 = 0x8080808080808080ULL;
  auto zero_byte = [&](uint64_t x) { return (x - k01) & ~x & k80; };
  const uint64_t below_space = (w - 0x20 * k01) & ~w & k80;
  return (below_space | zero_byte(w ^ ('"' * k01)) | zero_byte(w ^ ('\\' * k01))) != 0;
}

}  // namespace

void AppendQuoted(std::string* out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;  // start of the bytes not yet copied: they need no escape
  size_t i = 0;
  // Most strings need no escape at all: skip them 8 bytes at a time.
  for (uint64_t w; i + 8 <= s.size(); i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if (NeedsEscape(w)) break;
  }
  for (; i < s.size(); i++) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

namespace {

void AppendNumber(std::string* out, double d) {
  if (!std::isfinite(d)) {  // JSON has no NaN or infinity; hangar never produces them
    out->append("null");
    return;
  }
  if (d == 0) d = 0;  // -0.0 as 0: "-0" would read back as the integer 0, then be written "0"
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  // From 2^63 on, the shortest text may be all digits (fixed notation), which Parse would read
  // as an integer and refuse past 64 bits: such a double is written with its exponent instead.
  if (std::fabs(d) >= 9223372036854775808.0 &&
      std::string_view(buf, size_t(r.ptr - buf)).find_first_of(".e") == std::string_view::npos)
    r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  out->append(buf, r.ptr);
}

void WriteTo(std::string* out, const Value& v, int indent, int depth) {
  auto newline = [&](int d) {
    if (indent < 0) return;
    out->push_back('\n');
    out->append(size_t(d * indent), ' ');
  };
  if (v.is_null()) {
    out->append("null");
  } else if (v.is_bool()) {
    out->append(v.as_bool() ? "true" : "false");
  } else if (v.is_int()) {
    char buf[24];
    out->append(buf, std::to_chars(buf, buf + sizeof buf, v.as_int()).ptr);
  } else if (v.is_double()) {
    AppendNumber(out, v.as_double());
  } else if (v.is_string()) {
    AppendQuoted(out, v.as_string());
  } else if (v.is_array()) {
    const Array& a = v.as_array();
    out->push_back('[');
    for (size_t i = 0; i < a.size(); i++) {
      if (i) out->push_back(',');
      newline(depth + 1);
      WriteTo(out, a[i], indent, depth + 1);
    }
    if (!a.empty()) newline(depth);
    out->push_back(']');
  } else {
    const Object& o = v.as_object();
    out->push_back('{');
    bool first = true;
    for (const auto& [k, val] : o) {
      if (!first) out->push_back(',');
      first = false;
      newline(depth + 1);
      AppendQuoted(out, k);
      out->append(indent < 0 ? ":" : ": ");
      WriteTo(out, val, indent, depth + 1);
    }
    if (!o.empty()) newline(depth);
    out->push_back('}');
  }
}

// Parses text into root with the thread's reused parser: a fresh one allocates its buffers on every
// call, which is most of the cost of a small document. A large document gets own, so a thread does
// not keep its buffers for life. root lives as long as the parser that made it.
simdjson::error_code ParseDom(std::string_view text, simdjson::dom::parser& own,
                              simdjson::dom::element* root) {
  constexpr size_t kReuseBelow = size_t(1) << 20;
  thread_local simdjson::dom::parser reused;
  simdjson::dom::parser& parser = text.size() < kReuseBelow ? reused : own;
  // parse() copies text into the parser's padded buffer (reused too).
  return parser.parse(text.data(), text.size()).get(*root);
}

Status NotJson(std::string_view text, simdjson::error_code err) {
  return Status::Invalid(SyntaxError(text, err));
}

}  // namespace

Value FromElement(simdjson::dom::element e) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::ARRAY: {
      Array a;
      for (auto x : AsArray(e)) a.push_back(FromElement(x));
      return a;
    }
    case element_type::OBJECT: {
      std::vector<Object::value_type> members;
      for (auto field : AsObject(e)) members.emplace_back(field.key, FromElement(field.value));
      return Object::FromMembers(std::move(members));
    }
    case element_type::INT64:
      return Value(e.get_int64().value_unsafe());
    case element_type::UINT64:
      return Value(double(e.get_uint64().value_unsafe()));
    case element_type::DOUBLE:
      return Value(e.get_double().value_unsafe());
    case element_type::STRING:
      return Value(std::string(e.get_string().value_unsafe()));
    case element_type::BOOL:
      return Value(e.get_bool().value_unsafe());
    case element_type::NULL_VALUE:
      return Value(nullptr);
  }
  return Value();
}

namespace {

// Writes into the thread's reused buffer and returns one exact copy: growing a fresh string from
// nothing reallocates and copies it some ten times for a plan. A buffer grown past 1 MiB by a
// large document is given back rather than kept for the thread's life.
std::string Written(const Value& v, int indent, std::string_view end) {
  constexpr size_t kKeepBelow = size_t(1) << 20;
  thread_local std::string buf;
  buf.clear();
  WriteTo(&buf, v, indent, 0);
  buf.append(end);
  std::string out = buf;
  if (buf.capacity() > kKeepBelow) std::string().swap(buf);
  return out;
}

}  // namespace

std::string Write(const Value& v) {
  return Written(v, -1, "");
}

void AppendWritten(std::string* out, const Value& v) {
  WriteTo(out, v, -1, 0);
}

std::string WritePretty(const Value& v) {
  return Written(v, 2, "\n");
}

void AppendPretty(std::string* out, const Value& v, int depth) {
  WriteTo(out, v, 2, depth);
}

bool ValidUtf8(std::string_view s) {
  // Nearly every string hangar checks is short and ASCII (ids, kinds, hashes, times, member names):
  // those are valid whatever else, and simdjson's validator, reached through its run-time dispatch,
  // copies a short string into a padded block first. So ASCII is skipped 8 bytes at a time, and
  // simdjson judges from the first byte at or above 0x80 on.
  size_t i = 0;
  for (uint64_t w; i + 8 <= s.size(); i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ULL) break;
  }
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) i++;
  return i == s.size() || simdjson::validate_utf8(s.data() + i, s.size() - i);
}

Result<Value> Parse(std::string_view text) {
  simdjson::dom::parser own;
  simdjson::dom::element root;
  if (auto err = ParseDom(text, own, &root)) return NotJson(text, err);
  return FromElement(root);  // converted before returning: nothing refers to the parser afterwards
}

Result<std::vector<std::optional<std::string>>> StringMembers(
    std::string_view text, std::initializer_list<std::string_view> names) {
  simdjson::dom::parser own;
  simdjson::dom::element root;
  if (auto err = ParseDom(text, own, &root)) return NotJson(text, err);
  std::vector<std::optional<std::string>> out(names.size());
  if (root.type() != simdjson::dom::element_type::OBJECT) return out;
  for (auto field : AsObject(root)) {
    size_t i = 0;
    for (std::string_view name : names) {
      if (field.key == name) {
        std::string_view s;
        if (field.value.get(s) == simdjson::SUCCESS)
          out[i] = std::string(s);
        else
          out[i].reset();
      }
      i++;
    }
  }
  return out;
}

}  // namespace hangar::json
