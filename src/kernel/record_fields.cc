#include "kernel/record_fields.h"

#include "base/strict_json.h"

namespace hangar::record {

using simdjson::dom::element;
using simdjson::dom::element_type;
using strict::Fail;

std::string Hex(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * s.size());
  for (unsigned char c : s) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  return hex;
}

json::Value MaybeHex(const std::string& s) {
  if (json::ValidUtf8(s)) return s;
  return json::Object{{"hex", Hex(s)}};
}

json::Value DropperJson(const Dropper& by) {
  return json::Object{{"uid", by.uid}, {"user", MaybeHex(by.user)}};
}

json::Value ResolvedJson(const ResolvedWrites& r) {
  json::Array a;
  for (const auto& [as_written, p] : r) {
    json::Object o;
    o["as_written"] = MaybeHex(as_written);
    o["path"] = MaybeHex(p.path);
    o["error"] = MaybeHex(p.error);
    if (p.git) {  // only then: a record written before workspaces reads as it did
      json::Object g;
      g["commit"] = p.git->commit;
      g["objects"] = MaybeHex(p.git->objects);
      g["field"] = p.git->field;
      g["error"] = MaybeHex(p.git->error);
      o["git"] = std::move(g);
    }
    a.emplace_back(std::move(o));  // built in place: a moved Value trips GCC 12's
                                   // -Wmaybe-uninitialized (as in shell/harness_events.cc)
  }
  return a;
}

namespace {

// a == b, the first bytes compared inline: a record's member names mostly differ in their length
// or first byte, and every member is looked up among the others (a call to memcmp each, else).
bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || a[0] == b[0]) && a == b;
}

}  // namespace

Fields::Fields(element e, std::string field) : field_(std::move(field)) {
  // As strict::Members reads an object (the same failures, in the same words), without a path
  // string made for each member that reads well.
  if (e.type() != element_type::OBJECT) Fail(field_, "expected an object");
  for (auto [key, value] : AsObject(e)) {
    for (const auto& m : members_)
      if (SameName(m.first, key)) Fail(strict::Member(field_, key), "field given twice");
    members_.emplace_back(key, value);
  }
  used_.assign(members_.size(), false);
}

element Fields::operator[](std::string_view k) {
  for (size_t i = 0; i < members_.size(); ++i)
    if (SameName(members_[i].first, k)) {
      used_[i] = true;
      return members_[i].second;
    }
  Fail(strict::Member(field_, k), "missing");
}

bool Fields::Has(std::string_view k) const {
  for (const auto& m : members_)
    if (SameName(m.first, k)) return true;
  return false;
}

std::string Fields::Path(std::string_view k) const {
  return strict::Member(field_, k);
}

void Fields::Done() const {
  for (size_t i = 0; i < members_.size(); ++i)
    if (!used_[i])
      Fail(strict::Member(field_, members_[i].first), "unknown field (see hangar-signals(5))");
}

std::string ReadBlob(element e, const std::string& field, const BlobIn& in) {
  Result<std::string> bytes = in(strict::String(e, field));
  if (!bytes.ok()) Fail(field, bytes.status().message());
  return std::move(bytes).value();
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
