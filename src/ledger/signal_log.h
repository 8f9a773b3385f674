// SignalLog: the signal record's writer (man/hangar-signals.5). Every signal decide() consumed,
// with what the decision did, goes as one line to SPOOL/signals/NAME/signals.jsonl (NAME: the
// ledger's name) before any act of that decision; each start of hangard opens with a start line
// (the setup's facts, the kernel build, the ledger's head). Lines are canonical JSON, hash-chained
// like the ledger's entries (H = sha256 of the previous line's hash and this line's text without
// its "hash"), and every ledger entry a decision made carries its line's hash ("signal_record").
//
// Bytes a signal carries (a drop, a control request, an observation...) are content-addressed
// blobs: up to kInlineBlobBytes inside the line that names them ("blobs": {HEX: TEXT}), each
// line its own, larger ones as SPOOL/signals/NAME/blobs/HEX, written durably before the line that
// names them. Nothing is kept from one line to the next, however long hangard runs.
//
// Durability: Add only buffers; Flush appends what is buffered in one write and one fsync
// (Unwritten and Wrote: the same append made in the wait of the ledger entries that name the
// lines). The daemon writes them before the anchor lines of any decision that acts (a decision
// that only logs acts on nothing a crash could leave behind, so its line goes with the next
// write, in order). A crash can lose only lines whose decisions did nothing outside hangard's
// memory, which the next start rebuilds from the spool anyway (a crash can leave the entries of
// such a decision, never their anchor lines: the start cuts them, see daemon/ledger_keeper.h); a
// stop (SIGTERM) flushes them. Not thread-safe: the event loop's own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "env/env.h"
#include "kernel/kernel.h"
#include "kernel/setup_record.h"
#include "ledger/entry.h"

namespace hangar::ledger {

inline constexpr size_t kInlineBlobBytes = 16 * 1024;

// A signal record line's word on the ledger: the head (SEQ, HASH) its decision followed and the
// entries it made (RECORDS; none for a start line). The ledger's entries up to seq + records have
// their lines in a record ending with that line.
struct LinesCover {
  int64_t seq = 0;
  std::string hash;
  int64_t records = 0;
};

class SignalLog {
 public:
  SignalLog(Env* env, std::string spool, std::string name);

  // The directories made when missing; the last line found (its n and hash). A torn last line (a
  // write a crash cut short, never fsynced, so never acted on) is cut off and *said is set; a
  // last complete line that does not read is Invalid (the record is damaged: hangard refuses to
  // start on it rather than fork it).
  Status Open(std::string* said);
  // The start line, durably: the setup's facts, this binary's kernel build, the ledger's head.
  Status Start(const SetupFacts& facts, int64_t ledger_seq, const std::string& ledger_hash,
               TimeMs ledger_time);
  // Buffers the line of SIGNAL, decided after ledger head (SEQ, HASH) into ACTS, leaving
  // STATE; returns the line's hash, which the decision's ledger entries carry.
  Result<std::string> Add(const Signal& signal, const std::vector<Action>& acts, const State& state,
                          int64_t ledger_seq, const std::string& ledger_hash);
  // Appends the buffered lines durably (one write, one fsync); Ok when none wait.
  Status Flush();
  // Flush in two halves, for a caller that appends the lines with another file in one wait (the
  // daemon's commit: lines and ledger entries, Env::AppendTogether): the buffered lines as that
  // append's part (nullopt when none wait; the view lasts until Add, Flush or Wrote), then what
  // became of it.
  std::optional<Env::Appended> Unwritten() const;
  void Wrote(const Status& s);
  // What the record's last line says of the ledger, as Open found it (an empty record: the
  // genesis head, no entries); nullopt when the last line does not say. Start checks an unanchored
  // ledger tail against it (daemon/ledger_keeper.h).
  const std::optional<LinesCover>& cover() const { return cover_; }
  // Bytes of lines buffered: lines of decisions that only log wait for the next that acts, but
  // not without bound (a start's recovery of a deep queue logs one per mission).
  size_t buffered() const { return pending_.size(); }

  const std::string& path() const { return path_; }  // SPOOL/signals/NAME/signals.jsonl
  const std::string& dir() const { return dir_; }    // SPOOL/signals/NAME
  int64_t last_n() const { return n_; }

 private:
  // The line of MEMBERS (without n, prev, hash): numbered, chained, buffered; its hash.
  std::string Seal(json::Object members);
  // The blob reference of BYTES: inline into *inline_blobs when small, else a blob file.
  std::string Blob(std::string_view bytes, json::Object* inline_blobs);

  Env* env_;
  std::string dir_, path_;
  int64_t n_ = 0;
  std::optional<LinesCover> cover_ = LinesCover{0, std::string(kGenesisPrev), 0};
  std::string hash_;                  // of the last line (buffered or written)
  std::string pending_;               // lines not yet written
  Status blob_error_ = Status::Ok();  // a blob file that could not be written
};

}  // namespace hangar::ledger
