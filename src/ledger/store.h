// LedgerStore: the append-only, hash-chained ledger NAME on disk, in DIR/ledger/NAME/.
//
// Storage: segment files of ledger lines (entry.h), each named by the seq of its first entry,
// zero-padded to 12 digits ("000000000001.jsonl"), so `ls` sorts them and `cat DIR/ledger/NAME/*`
// prints the history in order. New entries go to the last segment; once it holds segment_bytes or
// more it is sealed and the next append starts a new one. A batch never straddles two segments.
//
// Durability: each Append/AppendBatch is one write(2) of whole lines and one fsync (Env::
// AppendDurable; the directory is fsynced when the segment is created) before it returns Ok. A
// caller appends the anchor line only after that, so the anchor never vouches for what may be lost.
// Group commit across decisions goes in two steps: Stage seals entries after the last one staged
// (seq, prev, hash known at once, nothing written), Commit writes all that is staged in one write
// and one fsync. head_*() are what is on disk; staged_*() what the next entry will follow.
//
// Torn tail: a crash can leave the last line half written. Open cuts the last segment back to its
// last good newline and records the cut as an entry of kind "ledger.cut" (body: bytes cut, the seq
// after which they stood, the segment, the sha256 of the cut bytes). Damage anywhere else is left
// as found: that is for Verify to report, never for the store to repair.
//
// Not thread-safe: one owner (hangard's loop) appends; readers use their own LedgerStore.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "base/timefmt.h"
#include "env/env.h"
#include "ledger/entry.h"

namespace hangar::ledger {

// The most entries hangard commits together (daemon/daemon.h, THE BATCH): what a crash can leave
// unanchored (daemon/ledger_keeper.h) or, in the signal record, without its entries.
inline constexpr int64_t kMaxBatchEntries = 64;

struct Draft {  // an entry before the store gives it seq, epoch, prev and hash
  std::string kind;
  json::Value body;
  TimeMs time = 0;
  // This entry opens a new epoch (epoch of the head + 1): only a recorded reanchor does that.
  bool new_epoch = false;
};

class LedgerStore {
 public:
  static constexpr uint64_t kDefaultSegmentBytes = uint64_t(64) << 20;

  // name must be an id ([A-Za-z0-9][A-Za-z0-9._-]{0,63}); Open refuses it otherwise.
  LedgerStore(Env* env, std::string spool_dir, std::string name,
              uint64_t segment_bytes = kDefaultSegmentBytes);

  // Creates DIR/ledger/NAME when missing, finds the head from the tail of the last non-empty
  // segment (the history is not read), and cuts and records a torn tail. Must succeed before any
  // other call. Invalid when the last complete entry, or a segment name, is unreadable.
  Status Open();
  // For readers (the CLI) that must change nothing: creates nothing, cuts nothing, records
  // nothing. A torn last line is left in place; the head is the last complete entry before it and
  // torn_tail() says so. Append refuses on a store opened this way.
  Status OpenForReading();

  // Appends one entry (seq = head + 1, prev = head hash, the current epoch, or the next one with
  // new_epoch) durably; returns it.
  Result<Entry> Append(std::string kind, json::Value body, TimeMs time, bool new_epoch = false);
  // Group commit: all drafts as consecutive entries in one write and one fsync. All or none are
  // accepted; a refused draft (a double in its body) appends nothing. The drafts' kinds and bodies
  // move into the entries (a caller that keeps its drafts passes a copy).
  Result<std::vector<Entry>> AppendBatch(std::vector<Draft> drafts);
  // Seals DRAFTS after the last staged entry (or the head) without writing them; a refused draft
  // stages nothing. Commit appends everything staged durably (Ok when nothing is); on a failure
  // the staged entries are dropped and the store is broken as after a failed append.
  Result<std::vector<Entry>> Stage(std::vector<Draft> drafts);  // the drafts move in, as above
  // WITH, when given, is appended in the same wait as the entries (Env::AppendTogether, the
  // entries first) and *WITH_DONE says what became of it; when nothing is staged it is appended
  // alone.
  Status Commit(std::optional<Env::Appended> with = std::nullopt, Status* with_done = nullptr);
  bool staged() const { return !staged_bytes_.empty(); }

  // Cuts every entry after SEQ from the ledger, recorded as a torn tail's cut is: a "ledger.cut"
  // entry {after_seq, bytes, reason, segment, sha256} appended after the head that is left, its
  // body written to a pending file before the truncation so a crash cannot lose it (and a crash
  // before the truncation, leaving the entries, records nothing). For entries no act followed
  // (daemon/ledger_keeper.h); Invalid when they are not all in the last segment.
  Status CutAfter(int64_t seq, const std::string& reason);

  // Calls fn on every entry with seq >= from_seq in order, across segments, stopping at the first
  // non-Ok it returns (which ForEach returns). Invalid, naming segment and line, for a line that
  // does not parse or a segment whose first entry's seq is not its name. Linking and hashes are
  // Verify's business.
  Status ForEach(int64_t from_seq, const std::function<Status(const Entry&)>& fn) const;

  const std::string& name() const { return name_; }
  const std::string& dir() const { return dir_; }  // DIR/ledger/NAME
  Env* env() const { return env_; }
  int64_t head_seq() const { return head_seq_; }               // 0 when empty
  const std::string& head_hash() const { return head_hash_; }  // kGenesisPrev when empty
  int64_t epoch() const { return epoch_; }                     // of the head; 1 when empty
  int64_t staged_seq() const { return staged_seq_; }  // the head once what is staged is committed
  const std::string& staged_hash() const { return staged_hash_; }
  bool torn_tail() const { return torn_tail_; }  // OpenForReading found a partial last line
  // Segment file names, sorted (ignores anything else in the directory).
  Result<std::vector<std::string>> Segments() const;

 private:
  Status FindHead(const std::vector<std::string>& segments);
  Status CutTornTail(const std::string& segment, uint64_t size, uint64_t keep);
  // The pending cut's "ledger.cut" entry appended, unless it is the head already or the cut did
  // not happen; then the pending file removed.
  Status RecordPendingCut();
  // The entries that drafts become after the last staged entry (their kinds and bodies moved in),
  // and their lines appended to *bytes.
  Result<std::vector<Entry>> Seal(std::vector<Draft> drafts, std::string* bytes) const;
  void Unstage();  // the staged head back to the head, nothing staged

  Env* env_;
  std::string spool_dir_, name_, dir_;
  uint64_t segment_bytes_;
  bool open_ = false;
  bool broken_ = false;  // a failed append may have left a partial line: reopen to cut it
  bool read_only_ = false, torn_tail_ = false;
  int64_t head_seq_ = 0;
  std::string head_hash_{kGenesisPrev};
  int64_t epoch_ = 1;
  // Sealed, not yet written (Stage): their bytes, and the head they lead to.
  std::string staged_bytes_;
  int64_t staged_seq_ = 0, staged_epoch_ = 1;
  std::string staged_hash_{kGenesisPrev};
  std::string segment_;  // the last segment's file name, "" when none
  uint64_t segment_size_ = 0;
};

// "000000000001.jsonl" for seq 1.
std::string SegmentName(int64_t first_seq);

}  // namespace hangar::ledger
