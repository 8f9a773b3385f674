#include "ledger/signal_reader.h"

#include "base/sha256.h"
#include "base/strict_json.h"
#include "kernel/record_fields.h"
#include "kernel/signal_record.h"
#include "ledger/entry.h"

namespace hangar::ledger {

namespace {

constexpr size_t kChunk = size_t(4) << 20;
constexpr std::string_view kHashMember = ",\"hash\":\"";  // then 64 hex digits and '"'

}  // namespace

SignalReader::SignalReader(Env* env, std::string dir)
    : env_(env), dir_(std::move(dir)), path_(dir_ + "/signals.jsonl"), hash_(kGenesisPrev) {}

Status SignalReader::Open() {
  if (!env_->Exists(path_))
    return Status::NotFound("no signal record " + path_ +
                            " (hangard records signals from this version on)");
  Result<uint64_t> size = env_->FileSize(path_);
  if (!size.ok()) return size.status();
  size_ = *size;
  return Status::Ok();
}

bool SignalReader::grown() const {
  Result<uint64_t> now = env_->FileSize(path_);
  return now.ok() && *now > size_;
}

Status SignalReader::Bad(const std::string& what) const {
  return Status::Invalid("signal record " + path_ + ", line " + std::to_string(n_ + 1) + ": " +
                         what);
}

Result<std::optional<Line>> SignalReader::Next() {
  for (;;) {
    const size_t nl = buf_.find('\n', pos_);
    if (nl != std::string::npos) {
      std::string_view text(buf_.data() + pos_, nl - pos_);
      Result<Line> line = Parse(text);
      offset_ += nl + 1 - pos_;
      pos_ = nl + 1;
      if (!line.ok()) return line.status();
      return std::optional<Line>(std::move(line).value());
    }
    const uint64_t have = offset_ + (buf_.size() - pos_);
    if (have >= size_) return std::optional<Line>();
    buf_.erase(0, pos_);
    pos_ = 0;
    Result<std::string> more =
        env_->ReadAt(path_, have, size_t(std::min<uint64_t>(kChunk, size_ - have)));
    if (!more.ok()) return more.status();
    if (more->empty()) return std::optional<Line>();
    buf_ += *more;
  }
}

Result<std::string> SignalReader::Blob(const std::string& ref) const {
  if (!ref.starts_with("sha256:") || !IsHexHash(std::string_view(ref).substr(7)))
    return Status::Invalid("expected a blob reference sha256:HEX");
  const std::string hex = ref.substr(7);
  std::string bytes;
  if (auto it = inline_.find(hex); it != inline_.end()) {
    bytes = it->second;
  } else {
    const std::string file = dir_ + "/blobs/" + hex;
    Result<std::string> b = env_->ReadFile(file, size_t(64) << 20);
    if (!b.ok())
      return Status::Invalid("blob " + hex + " is neither in the line nor readable as " + file +
                             ": " + b.status().message());
    bytes = std::move(b).value();
  }
  if (Sha256Hex(bytes) != hex)
    return Status::Invalid("blob " + hex + " does not have that sha256 (its bytes were changed)");
  return bytes;
}

Result<Line> SignalReader::Parse(std::string_view text) {
  // The hash covers prev and the line without its own "hash" member (signal_log.h).
  const size_t at = text.find(kHashMember);
  if (at == std::string_view::npos || at + kHashMember.size() + 65 > text.size())
    return Bad("no \"hash\" member");
  const std::string_view hash = text.substr(at + kHashMember.size(), 64);
  // Hashed in its three parts, not copied into one string first, by one context for every line.
  Sha256& h = line_hash_;
  h.Reset();
  h.Update(hash_);
  h.Update(text.substr(0, at + 1));
  h.Update(text.substr(at + kHashMember.size() + 66));
  char recomputed[2 * Sha256::kDigestBytes];
  h.FinishHex(recomputed);
  if (!IsHexHash(hash) || std::string_view(recomputed, sizeof recomputed) != hash)
    return Bad("its hash does not recompute (the line was changed)");
  simdjson::dom::element root;
  if (auto err = parser_.parse(text.data(), text.size()).get(root))
    return Bad(json::SyntaxError(text, err));
  try {
    record::Fields f(root, "");
    const int64_t n = strict::Integer(f["n"], "n");
    if (n != n_ + 1)
      return Bad("its n is " + std::to_string(n) + ", expected " + std::to_string(n_ + 1) +
                 " (a line is missing or out of place)");
    if (strict::String(f["prev"], "prev") != hash_)
      return Bad("its prev is not the hash of the line before (a line is missing or changed)");
    (void)f["hash"];
    const bool start = f.Has("setup");
    inline_.clear();  // a line carries every small blob it names
    strict::Members(f["blobs"], "blobs", "",
                    [&](const std::string& k, const std::string& kf, simdjson::dom::element v) {
                      if (!IsHexHash(k)) strict::Fail(kf, "expected a sha256 as the key");
                      inline_[k] = record::ReadText(v, kf);
                      return true;
                    });
    BlobIn in = [&](const std::string& ref) { return Blob(ref); };
    record::Fields l(f["ledger"], "ledger");
    Line out;
    if (start) {
      StartLine s;
      s.build = strict::String(f["build"], "build");
      s.facts = ReadSetupFactsAt(f["setup"], "setup", in);
      s.ledger_time = strict::Integer(l["time"], l.Path("time"));
      s.ledger_seq = strict::Integer(l["seq"], l.Path("seq"));
      s.ledger_hash = strict::String(l["hash"], l.Path("hash"));
      s.n = n;
      s.hash = std::string(hash);
      out = std::move(s);
    } else {
      SignalLine s;
      s.signal = ReadSignalAt(f["signal"], "signal", in);
      s.ledger_seq = strict::Integer(l["seq"], l.Path("seq"));
      s.ledger_hash = strict::String(l["hash"], l.Path("hash"));
      s.records = strict::IntegerIn(f["records"], "records", 0, 1 << 20);
      s.acts = strict::Bool(f["acts"], "acts");
      s.decision = strict::String(f["decision"], "decision");
      s.state = strict::String(f["state"], "state");
      s.global = strict::String(f["global"], "global");
      s.n = n;
      s.hash = std::string(hash);
      out = std::move(s);
    }
    l.Done();
    f.Done();
    n_ = n;
    hash_ = std::string(hash);
    return out;
  } catch (const strict::Failure& e) {
    return Bad(e.error.Text());
  }
}

}  // namespace hangar::ledger
