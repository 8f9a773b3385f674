// LedgerKeeper: hangard's hold on its ledger (SPOOL/ledger/NAME) and that ledger's anchor
// (ANCHOR_DIR/NAME.anchor, meant to be another mount). It appends the kernel's Record actions,
// each durable in the ledger before its anchor line is written, and answers whether the ledger
// may be trusted: fully at start, cheaply (the head against the anchor's tail) before each act
// that must not happen on an untrusted ledger. It never decides what to do about a failure: it
// reports, and the kernel fails closed.
//
// Start-up after a crash: the ledger line is made durable before its anchor line, so a crash
// between the two leaves the anchor behind by what was in flight (at most one batch of kMaxBatch
// entries, plus the "ledger.cut" entry of a torn tail). Start anchors such a tail when it is
// short (kMaxCatchUp),
// hashes and links correctly, and either follows entries the anchor does vouch for in the same
// epoch or is the whole of a new ledger's first epoch; and the anchor file exists (Start makes it,
// empty, while the ledger is still empty, so a crash before the first anchor line leaves it
// there). It records that as a "ledger.caught-up" entry naming the seqs. Anything else the anchor
// does not vouch for (a missing anchor file, a long unvouched tail) fails closed.
//
// Entries whose signal record lines were lost are cut, not adopted. While it anchors, the daemon
// writes a batch's lines and its entries in one wait, then the anchor lines, so a crash between
// the two writes, or a power loss, can leave entries without their lines. Start is given what the
// record's last line says of the ledger: the head its decision followed and the entries it made.
// When that head is on this ledger (else the record is another's and says nothing), the entries
// up to it plus those made have their lines; the first entry of a tail as above past that which
// names a line, and every entry after, are cut (LedgerStore::CutAfter, recorded by a "ledger.cut"
// entry naming their bytes' sha256) before the rest is caught up, and said(). No act followed
// them: a decision's acts wait for the write of both files and for its anchor lines. A tail
// whose entries span two segments is not cut: that fails closed.
//
// Catch-up never adopts authority: a tail holding a grant, a revoke, a person's approval or
// denial, or a reanchor (an entry that opens an epoch) fails closed, whatever else it holds (one
// cut as above is not adopted either, and said). Such
// an entry is something a later decision reads (the window folds grants from the ledger) or a
// person's word, and a hash-correct forged tail costs nothing to write. The rest is adopted for
// what it is, a record of decisions whose acts never happened: a decision's acts wait for its
// anchor line (daemon/daemon.h), so no spool file acts on an unanchored entry, and the kernel
// decides those missions, ops and requests again from the spool. (One names it: a launch key taken
// beside its entry. A start takes back such a key whose entry it caught up, caught_up_from, so
// that mission too is decided again: shell/unbacked_keys.h.) (The issue asked for
// mission entries corroborated by a mission file naming their seq; after a real crash in that
// window no file can name it, for the same reason, so that test would fail every real catch-up.)
//
// Thread: hangard's loop thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "base/json.h"
#include "base/status.h"
#include "env/env.h"
#include "kernel/grants.h"
#include "kernel/kernel.h"
#include "kernel/requesters.h"
#include "ledger/anchor.h"
#include "ledger/signal_log.h"
#include "ledger/signing_key.h"
#include "ledger/store.h"

namespace hangar {

class LedgerKeeper {
 public:
  static constexpr int64_t kMaxBatch = ledger::kMaxBatchEntries;  // entries in one commit
  static constexpr int64_t kMaxCatchUp = kMaxBatch + 1;           // one batch plus a torn-tail cut

  // anchor_dir must be absolute; name is the ledger's name ("live").
  LedgerKeeper(Env* env, std::string spool, std::string anchor_dir, std::string name);

