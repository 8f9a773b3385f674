#include "ledger/entry.h"

#include <charconv>

#include "base/sha256.h"
#include "ledger/entry_view.h"

namespace hangar::ledger {

namespace {

// The canonical JSON of e (json::Write of its object: keys in byte order, which is the order
// below), with or without the hash member; written directly rather than through a json::Object
// copy of the body.
std::string EntryText(const Entry& e, bool with_hash, size_t* kind_at = nullptr) {
  std::string out;
  out.reserve(512 + e.kind.size());  // an entry's line: a few hundred bytes
  char num[24];
  out.append("{\"body\":");
  json::AppendWritten(&out, e.body);
  out.append(",\"epoch\":");
  out.append(num, std::to_chars(num, num + sizeof num, e.epoch).ptr);
  if (with_hash) {
    out.append(",\"hash\":");
    json::AppendQuoted(&out, e.hash);
  }
  if (kind_at != nullptr) *kind_at = out.size();
  out.append(",\"kind\":");
  json::AppendQuoted(&out, e.kind);
  out.append(",\"prev\":");
  json::AppendQuoted(&out, e.prev);
  out.append(",\"seq\":");
  out.append(num, std::to_chars(num, num + sizeof num, e.seq).ptr);
  out.append(",\"time\":");
  json::AppendQuoted(&out, e.time);
  out.push_back('}');
  return out;
}

// No double and only valid UTF-8 anywhere in v: the common case, checked without building the
// path names that CheckIntegersOnly puts in its messages.
bool IntegersOnly(const json::Value& v) {
  if (v.is_double()) return false;
  if (v.is_string()) return json::ValidUtf8(v.as_string());
  if (v.is_array()) {
    for (const json::Value& x : v.as_array())
      if (!IntegersOnly(x)) return false;
  }
  if (v.is_object()) {
    for (const auto& [k, x] : v.as_object())
      if (!json::ValidUtf8(k) || !IntegersOnly(x)) return false;
  }
  return true;
}

Status Bad(std::string_view field, std::string_view expected) {
  return Status::Invalid("bad ledger entry: field \"" + std::string(field) + "\": expected " +
                         std::string(expected));
}

}  // namespace

bool IsValidKind(std::string_view k) {
  if (k.empty() || k.size() > 64 || k[0] < 'a' || k[0] > 'z') return false;
  for (char c : k) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Status CheckIntegersOnly(const json::Value& v, std::string_view where) {
  if (IntegersOnly(v)) return Status::Ok();
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
  if (!IsFormattedTime(e.time)) {  // the cheap check; the round trip has the last word
    auto t = ParseTime(e.time);
    if (!t || FormatTime(*t) != e.time)
      return Bad("time", "RFC 3339 UTC like 2026-01-02T03:04:05.678Z");
  }
  if (!IsValidKind(e.kind)) return Bad("kind", "[a-z][a-z0-9._-]{0,63}");
  if (!e.body.is_object()) return Bad("body", "an object");
  if (!IsHexHash(e.prev)) return Bad("prev", "64 lower-case hex digits");
  if (e.seq == 1 && e.prev != kGenesisPrev) return Bad("prev", "the genesis value at seq 1");
  if (!e.hash.empty() && !IsHexHash(e.hash)) return Bad("hash", "64 lower-case hex digits");
  return CheckIntegersOnly(e.body, "body");
}

std::string HashedText(const Entry& e) {
  return EntryText(e, false);
}

Result<std::string> EntryHash(const Entry& e) {
  Status s = CheckEntryFields(e);
  if (!s.ok()) return s;
  thread_local Sha256 h;  // as SealEntry's
  h.Reset();
  h.Update(e.prev);
  h.Update(HashedText(e));
  return h.FinishHex();
}

Result<std::string> SealEntry(Entry* e) {
  e->hash.clear();
  Status s = CheckEntryFields(*e);
  if (!s.ok()) return s;
  size_t kind_at = 0;
  std::string line = EntryText(*e, false, &kind_at);  // the hashed text, to be made the line
  thread_local Sha256 h;  // one context reused, as Sha256Hex's: a ledger seals entries by the batch
  h.Reset();
  h.Update(e->prev);
  h.Update(line);
  e->hash = h.FinishHex();
  std::string member = ",\"hash\":";
  json::AppendQuoted(&member, e->hash);
  line.insert(kind_at, member);  // where EntryLine has it: keys in byte order
  line.push_back('\n');
  return line;
}

std::string EntryLine(const Entry& e) {
  std::string line = EntryText(e, true);
  line.push_back('\n');
  return line;
}

namespace {

// The reference reader: json::Parse, every rule checked one by one, and the text compared with
// EntryLine of the result. Slow, and the source of the error messages.
Result<Entry> ParseEntryLineReference(std::string_view line) {
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

}  // namespace

Result<Entry> ParseEntryLine(std::string_view line) {
  EntryView v;
  if (ScanEntryLine(line, &v)) {  // takes off the "\n" itself
    Result<json::Value> body = json::Parse(v.body);
    if (body.ok())
      return Entry{v.seq,
                   v.epoch,
                   std::string(v.time),
                   std::string(v.kind),
                   std::move(body).value(),
                   std::string(v.prev),
                   std::string(v.hash)};
  }
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  return ParseEntryLineReference(line);
}

}  // namespace hangar::ledger
