#include "ledger/checkpoint.h"

#include <openssl/evp.h>

#include <optional>

#include "base/id.h"
#include "base/json.h"
#include "ledger/entry.h"

namespace hangar::ledger {

namespace {

constexpr size_t kSignatureBytes = 64;
constexpr size_t kSignatureBase64 = 88;
constexpr size_t kMaxOriginBytes = 1024;
constexpr size_t kMaxFileBytes = 4096;

std::string N(int64_t n) {
  return std::to_string(n);
}

std::string Base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), int(bytes.size()));
  out.resize(size_t(n));
  return out;
}

// The 64 signature bytes of text, or nullopt unless text is their canonical base64.
std::optional<std::string> SignatureBytes(std::string_view text) {
  if (text.size() != kSignatureBase64) return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), int(text.size()));
  if (n < int(kSignatureBytes)) return std::nullopt;
  out.resize(kSignatureBytes);                   // DecodeBlock counts the "=" padding as zero bytes
  if (Base64(out) != text) return std::nullopt;  // stray whitespace, non-zero spare bits
  return out;
}

Status CheckOrigin(std::string_view origin) {
  if (origin.empty() || origin.size() > kMaxOriginBytes || !json::ValidUtf8(origin))
    return Status::Invalid("expected 1 to 1024 bytes of UTF-8");
  for (unsigned char ch : origin)
    if (ch < 0x20 || ch == 0x7f) return Status::Invalid("expected no control characters");
  return Status::Ok();
}

json::Object Members(const Checkpoint& c) {
  return json::Object{{"checkpoint", kCheckpointVersion},
                      {"ledger", c.ledger},
                      {"origin", c.origin},
                      {"epoch", c.epoch},
                      {"size", c.size},
                      {"head", c.head},
                      {"time", FormatTime(c.time)},
                      {"key", c.key}};
}

Status Bad(std::string_view field, std::string_view expected) {
  return Status::Invalid("bad checkpoint: \"" + std::string(field) + "\": expected " +
                         std::string(expected));
}

}  // namespace

std::string SignedText(const Checkpoint& c) {
  return json::Write(json::Value(Members(c)));
}

std::string CheckpointText(const Checkpoint& c) {
  json::Object o = Members(c);
  o["sig"] = c.sig;
  return json::Write(json::Value(std::move(o))) + "\n";
}

Result<std::string> MakeCheckpoint(const LedgerStore& store, std::string_view origin, TimeMs time,
                                   const SigningKey& key) {
  if (Status s = CheckOrigin(origin); !s.ok())
    return Status::Invalid("cannot make checkpoint of ledger " + store.name() +
                           ": bad origin: " + s.message());
  Checkpoint c;
  c.ledger = store.name();
  c.origin = std::string(origin);
  c.epoch = store.epoch();
  c.size = store.head_seq();
  c.head = store.head_hash();
  c.time = time;
  c.key = key.public_key().Fingerprint();
  Result<std::string> sig = key.Sign(SignedText(c));
  if (!sig.ok()) return sig.status();
  c.sig = Base64(*sig);
  return CheckpointText(c);
}

Result<Checkpoint> ParseCheckpoint(std::string_view text) {
  std::string_view line = text;
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  Result<json::Value> v = json::Parse(line);
  if (!v.ok()) return Status::Invalid("bad checkpoint: " + v.status().message());
  if (!v->is_object()) return Status::Invalid("bad checkpoint: expected a JSON object");
  const json::Value* version = v->find("checkpoint");
  if (!version || !version->is_int()) return Bad("checkpoint", "the format version, an integer");
  if (version->as_int() != kCheckpointVersion)
    return Status::Invalid("bad checkpoint: \"checkpoint\": version " + N(version->as_int()) +
                           " is not known; this program reads version " + N(kCheckpointVersion));
  static const char* const kMembers[] = {"checkpoint", "epoch", "head", "key", "ledger",
                                         "origin",     "sig",   "size", "time"};
  for (const auto& [name, value] : v->as_object()) {
    bool known = false;
    for (const char* m : kMembers) known = known || name == m;
    if (!known) return Status::Invalid("bad checkpoint: unknown member \"" + name + "\"");
  }
  for (const char* m : kMembers)
    if (!v->find(m))
      return Status::Invalid("bad checkpoint: missing member \"" + std::string(m) + "\"");

  auto str = [&](const char* m) -> const std::string* {
    const json::Value* x = v->find(m);
    return x->is_string() ? &x->as_string() : nullptr;
  };
  auto num = [&](const char* m) -> std::optional<int64_t> {
    const json::Value* x = v->find(m);
    return x->is_int() ? std::optional<int64_t>(x->as_int()) : std::nullopt;
  };
  Checkpoint c;
  const std::string* ledger = str("ledger");
  if (!ledger || !ValidId(*ledger)) return Bad("ledger", "a ledger name");
  c.ledger = *ledger;
  const std::string* origin = str("origin");
  if (!origin) return Bad("origin", "a string");
  if (Status s = CheckOrigin(*origin); !s.ok())
    return Status::Invalid("bad checkpoint: \"origin\": " + s.message());
  c.origin = *origin;
  std::optional<int64_t> epoch = num("epoch");
  if (!epoch || *epoch < 1) return Bad("epoch", "an integer >= 1");
  c.epoch = *epoch;
  std::optional<int64_t> size = num("size");
  if (!size || *size < 0) return Bad("size", "an integer >= 0 (the head seq)");
  c.size = *size;
  const std::string* head = str("head");
  if (!head || !IsHexHash(*head)) return Bad("head", "64 lower-case hex digits");
  if ((c.size == 0) != (*head == kGenesisPrev))
    return Bad("head", "the genesis value (64 zeros) exactly when size is 0");
  c.head = *head;
  const std::string* time = str("time");
  std::optional<TimeMs> t = time ? ParseTime(*time) : std::nullopt;
  if (!t || FormatTime(*t) != *time)
    return Bad("time", "RFC 3339 UTC like 2026-01-01T00:00:00.000Z");
  c.time = *t;
  const std::string* key = str("key");
  if (!key || !IsHexHash(*key)) return Bad("key", "64 lower-case hex digits (a key fingerprint)");
  c.key = *key;
  const std::string* sig = str("sig");
  if (!sig || !SignatureBytes(*sig))
    return Bad("sig", "88 characters of base64, a 64-byte Ed25519 signature");
  c.sig = *sig;

  std::string canonical = CheckpointText(c);
  canonical.pop_back();
  if (canonical != line) return Status::Invalid("bad checkpoint: not in canonical form");
  return c;
}

