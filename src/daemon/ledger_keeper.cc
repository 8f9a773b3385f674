#include "daemon/ledger_keeper.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "ledger/checkpoint.h"
#include "ledger/fold_books.h"
#include "ledger/scan.h"
#include "ledger/verify.h"

namespace hangar {

namespace {

std::string N(int64_t v) {
  return std::to_string(v);
}

// A body the ledger cannot hold (a double, invalid UTF-8: a bug, or text from outside that slipped
// through) must not stop hangard at every start: the entry is kept, its body says why it is not.
json::Value Recordable(const json::Value& body) {
  Status s = ledger::CheckIntegersOnly(body, "body");
  if (s.ok()) return body;
  json::Object o{{"unrecordable", s.message()}};
  if (const json::Value* id = body.find("id");
      id && id->is_string() && json::ValidUtf8(id->as_string()))
    o["id"] = *id;
  return o;
}

// Two origins "HOST:SPOOL" name the same home: the same host, and spool paths that resolve to the
// same directory (a symlink or another spelling of the path is no other home).
bool SameHome(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const size_t ca = a.find(':'), cb = b.find(':');
  if (ca == std::string::npos || cb == std::string::npos || a.substr(0, ca) != b.substr(0, cb))
    return false;
  std::error_code e1, e2;
  const std::filesystem::path pa = std::filesystem::weakly_canonical(a.substr(ca + 1), e1);
  const std::filesystem::path pb = std::filesystem::weakly_canonical(b.substr(cb + 1), e2);
  return !e1 && !e2 && pa == pb;
}

}  // namespace

LedgerKeeper::LedgerKeeper(Env* env, std::string spool, std::string anchor_dir, std::string name)
    : env_(env),
      spool_(std::move(spool)),
      anchor_dir_(std::move(anchor_dir)),
      store_(env_, spool_, name),
      anchor_path_(anchor_dir_ + "/" + name + ".anchor") {}

Status LedgerKeeper::Start(TimeMs now, std::optional<ledger::LinesCover> lines) {
  struct stat a {
  }, s{};
  if (::stat(anchor_dir_.c_str(), &a) != 0)
    return Status::Errno("use anchor directory " + anchor_dir_, errno);
  if (!S_ISDIR(a.st_mode))
    return Status::Invalid("cannot use anchor directory " + anchor_dir_ + ": not a directory");
  if (::stat(spool_.c_str(), &s) != 0) return Status::Errno("stat " + spool_, errno);
  same_fs_ = a.st_dev == s.st_dev;
  Result<ledger::Anchor> bound = ledger::Anchor::Bind(env_, anchor_path_, store_.name());
  if (!bound.ok()) return bound.status();
  anchor_.emplace(std::move(*bound));
  Status st = store_.Open();
  if (!st.ok()) return st;
  // A new ledger gets its anchor file, empty, before its first entry: from then on a missing
  // anchor file is a lost anchor, never a crash before the first anchor line.
  if (store_.head_seq() == 0) {
    const std::string file = anchor_path_.substr(anchor_dir_.size() + 1);
    Status c = env_->CreateExclusive(anchor_dir_, file, "");
    if (!c.ok() && c.code() != Code::kExists) return c;
  }
  Result<ledger::VerifyReport> v = ledger::Verify(store_, *anchor_);
  if (!v.ok()) return v.status();
  if (v->ok) return HoldToCheckpoint();
  // A short unvouched tail after vouched entries of the same epoch, or the whole of a new
  // ledger's first epoch while its anchor file holds no line of it: a crash between the ledger
  // write and the anchor line (see the header).
  auto crash_tail = [&](const ledger::VerifyReport& r) {
    const bool after_vouched = r.missing_from > r.first_seq;
    const bool new_ledger = r.epoch == 1 && r.first_seq == 1 && r.missing_from == 1 &&
                            r.anchor_own == 0 && env_->Exists(anchor_path_);
    return r.failure == ledger::Failure::kAnchorBehind && r.missing_to == r.head_seq &&
           (after_vouched || new_ledger) && r.missing_to - r.missing_from + 1 <= kMaxCatchUp;
  };
  if (crash_tail(*v) && lines) {
    // Entries of that tail whose signal record lines a crash took (written in one wait with them,
    // see the header) are cut, not adopted: from the first that names a line past the record's
    // last.
    Result<std::optional<int64_t>> covered = LinesCovered(*lines);
    if (!covered.ok()) return covered.status();
    Result<std::optional<ledger::Entry>> lost =
        *covered ? FirstNamingLostLine(v->missing_from, **covered) : std::optional<ledger::Entry>();
    if (!lost.ok()) return lost.status();
    if (*lost) {
      const int64_t from = (*lost)->seq, to = v->head_seq;
      Result<std::optional<ledger::Entry>> authority = FirstAuthority(from);
      if (!authority.ok()) return authority.status();
      Status c = store_.CutAfter(
          from - 1,
          "the signal record lacks the lines these entries name, written in the same wait (a "
          "crash between the two writes, or a power loss) and never anchored, so no act followed "
          "them; the kernel decides again from the spool");
      if (c.code() == Code::kInvalid) {
        failure_ = "ledger verification failed (anchor-behind at seq " + N(v->missing_from) +
                   "): the unanchored tail names signal record lines the record lacks from seq " +
                   N(from) + " on, and cannot be cut: " + c.message();
        return Status::Ok();
      }
      if (!c.ok()) return c;
      said_ = "ledger: cut unanchored seqs " + N(from) + ".." + N(to) +
              ", which name signal record lines the record lacks (a crash between their writes, "
              "or a power loss); their decisions are made again from the spool";
      if (*authority)
        said_ += "; among them a " + (*authority)->kind + " entry (seq " + N((*authority)->seq) +
                 "), not adopted: check it with `hangar ledger show --from " + N(from) + "`";
      v = ledger::Verify(store_, *anchor_);
      if (!v.ok()) return v.status();
      if (v->ok) return HoldToCheckpoint();
    }
  }
  if (crash_tail(*v)) {
    Result<std::optional<ledger::Entry>> authority = FirstAuthority(v->missing_from);
    if (!authority.ok()) return authority.status();
    if (!authority->has_value()) {
      if (Status c = CatchUp(v->missing_from, v->missing_to, now); !c.ok()) return c;
      return HoldToCheckpoint();
    }
    const ledger::Entry& e = **authority;
    (void)store_.ForEach(v->missing_from, [&](const ledger::Entry& t) {
      if (t.kind == "grant") unvouched_grants_.push_back(t.seq);
      return Status::Ok();
    });
    failure_ =
        "ledger verification failed (anchor-behind at seq " + N(v->missing_from) +
        "): the unanchored tail " + N(v->missing_from) + ".." + N(v->missing_to) + " holds a " +
        e.kind + " entry (seq " + N(e.seq) +
        "), which start-up never adopts: a grant, revocation, person's decision or "
        "reanchor counts only once the anchor vouches for it. Check it with `hangar ledger "
        "show --from " +
        N(e.seq) +
        "`, then reanchor: the reanchor voids the tail's grants, and the requests behind the "
        "tail (never answered: hangard stopped before their anchor line) are decided again";
    return Status::Ok();
  }
  anchor_missing_ = v->failure == ledger::Failure::kAnchorMissing;
  rolled_back_ =
      v->failure == ledger::Failure::kRollback || v->failure == ledger::Failure::kAnchorMismatch;
  failure_ = std::string("ledger verification failed (") + ledger::FailureName(v->failure) +
             (v->seq ? " at seq " + N(v->seq) : "") + "): " + v->reason;
  return Status::Ok();
}

TimeMs LedgerKeeper::HeadTime() const {
  TimeMs t = 0;
  if (store_.head_seq() == 0) return 0;
  (void)store_.ForEach(store_.head_seq(), [&](const ledger::Entry& e) {
    t = ParseTime(e.time).value_or(0);
    return Status::Ok();
  });
  return t;
}

Status LedgerKeeper::HoldToCheckpoint() {
  const std::string file = anchor_dir_ + "/" + ledger::CheckpointFileName(store_.name());
  Result<ledger::Checkpoint> cp = ledger::ReadCheckpoint(env_, file);
  if (cp.status().code() == Code::kNotFound) return Status::Ok();  // none signed yet
  Status s = cp.ok() ? ledger::CheckExtends(store_, *cp) : cp.status();
  if (!s.ok() && s.code() != Code::kInvalid) return s;  // cannot read: not a verdict
  if (!s.ok()) {
    failure_ =
        "the ledger does not extend the checkpoint hangard signed (" + file + "): " + s.message();
    rolled_back_ = true;
  }
  return Status::Ok();
}

Status LedgerKeeper::FoldBooks(GrantBook* grants, RequesterBook* requesters,
                               CanaryBook* canaries) const {
  return ledger::FoldBooks(store_, grants, requesters, canaries);
}

namespace {

// An entry that is itself authority a later decision reads (the window folds grants from the
// ledger) or a person's decision, or one that opens an epoch: never adopted unvouched.
bool CarriesAuthority(const ledger::Entry& e) {
  return e.kind == "grant" || e.kind == "revoke" || e.kind == "person.approved" ||
         e.kind == "person.denied" || e.kind == "ledger.reanchor" ||
         e.body.find("previous") != nullptr;
}

}  // namespace

Result<std::optional<ledger::Entry>> LedgerKeeper::EntryAt(int64_t seq) const {
  Result<std::map<int64_t, ledger::Entry>> found = EntriesAt({seq});
  if (!found.ok()) return found.status();
  if (found->empty()) return std::optional<ledger::Entry>();
  return std::optional<ledger::Entry>(std::move(found->begin()->second));
}

Result<std::map<int64_t, ledger::Entry>> LedgerKeeper::EntriesAt(
    const std::set<int64_t>& seqs) const {
  std::map<int64_t, ledger::Entry> found;
  auto first = seqs.lower_bound(1);
  if (first == seqs.end() || *first > store_.head_seq()) return found;
  const int64_t last = *seqs.rbegin();
  Status s = store_.ForEach(*first, [&](const ledger::Entry& e) {
    if (e.seq > last) return Status::Exists("past the last");  // no need to read on
    if (seqs.count(e.seq)) found.emplace(e.seq, e);
    return Status::Ok();
  });
  if (!s.ok() && s.code() != Code::kExists) return s;
  return found;
}

Result<std::optional<ledger::Entry>> LedgerKeeper::FirstAuthority(int64_t from) const {
  std::optional<ledger::Entry> found;
  Status s = store_.ForEach(from, [&](const ledger::Entry& e) {
    if (!found && CarriesAuthority(e)) found = e;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return found;
}

Result<std::optional<int64_t>> LedgerKeeper::LinesCovered(const ledger::LinesCover& c) const {
  // The record is this ledger's only if the head its last line followed is on this ledger.
  bool linked = c.seq == 0 && c.hash == ledger::kGenesisPrev;
  if (c.seq > 0 && c.seq <= store_.head_seq()) {
    Status s = store_.ForEach(c.seq, [&](const ledger::Entry& e) {
      if (e.seq == c.seq) linked = e.hash == c.hash;
      return Status::Ok();
    });
    if (!s.ok()) return s;
  }
  if (!linked) return std::optional<int64_t>();
  return std::optional<int64_t>(c.seq + c.records);
}

Result<std::optional<ledger::Entry>> LedgerKeeper::FirstNamingLostLine(int64_t from,
                                                                       int64_t cover) const {
  std::optional<ledger::Entry> found;
  Status s = store_.ForEach(from, [&](const ledger::Entry& e) {
    if (!found && e.seq > cover && e.body.find("signal_record") != nullptr) found = e;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return found;
}

Status LedgerKeeper::CatchUp(int64_t from, int64_t to, TimeMs now) {
  Status s = store_.ForEach(from, [&](const ledger::Entry& e) {
    return e.seq > to ? Status::Ok() : anchor_->Append(e.epoch, e.seq, e.hash);
  });
  if (!s.ok()) {
    failure_ =
        "cannot anchor the ledger's unvouched tail " + N(from) + ".." + N(to) + ": " + s.message();
    return Status::Ok();
  }
  caught_up_from_ = from;
  Record r{store_.head_seq() + 1, "ledger.caught-up",
           json::Object{{"from", from},
                        {"to", to},
                        {"reason",
                         "the anchor lacked the ledger's last entries (a stop between a ledger "
                         "write and its anchor line); they hash and link, so they were anchored"}},
           now};
  std::string anchor_error;
  s = Append(r, &anchor_error);
  if (!s.ok()) return s;
  if (!anchor_error.empty()) failure_ = anchor_error;
  return Status::Ok();
}

Status LedgerKeeper::Append(const Record& r, std::string* anchor_error) {
  if (store_.staged())
    return Status::Io("ledger " + store_.dir() + ": seq " + N(r.seq) +
                      " cannot be appended alone while a batch waits");
  json::Value body = Recordable(r.body);
  if (r.new_epoch)
    body["previous"] = json::Object{
        {"epoch", store_.epoch()}, {"seq", store_.head_seq()}, {"hash", store_.head_hash()}};
  if (store_.head_seq() + 1 != r.seq)
    return Status::Io("ledger " + store_.dir() + " would give seq " + N(store_.head_seq() + 1) +
                      " to a decision the kernel numbered " + N(r.seq));
  Result<ledger::Entry> e = store_.Append(r.kind, std::move(body), r.time, r.new_epoch);
  if (!e.ok()) return e.status();
  // A new epoch gets its checkpoint at once: the last one, of the old head, would otherwise be
  // held against the ledger at the next start.
  if (r.new_epoch) last_checkpoint_seq_ = -1;
  // Failed closed already; a rolled-back ledger's anchor keeps the evidence as it stands (lines
  // for seqs it vouched for otherwise would only blur it) until the reanchor.
  if ((anchor_missing_ || rolled_back_ || foreign_) && !r.new_epoch) return Status::Ok();
  anchor_missing_ = rolled_back_ = foreign_ = false;  // a reanchor names this the anchor now
  Status a = anchor_->Append(e->epoch, e->seq, e->hash);
  if (!a.ok()) *anchor_error = "cannot write the anchor: " + a.message();
  return Status::Ok();
}

Status LedgerKeeper::AppendAll(const std::vector<Record>& rs, std::string* anchor_error) {
  if (std::any_of(rs.begin(), rs.end(), [](const Record& r) { return r.new_epoch; })) {
    if (Status s = Commit(anchor_error); !s.ok() || !anchor_error->empty()) return s;
    for (const Record& r : rs)
      if (Status s = Append(r, anchor_error); !s.ok()) return s;
    return Status::Ok();
  }
  if (Status s = Stage(rs); !s.ok()) return s;
  return Commit(anchor_error);
}

Status LedgerKeeper::Stage(const std::vector<Record>& rs) {
  std::vector<ledger::Draft> drafts;
  drafts.reserve(rs.size());
  for (const Record& r : rs) {
    const int64_t next = store_.staged_seq() + 1 + int64_t(drafts.size());
    if (r.new_epoch)
      return Status::Io("ledger " + store_.dir() + ": seq " + N(r.seq) +
                        " opens an epoch and cannot wait in a batch");
    if (r.seq != next)
      return Status::Io("ledger " + store_.dir() + " would give seq " + N(next) +
                        " to a decision the kernel numbered " + N(r.seq));
    drafts.push_back(ledger::Draft{r.kind, Recordable(r.body), r.time, false});
  }
  Result<std::vector<ledger::Entry>> es = store_.Stage(std::move(drafts));
  if (!es.ok()) return es.status();
  for (const ledger::Entry& e : *es) staged_marks_.push_back({e.epoch, e.seq, e.hash});
  return Status::Ok();
}

Status LedgerKeeper::Commit(std::string* anchor_error, std::optional<Env::Appended> with,
                            Status* with_done) {
  std::vector<ledger::AnchorMark> marks = std::move(staged_marks_);
  staged_marks_.clear();
  Status also = Status::Ok();
  Status s = store_.Commit(with, &also);
  if (with_done) *with_done = also;
  if (!s.ok()) return s;
  if (!also.ok()) return also;  // entries whose lines are not on disk get no anchor line
  // Failed closed already; a rolled-back ledger's anchor keeps the evidence as it stands (see
  // Append) until the reanchor, which is never in a batch.
  if (marks.empty() || anchor_missing_ || rolled_back_ || foreign_) return Status::Ok();
  Status a = marks.size() == 1 ? anchor_->Append(marks[0].epoch, marks[0].seq, marks[0].hash)
                               : anchor_->AppendBatch(marks);
  if (!a.ok()) *anchor_error = "cannot write the anchor: " + a.message();
  return Status::Ok();
}

Status LedgerKeeper::CheckHead() const {
  ledger::LedgerStore disk(env_, spool_, store_.name());
  Status s = disk.OpenForReading();
  if (!s.ok()) return Status::Invalid("ledger unreadable: " + s.message());
  if (disk.head_seq() != store_.head_seq() || disk.head_hash() != store_.head_hash())
    return Status::Invalid("the ledger's head on disk (seq " + N(disk.head_seq()) +
                           ") is not the head hangard wrote (seq " + N(store_.head_seq()) +
                           "): it was rolled back or edited");
  if (disk.torn_tail())
    return Status::Invalid("the ledger has a partial line after its head (seq " +
                           N(store_.head_seq()) + ") that hangard did not write");
  return ledger::CheckHead(store_, *anchor_);
}

Status LedgerKeeper::StartCheckpoints(const std::string& key_path, int64_t every, int64_t seconds,
                                      std::string origin) {
  key_path_ = key_path;
  if (!anchor_missing_) {
    Result<ledger::SigningKey> key = ledger::SigningKey::LoadOrCreate(env_, key_path);
    if (!key.ok()) return key.status();
    key_.emplace(std::move(key).value());
  }
  every_ = every;
  period_ms_ = seconds * 1000;
  origin_ = std::move(origin);
  const std::string file = anchor_dir_ + "/" + ledger::CheckpointFileName(store_.name());
  if (Result<std::string> last = env_->ReadFile(file, 64 * 1024); last.ok()) {
    checkpoint_text_ = *last;
    // The anchor serves one spool: the checkpoint names the home of the ledger it vouches for. A
    // copy of the spool (or one moved elsewhere) pointed at this anchor extends the same ledger,
    // so only its home tells it apart; it writes nothing here until a person reanchors it.
    Result<ledger::Checkpoint> cp = ledger::ParseCheckpoint(*last);
    if (cp.ok() && !SameHome(cp->origin, origin_)) {
      foreign_ = true;
      if (failure_.empty())
        failure_ = "the anchor " + anchor_dir_ + " vouches for the ledger kept at " + cp->origin +
                   ", not at " + origin_ +
                   " (a copy of that spool, or the spool moved): one anchor serves one spool; "
                   "reanchor if this is now the ledger's home";
    }
  }
  return Status::Ok();
}

void LedgerKeeper::MaybeCheckpoint(TimeMs now, bool trusted, std::string* error) {
  if (!key_ && !anchor_missing_ && !key_path_.empty()) {  // after a reanchor
    Result<ledger::SigningKey> key = ledger::SigningKey::LoadOrCreate(env_, key_path_);
    if (!key.ok()) {
      *error = "no checkpoints: " + key.status().message();
      key_path_.clear();  // said once
      return;
    }
    key_.emplace(std::move(key).value());
  }
  // An empty ledger has nothing to vouch for; its checkpoint would make the first entries wait
  // `seconds` for one that covers them (a return delivered meanwhile would carry size 0).
  if (!key_ || !trusted || store_.head_seq() == 0 || store_.head_seq() == last_checkpoint_seq_)
    return;
  const bool due = last_checkpoint_seq_ < 0 || store_.head_seq() - last_checkpoint_seq_ >= every_ ||
                   now - last_checkpoint_time_ >= period_ms_ || now < last_checkpoint_time_;
  if (!due) return;
  Result<std::string> text = ledger::MakeCheckpoint(store_, origin_, now, *key_);
  Status s =
      text.ok() ? ledger::WriteCheckpoint(env_, anchor_dir_, store_.name(), *text) : text.status();
  // A failure is tried again after `every` entries or the period, not at every entry.
  last_checkpoint_time_ = now;
  last_checkpoint_seq_ = store_.head_seq();
  if (!s.ok()) {
    *error = "cannot write a checkpoint: " + s.message();
    return;
  }
  checkpoint_text_ = *text;
}

}  // namespace hangar
