#include "kernel/record_fields.h"

#include "base/strict_json.h"

namespace hangar::record {

using simdjson::dom::element;
using simdjson::dom::element_type;
using strict::Fail;

json::Value MaybeHex(const std::string& s) {
  if (json::ValidUtf8(s)) return s;
  static const char* kHex = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : s) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  return json::Object{{"hex", hex}};
}

Fields::Fields(element e, std::string field) : field_(std::move(field)) {
  strict::Members(e, field_, "see hangar-signals(5)",
                  [&](const std::string& k, const std::string&, element v) {
                    members_.emplace(k, v);
                    return true;
                  });
}

element Fields::operator[](const std::string& k) {
  auto it = members_.find(k);
  if (it == members_.end()) Fail(strict::Member(field_, k), "missing");
  used_.insert(k);
  return it->second;
}

std::string Fields::Path(const std::string& k) const {
  return strict::Member(field_, k);
}

void Fields::Done() const {
  for (const auto& [k, v] : members_)
    if (!used_.count(k)) Fail(strict::Member(field_, k), "unknown field (see hangar-signals(5))");
}

std::string ReadText(element e, const std::string& field) {
  if (e.type() == element_type::STRING) return strict::String(e, field);
  Fields f(e, field);
  const std::string hex = strict::String(f["hex"], f.Path("hex"));
  f.Done();
  if (hex.size() % 2) Fail(field, "expected an even number of hex digits");
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    auto nib = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      Fail(field, "expected lower-case hex digits");
    };
    out += char(nib(hex[i]) << 4 | nib(hex[i + 1]));
  }
  return out;
}

}  // namespace hangar::record
