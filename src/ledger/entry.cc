#include "ledger/entry.h"

#include "base/sha256.h"

namespace hangar::ledger {

namespace {

bool ValidKind(std::string_view k) {
  if (k.empty() || k.size() > 64 || k[0] < 'a' || k[0] > 'z') return false;
  for (char c : k) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

json::Object UnhashedObject(const Entry& e) {
  return json::Object{{"body", e.body}, {"epoch", e.epoch}, {"kind", e.kind},
                      {"prev", e.prev}, {"seq", e.seq},     {"time", e.time}};
}

Status Bad(std::string_view field, std::string_view expected) {
  return Status::Invalid("bad ledger entry: field \"" + std::string(field) + "\": expected " +
                         std::string(expected));
}

}  // namespace

bool IsHexHash(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

Status CheckIntegersOnly(const json::Value& v, std::string_view where) {
  if (v.is_double())
    return Status::Invalid("bad ledger entry: " + std::string(where) +
                           ": a floating-point number; the ledger holds integers only");
  if (v.is_string() && !json::ValidUtf8(v.as_string()))
    return Status::Invalid("bad ledger entry: " + std::string(where) + ": string is not UTF-8");
  if (v.is_array()) {
    const json::Array& a = v.as_array();
    for (size_t i = 0; i < a.size(); i++) {
      Status s = CheckIntegersOnly(a[i], std::string(where) + "[" + std::to_string(i) + "]");
      if (!s.ok()) return s;
    }
  }
  if (v.is_object()) {
    for (const auto& [k, val] : v.as_object()) {
      if (!json::ValidUtf8(k))
        return Status::Invalid("bad ledger entry: " + std::string(where) + ": key is not UTF-8");
      Status s = CheckIntegersOnly(val, std::string(where) + "." + k);
      if (!s.ok()) return s;
    }
  }
  return Status::Ok();
}

Status CheckEntryFields(const Entry& e) {
  if (e.seq < 1) return Bad("seq", "an integer >= 1");
  if (e.epoch < 1) return Bad("epoch", "an integer >= 1");
  auto t = ParseTime(e.time);
  if (!t || FormatTime(*t) != e.time)
    return Bad("time", "RFC 3339 UTC like 2026-01-02T03:04:05.678Z");
  if (!ValidKind(e.kind)) return Bad("kind", "[a-z][a-z0-9._-]{0,63}");
  if (!e.body.is_object()) return Bad("body", "an object");
  if (!IsHexHash(e.prev)) return Bad("prev", "64 lower-case hex digits");
  if (e.seq == 1 && e.prev != kGenesisPrev) return Bad("prev", "the genesis value at seq 1");
  if (!e.hash.empty() && !IsHexHash(e.hash)) return Bad("hash", "64 lower-case hex digits");
  return CheckIntegersOnly(e.body, "body");
}

std::string HashedText(const Entry& e) {
  return json::Write(json::Value(UnhashedObject(e)));
}

Result<std::string> EntryHash(const Entry& e) {
  Status s = CheckEntryFields(e);
  if (!s.ok()) return s;
  return Sha256Hex(e.prev + HashedText(e));
}

std::string EntryLine(const Entry& e) {
  json::Object o = UnhashedObject(e);
  o["hash"] = e.hash;
  std::string line = json::Write(json::Value(std::move(o)));
  line.push_back('\n');
  return line;
}

Result<Entry> ParseEntryLine(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  Result<json::Value> v = json::Parse(line);
  if (!v.ok()) return Status::Invalid("bad ledger entry: " + v.status().message());
  if (!v->is_object()) return Status::Invalid("bad ledger entry: expected a JSON object");
  const json::Object& o = v->as_object();
  static const char* const kFields[] = {"body", "epoch", "hash", "kind", "prev", "seq", "time"};
  if (o.size() != std::size(kFields))
    return Status::Invalid(
        "bad ledger entry: expected exactly the members body, epoch, hash, "
        "kind, prev, seq, time");
  for (const char* f : kFields)
    if (!o.count(f)) return Bad(f, "present");
  auto get_int = [&](const char* f, int64_t* out) {
    const json::Value& x = o.at(f);
    if (!x.is_int()) return Bad(f, "an integer");
    *out = x.as_int();
    return Status::Ok();
  };
  auto get_str = [&](const char* f, std::string* out) {
    const json::Value& x = o.at(f);
    if (!x.is_string()) return Bad(f, "a string");
    *out = x.as_string();
    return Status::Ok();
  };
  Entry e;
  for (Status s : {get_int("seq", &e.seq), get_int("epoch", &e.epoch), get_str("time", &e.time),
                   get_str("kind", &e.kind), get_str("prev", &e.prev), get_str("hash", &e.hash)})
    if (!s.ok()) return s;
  e.body = o.at("body");
  if (!IsHexHash(e.hash)) return Bad("hash", "64 lower-case hex digits");
  Status s = CheckEntryFields(e);
  if (!s.ok()) return s;
  // Byte identity with our own writer is what makes the hash recomputable from the line itself.
  std::string canonical = EntryLine(e);
  canonical.pop_back();
  if (canonical != line)
    return Status::Invalid(
        "bad ledger entry: not in canonical form (sorted keys, no whitespace, "
        "no escapes beyond the required ones)");
  return e;
}

}  // namespace hangar::ledger