  // Opens the ledger (cutting and recording a torn tail), verifies it in full against the anchor
  // and catches up a short tail as above. Ok with failure() set when the ledger is not to be
  // trusted; an error only when the ledger or anchor directory cannot be read or written at all.
  // LINES: what the signal record's last line says of the ledger (SignalLog::cover), when there
  // is a record: entries of a crash's tail past what it accounts for that name a line are cut
  // (see the header), and said().
  Status Start(TimeMs now, std::optional<ledger::LinesCover> lines = std::nullopt);
  // What Start did that an operator should hear of (a cut of entries); empty when nothing.
  const std::string& said() const { return said_; }
  // Whether commits write anchor lines: not while failed closed on a missing or rolled-back
  // anchor, or on another home's (until the reanchor).
  bool anchoring() const { return !anchor_missing_ && !rolled_back_ && !foreign_; }
  // Why the ledger is not to be trusted, as found by Start; empty when it verified.
  const std::string& failure() const { return failure_; }
  // The head entry's time (0 for an empty ledger or one whose head time cannot be read): the
  // kernel dates nothing before it (State::ledger_time).
  TimeMs HeadTime() const;

  // Appends the kernel's record durably, then its anchor line. An error means the ledger could not
  // be written (a spool I/O failure) or gave another seq than the kernel numbered. An anchor that
  // could not be written is no error here: *anchor_error says why, and the caller fails closed.
  Status Append(const Record& r, std::string* anchor_error);
  // Group commit: the records (consecutive seqs) in one ledger write and fsync, then their anchor
  // lines in one write and fsync. Same errors as Append. A reanchor among them is appended alone
  // (its body names the head it follows), after what was staged is committed.
  Status AppendAll(const std::vector<Record>& rs, std::string* anchor_error);
  // Group commit across decisions (daemon/daemon.h, THE BATCH): Stage seals records after those
  // staged before (their hashes known at once: staged_seq/staged_hash are the head the next
  // decision follows) and writes nothing; Commit writes every staged entry in one ledger write
  // and fsync, then their anchor lines in one write and fsync. A reanchor is never staged (Io).
  // Same errors as Append; a failed Commit drops what was staged.
  Status Stage(const std::vector<Record>& rs);
  // WITH, when given (the signal record's lines the staged entries name), is appended in the
  // entries' wait (LedgerStore::Commit) and *WITH_DONE says what became of it; the anchor lines
  // follow only when both are on disk: a failure of either is Commit's error.
  Status Commit(std::string* anchor_error, std::optional<Env::Appended> with = std::nullopt,
                Status* with_done = nullptr);
  int64_t staged_seq() const { return store_.staged_seq(); }
  const std::string& staged_hash() const { return store_.staged_hash(); }
  bool staged() const { return store_.staged(); }

  // The entry of seq SEQ, none when the ledger ends before it (or SEQ < 1). An error when the
  // ledger cannot be read there.
  Result<std::optional<ledger::Entry>> EntryAt(int64_t seq) const;
  // The entries of SEQS that the ledger holds, by seq, read in one pass from the smallest to the
  // largest (a start asks this of every launch key it judges). An error when the ledger cannot be
  // read there.
  Result<std::map<int64_t, ledger::Entry>> EntriesAt(const std::set<int64_t>& seqs) const;

  // Before a protected act: the head on disk is still the head this keeper wrote, with no partial
  // line after it, and equals the anchor's last line for this ledger. Invalid with the reason.
  Status CheckHead() const;

  // Folds every grant and revocation of the ledger into *grants (kernel/grants.h), for the
  // window, and every requester's first mission and stored work state into *requesters
  // (kernel/requesters.h). Invalid when an entry cannot be read or such a body is malformed.
  Status FoldBooks(GrantBook* grants, RequesterBook* requesters, CanaryBook* canaries) const;