Status VerifySignature(const Checkpoint& c, const PublicKey& key) {
  std::string fingerprint = key.Fingerprint();
  if (c.key != fingerprint)
    return Status::Invalid("checkpoint signed by key " + c.key + ", not by key " + fingerprint);
  std::optional<std::string> sig = SignatureBytes(c.sig);
  if (!sig) return Status::Invalid("signature does not verify");
  return key.Verify(SignedText(c), *sig);
}

Status CheckExtends(const LedgerStore& store, const Checkpoint& c) {
  const std::string refused = "ledger " + store.name() + " does not extend the checkpoint (seq " +
                              N(c.size) + ", epoch " + N(c.epoch) + "): ";
  if (c.ledger != store.name())
    return Status::Invalid(refused + "the checkpoint is of ledger " + c.ledger);
  if (c.size == 0) return Status::Ok();  // every ledger extends the empty one
  if (store.head_seq() < c.size)
    return Status::Invalid(refused + "it no longer has seq " + N(c.size) +
                           ": rolled back, its head is seq " + N(store.head_seq()));
  std::optional<Entry> found;
  Status s = store.ForEach(c.size, [&](const Entry& e) {
    found = e;
    return Status::Invalid("stop");  // one entry is all we need
  });
  if (!found) {
    if (!s.ok()) return s.code() == Code::kInvalid ? Status::Invalid(refused + s.message()) : s;
    return Status::Invalid(refused + "it no longer has seq " + N(c.size) +
                           ": rolled back, no entry at or after it");
  }
  if (found->seq != c.size)
    return Status::Invalid(refused + "it no longer has seq " + N(c.size) +
                           ": the entry there is seq " + N(found->seq));
  Result<std::string> hash = EntryHash(*found);
  if (!hash.ok())
    return Status::Invalid(refused + "entry " + N(c.size) + ": " + hash.status().message());
  if (*hash != found->hash)
    return Status::Invalid(refused + "entry " + N(c.size) +
                           " does not hash to its hash: it was edited");
  if (found->epoch != c.epoch)
    return Status::Invalid(refused + "entry " + N(c.size) + " is in epoch " + N(found->epoch) +
                           ", the checkpoint saw it in epoch " + N(c.epoch));
  if (found->hash != c.head)
    return Status::Invalid(
        refused + "entry " + N(c.size) +
        " hash differs from the checkpoint's: the history up to it was rewritten");
  return Status::Ok();
}

std::string CheckpointFileName(std::string_view ledger) {
  return std::string(ledger) + ".checkpoint";
}

Status WriteCheckpoint(Env* env, const std::string& anchor_dir, const std::string& name,
                       std::string_view text) {
  const std::string file = CheckpointFileName(name);
  if (!ValidId(name))
    return Status::Invalid("cannot write checkpoint " + anchor_dir + "/" + file + ": \"" + name +
                           "\" is not a valid ledger name");
  Result<Checkpoint> c = ParseCheckpoint(text);
  if (!c.ok())
    return Status::Invalid("cannot write checkpoint " + anchor_dir + "/" + file + ": " +
                           c.status().message());
  if (c->ledger != name)
    return Status::Invalid("cannot write checkpoint " + anchor_dir + "/" + file +
                           ": it is of ledger " + c->ledger + "; a ledger writes only its own");
  return env->WriteFileAtomic(anchor_dir, file, CheckpointText(*c));
}

Result<Checkpoint> ReadCheckpoint(Env* env, const std::string& path) {
  Result<std::string> text = env->ReadFile(path, kMaxFileBytes);
  if (!text.ok()) return text.status();
  Result<Checkpoint> c = ParseCheckpoint(*text);
  if (!c.ok()) return Status::Invalid("cannot read " + path + ": " + c.status().message());
  return c;
}

}  // namespace hangar::ledger
