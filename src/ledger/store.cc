#include "ledger/store.h"

#include <charconv>

#include "base/id.h"
#include "base/sha256.h"
#include "ledger/lines.h"

namespace hangar::ledger {

namespace {

constexpr std::string_view kSuffix = ".jsonl";
// Written before a torn tail is cut and removed once the cut is in the ledger, so a crash between
// the truncate and the "ledger.cut" entry still leaves the cut on record for the next Open.
constexpr std::string_view kPendingCut = "cut-pending.json";
constexpr size_t kPendingCutMax = 64 * 1024;  // its body, with the earlier cuts it carries

bool ParseSegmentName(std::string_view n, int64_t* first) {
  if (n.size() != 12 + kSuffix.size() || n.substr(12) != kSuffix) return false;
  for (char c : n.substr(0, 12))
    if (c < '0' || c > '9') return false;
  std::from_chars(n.data(), n.data() + 12, *first);
  return *first >= 1;
}

}  // namespace

std::string SegmentName(int64_t first_seq) {
  std::string digits = std::to_string(first_seq);
  return std::string(digits.size() < 12 ? 12 - digits.size() : 0, '0') + digits +
         std::string(kSuffix);
}

LedgerStore::LedgerStore(Env* env, std::string spool_dir, std::string name, uint64_t segment_bytes)
    : env_(env),
      spool_dir_(std::move(spool_dir)),
      name_(std::move(name)),
      dir_(spool_dir_ + "/ledger/" + name_),
      segment_bytes_(segment_bytes) {}

Result<std::vector<std::string>> LedgerStore::Segments() const {
  Result<std::vector<std::string>> names = env_->ListDir(dir_);
  // A reader may look before hangard ever ran: no directory is an empty ledger.
  if (!names.ok() && names.status().code() == Code::kNotFound && read_only_)
    return std::vector<std::string>{};
  if (!names.ok()) return names.status();
  std::vector<std::string> out;
  int64_t first = 0;
  for (const std::string& n : *names)
    if (ParseSegmentName(n, &first)) out.push_back(n);
  return out;
}

Status LedgerStore::Open() {
  if (!ValidId(name_))
    return Status::Invalid("cannot open ledger \"" + name_ + "\": not a valid ledger name");
  for (const std::string& d : {spool_dir_ + "/ledger", dir_}) {
    Status s = env_->MakeDir(d);
    if (!s.ok() && s.code() != Code::kExists) return s;
  }
  Result<std::vector<std::string>> segments = Segments();
  if (!segments.ok()) return segments.status();
  Status s = FindHead(*segments);
  if (!s.ok()) return s;
  open_ = true;
  broken_ = false;
  return RecordPendingCut();
}

Status LedgerStore::RecordPendingCut() {
  // A pending cut whose entry did not make it: record it now (the bytes are already gone).
  const std::string pending = dir_ + "/" + std::string(kPendingCut);
  Result<std::string> text = env_->ReadFile(pending, kPendingCutMax);
  if (!text.ok()) return text.status().code() == Code::kNotFound ? Status::Ok() : text.status();
  Result<json::Value> body = json::Parse(*text);
  if (!body.ok()) return Status::Invalid("cannot read " + pending + ": " + body.status().message());
  bool recorded = false;
  if (head_seq_ > 0) {
    Status s = ForEach(head_seq_, [&](const Entry& e) {
      recorded = e.kind == "ledger.cut" && e.body == *body;
      return Status::Ok();
    });
    if (!s.ok()) return s;
  }
  // A cut of whole entries (CutAfter) that a crash stopped before its truncation: the entries are
  // still there, so nothing was cut; whoever asked for it asks again.
  const json::Value* after = body->find("after_seq");
  const bool undone = after && after->is_int() && after->as_int() < head_seq_;
  if (!recorded && !undone) {
    Result<Entry> cut = Append("ledger.cut", *body, env_->Now());
    if (!cut.ok()) return cut.status();
  }
  return env_->Remove(pending);
}

Status LedgerStore::CutAfter(int64_t seq, const std::string& reason) {
  if (!open_ || read_only_ || broken_ || staged())
    return Status::Unavailable("cannot cut ledger " + dir_ + ": not open for appending");
  if (seq >= head_seq_) return Status::Ok();
  int64_t first = 0;
  if (segment_.empty() || !ParseSegmentName(segment_, &first) || first > seq + 1)
    return Status::Invalid("cannot cut ledger " + dir_ + " after seq " + std::to_string(seq) +
                           ": the entries after it are not all in its last segment (" + segment_ +
                           ")");
  // Back from the end, one line at a time, to the start of entry seq + 1.
  const std::string path = dir_ + "/" + segment_;
  uint64_t at = segment_size_;
  json::Array cuts;  // the records of earlier cuts among the entries cut, carried on
  const Status no_entry =
      Status::Invalid("cannot cut ledger " + dir_ + " after seq " + std::to_string(seq) + ": " +
                      segment_ + " holds no entry " + std::to_string(seq + 1));
  for (;;) {
    if (at == 0) return no_entry;
    Result<int64_t> nl = LastNewlineBefore(env_, path, at - 1);
    if (!nl.ok()) return nl.status();
    const uint64_t start = uint64_t(*nl + 1);
    Result<std::string> line = env_->ReadAt(path, start, size_t(at - 1 - start));
    if (!line.ok()) return line.status();
    Result<Entry> e = ParseEntryLine(*line);
    if (!e.ok())
      return Status::Invalid("cannot cut ledger " + dir_ + ": an entry of " + segment_ +
                             " unreadable: " + e.status().message());
    if (e->seq < seq + 1) return no_entry;
    at = start;
    if (e->kind == "ledger.cut") cuts.insert(cuts.begin(), e->body);
    if (e->seq == seq + 1) break;
  }
  Result<std::string> cut = env_->ReadAt(path, at, size_t(segment_size_ - at));
  if (!cut.ok()) return cut.status();
  json::Object body{{"after_seq", seq},
                    {"bytes", int64_t(segment_size_ - at)},
                    {"reason", reason},
                    {"segment", segment_},
                    {"sha256", Sha256Hex(*cut)}};
  if (!cuts.empty()) body["cuts"] = std::move(cuts);
  Status s = env_->WriteFileAtomic(dir_, std::string(kPendingCut), json::Write(json::Value(body)));
  if (s.ok()) s = env_->Truncate(path, at);
  if (!s.ok()) return s;
  Result<std::vector<std::string>> segments = Segments();
  if (!segments.ok()) return segments.status();
  if (s = FindHead(*segments); !s.ok()) return s;
  return RecordPendingCut();
}

Status LedgerStore::OpenForReading() {
  if (!ValidId(name_))
    return Status::Invalid("cannot open ledger \"" + name_ + "\": not a valid ledger name");
  read_only_ = true;
  Result<std::vector<std::string>> segments = Segments();
  if (!segments.ok()) return segments.status();
  Status s = FindHead(*segments);
  if (!s.ok()) return s;
  open_ = true;
  return Status::Ok();
}

Status LedgerStore::FindHead(const std::vector<std::string>& segments) {
  head_seq_ = 0;
  head_hash_ = std::string(kGenesisPrev);
  epoch_ = 1;
  segment_.clear();
  segment_size_ = 0;
  for (size_t i = segments.size(); i-- > 0;) {
    const std::string path = dir_ + "/" + segments[i];
    Result<uint64_t> size = env_->FileSize(path);
    if (!size.ok()) return size.status();
    if (segment_.empty()) {
      segment_ = segments[i];
      segment_size_ = *size;
    }
    Result<int64_t> nl = LastNewlineBefore(env_, path, *size);
    if (!nl.ok()) return nl.status();
    uint64_t keep = uint64_t(*nl + 1);
    // The last complete line, if any: unparsable means a torn write too (a crash can leave zeros).
    Result<Entry> last = Status::NotFound("");
    if (keep > 0) {
      Result<int64_t> before = LastNewlineBefore(env_, path, keep - 1);
      if (!before.ok()) return before.status();
      uint64_t start = uint64_t(*before + 1);
      Result<std::string> line = env_->ReadAt(path, start, size_t(keep - 1 - start));
      if (!line.ok()) return line.status();
      last = ParseEntryLine(*line);
      if (!last.ok() && i + 1 == segments.size() && keep == *size) {
        keep = start;
        last = Status::NotFound("");
        if (keep > 0) {  // the line before a cut one must be sound: one torn write, not damage
          Result<int64_t> b2 = LastNewlineBefore(env_, path, keep - 1);
          if (!b2.ok()) return b2.status();
          Result<std::string> l2 =
              env_->ReadAt(path, uint64_t(*b2 + 1), size_t(keep - 1 - uint64_t(*b2 + 1)));
          if (!l2.ok()) return l2.status();
          last = ParseEntryLine(*l2);
        }
      }
      if (keep > 0 && !last.ok())
        return Status::Invalid("cannot open ledger " + dir_ + ": last entry of " + segments[i] +
                               " unreadable: " + last.status().message());
    }
    if (keep < *size) {
      if (i + 1 != segments.size())
        return Status::Invalid("cannot open ledger " + dir_ + ": sealed segment " + segments[i] +
                               " ends in a partial line");
      if (read_only_) {
        torn_tail_ = true;
      } else {
        Status s = CutTornTail(segments[i], *size, keep);
        if (!s.ok()) return s;
        segment_size_ = keep;
      }
    }
    if (keep == 0) continue;  // empty: the head is in the segment before
    head_seq_ = last->seq;
    head_hash_ = last->hash;
    epoch_ = last->epoch;
    break;
  }
  Unstage();
  int64_t first = 0;
  if (!segment_.empty() && segment_size_ == 0 && ParseSegmentName(segment_, &first) &&
      first != head_seq_ + 1)
    return Status::Invalid("cannot open ledger " + dir_ + ": empty segment " + segment_ +
                           " does not follow head seq " + std::to_string(head_seq_));
  return Status::Ok();
}

Status LedgerStore::CutTornTail(const std::string& segment, uint64_t size, uint64_t keep) {
  const std::string path = dir_ + "/" + segment;
  Result<std::string> torn = env_->ReadAt(path, keep, size_t(size - keep));
  if (!torn.ok()) return torn.status();
  json::Object body{
      {"bytes", int64_t(size - keep)}, {"segment", segment}, {"sha256", Sha256Hex(*torn)}};
  // after_seq is only known once the head is found; the caller's loop found it in this segment
  // or an earlier one, so read it from the kept part.
  int64_t after = 0;
  if (keep > 0) {
    Result<int64_t> b = LastNewlineBefore(env_, path, keep - 1);
    if (!b.ok()) return b.status();
    Result<std::string> l =
        env_->ReadAt(path, uint64_t(*b + 1), size_t(keep - 1 - uint64_t(*b + 1)));
    if (!l.ok()) return l.status();
    Result<Entry> e = ParseEntryLine(*l);
    if (e.ok()) after = e->seq;
  } else {
    ParseSegmentName(segment, &after);
    after -= 1;
  }
  body["after_seq"] = after;
  // A note still pending (a cut whose entry a crash tore, so this cut takes it) goes on in this
  // one, unless it is of a cut that never happened (the entries after its after_seq are kept).
  const std::string pending = dir_ + "/" + std::string(kPendingCut);
  if (Result<std::string> text = env_->ReadFile(pending, kPendingCutMax); text.ok()) {
    Result<json::Value> earlier = json::Parse(*text);
    const json::Value* a = earlier.ok() ? earlier->find("after_seq") : nullptr;
    if (a && a->is_int() && a->as_int() >= after) body["cuts"] = json::Array{std::move(*earlier)};
  }
  Status s = env_->WriteFileAtomic(dir_, std::string(kPendingCut), json::Write(json::Value(body)));
  if (!s.ok()) return s;
  return env_->Truncate(path, keep);
}

Result<std::vector<Entry>> LedgerStore::Seal(std::vector<Draft> drafts, std::string* bytes) const {
  std::vector<Entry> out;
  out.reserve(drafts.size());
  int64_t seq = staged_seq_, epoch = staged_epoch_;
  std::string prev = staged_hash_;
  for (Draft& d : drafts) {
    if (d.new_epoch) epoch++;
    // Moved, not copied: each body was copied only for the copy to go with its entry.
    Entry e{++seq, epoch, FormatTime(d.time), std::move(d.kind), std::move(d.body), prev, ""};
    Result<std::string> line = SealEntry(&e);
    if (!line.ok()) return line.status();
    if (bytes->empty()) bytes->reserve(line->size() * drafts.size() * 9 / 8);
    bytes->append(*line);
    prev = e.hash;
    out.push_back(std::move(e));
  }
  return out;
}

Result<Entry> LedgerStore::Append(std::string kind, json::Value body, TimeMs time, bool new_epoch) {
  Result<std::vector<Entry>> r =
      AppendBatch({Draft{std::move(kind), std::move(body), time, new_epoch}});
  if (!r.ok()) return r.status();
  return std::move(r->front());
}

Result<std::vector<Entry>> LedgerStore::AppendBatch(std::vector<Draft> drafts) {
  Result<std::vector<Entry>> entries = Stage(std::move(drafts));
  if (!entries.ok()) return entries.status();
  if (Status s = Commit(); !s.ok()) return s;
  return entries;
}

Result<std::vector<Entry>> LedgerStore::Stage(std::vector<Draft> drafts) {
  if (!open_) return Status::Unavailable("cannot append to ledger " + dir_ + ": not open");
  if (read_only_)
    return Status::Unavailable("cannot append to ledger " + dir_ + ": opened for reading");
  if (broken_)
    return Status::Unavailable("cannot append to ledger " + dir_ +
                               ": an earlier append failed; reopen to cut its partial line");
  if (drafts.empty()) return std::vector<Entry>{};
  std::string bytes;
  Result<std::vector<Entry>> entries = Seal(std::move(drafts), &bytes);
  if (!entries.ok()) return entries.status();
  staged_bytes_ += bytes;
  staged_seq_ = entries->back().seq;
  staged_hash_ = entries->back().hash;
  staged_epoch_ = entries->back().epoch;
  return entries;
}

void LedgerStore::Unstage() {
  staged_bytes_.clear();
  staged_seq_ = head_seq_;
  staged_hash_ = head_hash_;
  staged_epoch_ = epoch_;
}

Status LedgerStore::Commit(std::optional<Env::Appended> with, Status* with_done) {
  Status ignored = Status::Ok();
  if (!with_done) with_done = &ignored;
  if (staged_bytes_.empty()) {
    if (with) *with_done = env_->AppendDurable(with->path, with->data);
    return Status::Ok();
  }
  // A batch never straddles two segments: it goes where its first entry would.
  if (segment_.empty() || segment_size_ >= segment_bytes_) {
    segment_ = SegmentName(head_seq_ + 1);
    segment_size_ = 0;
  }
  Status s = Status::Ok();
  if (with) {
    std::vector<Status> done =
        env_->AppendTogether({{dir_ + "/" + segment_, staged_bytes_}, *with});
    s = done[0];
    *with_done = done[1];
  } else {
    s = env_->AppendDurable(dir_ + "/" + segment_, staged_bytes_);
  }
  if (!s.ok()) {
    broken_ = true;
    Unstage();
    return s;
  }
  segment_size_ += staged_bytes_.size();
  head_seq_ = staged_seq_;
  head_hash_ = staged_hash_;
  epoch_ = staged_epoch_;
  Unstage();
  if (staged_bytes_.capacity() > (size_t(1) << 20)) staged_bytes_.shrink_to_fit();
  return Status::Ok();
}

Status LedgerStore::ForEach(int64_t from_seq, const std::function<Status(const Entry&)>& fn) const {
  Result<std::vector<std::string>> segments = Segments();
  if (!segments.ok()) return segments.status();
  std::vector<int64_t> firsts(segments->size());
  for (size_t i = 0; i < segments->size(); i++) ParseSegmentName((*segments)[i], &firsts[i]);
  size_t start = 0;  // the last segment that can hold from_seq
  while (start + 1 < firsts.size() && firsts[start + 1] <= from_seq) start++;
  for (size_t i = start; i < segments->size(); i++) {
    const std::string path = dir_ + "/" + (*segments)[i];
    Status s = ForEachLine(env_, path, [&](std::string_view line, int64_t line_no, bool complete) {
      auto where = [&] { return path + " line " + std::to_string(line_no); };
      if (!complete) return Status::Invalid(where() + ": partial line at the end of the segment");
      Result<Entry> e = ParseEntryLine(line);
      if (!e.ok()) return Status::Invalid(where() + ": " + e.status().message());
      if (line_no == 1 && e->seq != firsts[i])
        return Status::Invalid(where() + ": first seq " + std::to_string(e->seq) +
                               " does not match the segment name");
      return e->seq < from_seq ? Status::Ok() : fn(*e);
    });
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace hangar::ledger