  // Signed checkpoints (man/hangar-ledger.5): loads the Ed25519 key at key_path, creating it
  // (0600, with key_path.pub) on first use. Call after Start. origin names this ledger's home in
  // each checkpoint (host and spool). While the anchor file is missing nothing is created (the
  // key may sit on the anchor mount that is not there): the key is looked for again after a
  // reanchor. Invalid when the key exists but cannot be used (its mode, its .pub). A checkpoint in
  // the anchor directory whose origin is not this one (a copied or moved spool pointed at this
  // anchor) sets failure(), and no anchor line is written until a reanchor.
  Status StartCheckpoints(const std::string& key_path, int64_t every, int64_t seconds,
                          std::string origin);
  // Writes ANCHOR/NAME.checkpoint when `every` entries or `seconds` passed since the last one and
  // the head moved (the first with the first entry); never while `trusted` is false (a
  // failed-closed ledger is not vouched for), nor for an empty ledger.
  // A checkpoint that cannot be written is said in *error and tried again later; no failure.
  void MaybeCheckpoint(TimeMs now, bool trusted, std::string* error);
  // The latest checkpoint written (one line), empty before the first.
  const std::string& checkpoint() const { return checkpoint_text_; }

  // Start found entries but no anchor file (the anchor mount is not there): until a reanchor no
  // anchor line is written, so nothing is created where the mount should be.
  bool anchor_missing() const { return anchor_missing_; }
  // Start found the ledger behind what its anchor or checkpoint vouches for: rolled back, or
  // rewritten from some seq on (a spool restored from a backup). Until a reanchor no anchor line
  // is written either, so every start until then finds the same (kernel.h, LedgerFailed).
  bool rolled_back() const { return rolled_back_; }
  // The first seq Start caught up (anchored by this start: no act followed it, see the header);
  // 0 when it caught up nothing.
  int64_t caught_up_from() const { return caught_up_from_; }
  // Start failed closed on an unanchored tail holding authority: the seqs of its grants, which
  // the reanchor voids (kernel.h, LedgerFailed; ledger/grants.h).
  const std::vector<int64_t>& unvouched_grants() const { return unvouched_grants_; }

  int64_t head_seq() const { return store_.head_seq(); }
  const std::string& head_hash() const { return store_.head_hash(); }
  int64_t epoch() const { return store_.epoch(); }
  const std::string& name() const { return store_.name(); }
  const std::string& anchor_path() const { return anchor_path_; }
  // True when the anchor directory is on the spool's filesystem (same st_dev): it then guards
  // against edits but not against losing the disk, and `hangar status` warns.
  bool anchor_same_filesystem() const { return same_fs_; }

 private:
  Status CatchUp(int64_t from, int64_t to, TimeMs now);
  // The ledger seq up to which C says the entries have their lines, when the head C names is on
  // this ledger (else the record is not this ledger's, and says nothing of it).
  Result<std::optional<int64_t>> LinesCovered(const ledger::LinesCover& c) const;
  // The first entry from seq FROM on past seq COVER that names a signal record line.
  Result<std::optional<ledger::Entry>> FirstNamingLostLine(int64_t from, int64_t cover) const;
  // The first entry from seq `from` on that carries authority (see the header), if any.
  Result<std::optional<ledger::Entry>> FirstAuthority(int64_t from) const;
  // The newest checkpoint hangard signed (ANCHOR_DIR/NAME.checkpoint) is a commitment: a ledger
  // that no longer extends it (cut back below its seq, wiped, rewritten at or before it) fails
  // closed with that reason. None yet: nothing to hold.
  Status HoldToCheckpoint();

  Env* env_;
  std::string spool_, anchor_dir_;
  ledger::LedgerStore store_;
  std::string anchor_path_;
  std::optional<ledger::Anchor> anchor_;          // bound by Start
  std::vector<ledger::AnchorMark> staged_marks_;  // the anchor lines of the staged entries
  std::string failure_;
  std::string said_;  // Start's cut, for the operator
  int64_t caught_up_from_ = 0;
  bool same_fs_ = false, anchor_missing_ = false, rolled_back_ = false;
  bool foreign_ = false;  // the anchor's checkpoint names another home (StartCheckpoints)
  std::vector<int64_t> unvouched_grants_;
  std::optional<ledger::SigningKey> key_;
  int64_t every_ = 100;
  TimeMs period_ms_ = 300000, last_checkpoint_time_ = 0;
  int64_t last_checkpoint_seq_ = -1;
  std::string origin_, checkpoint_text_, key_path_;
};

}  // namespace hangar
