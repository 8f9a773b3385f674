#include "ledger/signal_log.h"

#include "base/sha256.h"
#include "base/simdjson_util.h"
#include "kernel/record_fields.h"
#include "kernel/signal_record.h"
#include "ledger/entry.h"

namespace hangar::ledger {

namespace {

constexpr size_t kTailRead = 4 << 20;  // a line is far shorter: blobs beyond 16 KiB are files

}  // namespace

SignalLog::SignalLog(Env* env, std::string spool, std::string name)
    : env_(env),
      dir_(spool + "/signals/" + name),
      path_(dir_ + "/signals.jsonl"),
      hash_(kGenesisPrev) {}

Status SignalLog::Open(std::string* said) {
  for (const std::string& d : {dir_.substr(0, dir_.rfind('/')), dir_, dir_ + "/blobs"})
    if (!env_->Exists(d))
      if (Status s = env_->MakeDir(d); !s.ok()) return s;
  if (!env_->Exists(path_)) return Status::Ok();
  Result<uint64_t> size = env_->FileSize(path_);
  if (!size.ok()) return size.status();
  if (*size == 0) return Status::Ok();
  const uint64_t from = *size > kTailRead ? *size - kTailRead : 0;
  Result<std::string> tail = env_->ReadAt(path_, from, size_t(*size - from));
  if (!tail.ok()) return tail.status();
  size_t end = tail->rfind('\n');
  if (end + 1 != tail->size()) {
    // A torn last line: its write never completed, so nothing was done on it.
    const uint64_t keep = end == std::string::npos ? from : from + end + 1;
    if (end == std::string::npos && from > 0)
      return Status::Invalid("signal record " + path_ + ": no complete line in its last " +
                             std::to_string(kTailRead) + " bytes");
    if (Status s = env_->Truncate(path_, keep); !s.ok()) return s;
    *said = "signal record " + path_ + ": cut a torn last line (" + std::to_string(*size - keep) +
            " bytes at offset " + std::to_string(keep) +
            "), written by a hangard that stopped before it was complete";
    if (end == std::string::npos) return Status::Ok();
    tail->resize(end + 1);
  }
  const size_t begin = tail->rfind('\n', tail->size() - 2);
  const std::string_view last =
      std::string_view(*tail).substr(begin == std::string::npos ? 0 : begin + 1);
  if (begin == std::string::npos && from > 0)
    return Status::Invalid("signal record " + path_ + ": its last line is longer than " +
                           std::to_string(kTailRead) + " bytes");
  simdjson::dom::parser parser;
  simdjson::padded_string padded(last.substr(0, last.size() - 1));
  simdjson::dom::element root;
  int64_t n = 0;
  std::string_view hash;
  if (parser.parse(padded).get(root) || root["n"].get(n) || root["hash"].get(hash) ||
      !IsHexHash(hash) || n < 1)
    return Status::Invalid("signal record " + path_ +
                           ": its last line does not read as a signal record line (n, hash), "
                           "see hangar-signals(5); hangard does not write on after it: move the "
                           "file aside (it can still be read) and start again, which begins a new "
                           "record");
  n_ = n;
  hash_ = std::string(hash);
  // The head its decision followed and the entries it made (a start line makes none); unknown
  // when it says neither, which no hangard writes.
  int64_t seq = 0, records = 0;
  std::string_view head;
  const bool has_records = !root["records"].get(records);
  if (root["ledger"]["seq"].get(seq) || root["ledger"]["hash"].get(head) ||
      (!has_records && root["signal"].error() == 0))
    cover_.reset();
  else
    cover_ = LinesCover{seq, std::string(head), records};
  return Status::Ok();
}

std::string SignalLog::Blob(std::string_view bytes, json::Object* inline_blobs) {
  const std::string hex = Sha256Hex(bytes);
  if (bytes.size() <= kInlineBlobBytes) {
    // In the line that names it, every time: a line needs no other to be read, and neither the
    // writer nor a reader keeps blobs from one line to the next.
    (*inline_blobs)[hex] = record::MaybeHex(std::string(bytes));
  } else if (!env_->Exists(dir_ + "/blobs/" + hex)) {
    if (Status s = env_->WriteFileAtomic(dir_ + "/blobs", hex, bytes); !s.ok() && blob_error_.ok())
      blob_error_ = s;
  }
  return "sha256:" + hex;
}

std::string SignalLog::Seal(json::Object members) {
  members["n"] = ++n_;
  members["prev"] = hash_;
  // The text hashed is the line without "hash"; the line is that text with "hash" in its sorted
  // place. Each member is written once: the members before "hash", then the rest.
  std::string head = "{", rest;
  for (auto& [key, value] : members) {
    std::string& out = key < "hash" ? head : rest;
    if (&out == &head ? head.size() > 1 : !rest.empty()) out += ',';
    json::AppendQuoted(&out, key);
    out += ':';
    json::AppendWritten(&out, value);
  }
  rest += '}';
  thread_local Sha256 h;  // one context reused, as Sha256Hex's (base/sha256.h)
  h.Reset();
  h.Update(hash_);
  h.Update(head);
  if (head.size() > 1) h.Update(",");
  h.Update(rest);
  hash_ = h.FinishHex();
  pending_ += head;
  pending_ += head.size() > 1 ? ",\"hash\":\"" : "\"hash\":\"";
  pending_ += hash_;
  pending_ += "\",";
  pending_ += rest;
  pending_ += '\n';
  return hash_;
}

Status SignalLog::Start(const SetupFacts& facts, int64_t ledger_seq, const std::string& ledger_hash,
                        TimeMs ledger_time) {
  json::Object blobs;
  json::Value setup = SetupFactsJson(facts, [&](std::string_view b) { return Blob(b, &blobs); });
  if (!blob_error_.ok()) return blob_error_;
  Seal({{"build", std::string(kKernelBuild)},
        {"setup", std::move(setup)},
        {"blobs", std::move(blobs)},
        {"ledger",
         json::Object{{"seq", ledger_seq}, {"hash", ledger_hash}, {"time", ledger_time}}}});
  return Flush();
}

Result<std::string> SignalLog::Add(const Signal& signal, const std::vector<Action>& acts,
                                   const State& state, int64_t ledger_seq,
                                   const std::string& ledger_hash) {
  json::Object blobs;
  json::Value sig = SignalToJson(signal, [&](std::string_view b) { return Blob(b, &blobs); });
  if (!blob_error_.ok()) {
    Status s = blob_error_;
    blob_error_ = Status::Ok();
    return s;
  }
  int64_t records = 0;
  for (const Action& a : acts) records += std::holds_alternative<Record>(a);
  std::string hash = Seal({{"signal", std::move(sig)},
                           {"blobs", std::move(blobs)},
                           {"ledger", json::Object{{"seq", ledger_seq}, {"hash", ledger_hash}}},
                           {"records", records},
                           {"acts", Acts(acts)},
                           {"decision", Sha256Hex(DecisionText(acts))},
                           {"state", StepDigest(state, TouchedIds(signal, acts))},
                           {"global", GlobalDigest(state)}});
  return hash;
}

Status SignalLog::Flush() {
  if (pending_.empty()) return Status::Ok();
  Status s = env_->AppendDurable(path_, pending_);
  Wrote(s);
  return s;
}

std::optional<Env::Appended> SignalLog::Unwritten() const {
  if (pending_.empty()) return std::nullopt;
  return Env::Appended{path_, pending_};
}

void SignalLog::Wrote(const Status& s) {
  // A failed append leaves the file's tail unknown; the daemon stops its work on it (a failed
  // decision write), and the next start reads the tail again.
  if (!s.ok()) return;
  pending_.clear();
  if (pending_.capacity() > (size_t(1) << 20)) pending_.shrink_to_fit();  // after a big batch
}

}  // namespace hangar::ledger
