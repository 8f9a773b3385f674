// Verify: does the ledger on disk agree with itself and with its anchor?
//
// Full check (Verify) walks the current epoch, from its first seq to the head:
//   - every line parses strictly, seqs run 1, 2, 3... with no gap, duplicate or reordering, and
//     epochs never go down;
//   - every entry of the epoch hashes to its "hash", and every entry's prev is the hash of the
//     entry before (kGenesisPrev for seq 1);
//   - the anchor's lines for this ledger and epoch (lines of other ledgers are ignored) are
//     gap-free, in order and without duplicates, and each equals the ledger's entry for its seq;
//   - an anchor ahead of the ledger is a rollback; a ledger ahead of its anchor names the seqs the
//     anchor is missing.
// The current epoch is the later of the ledger head's and the anchor's last epoch, so a ledger
// rolled back across a reanchor is caught too.
//
// A verification failure is a report (ok = false, a Failure, a reason and the seq), not an error:
// the caller fails closed and shows the reason. Result carries an error only when the files could
// not be read at all.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "ledger/anchor.h"
#include "ledger/store.h"

namespace hangar::ledger {

enum class Failure {
  kNone,
  kBadEntry,        // a ledger line that does not parse (seq = the one expected there)
  kLedgerSequence,  // ledger seqs not 1, 2, 3...: a gap, duplicate or reordering
  kHashMismatch,    // an entry's hash does not recompute: it was edited
  kBrokenChain,     // an entry's prev is not the hash of the entry before
  kAnchorMissing,   // the ledger has entries but the anchor file is not there
  kAnchorSequence,  // the anchor's own lines have a gap, duplicate or are out of order
  kAnchorMismatch,  // the anchor's hash for a seq differs from the ledger's
  kRollback,        // the anchor vouches for entries the ledger no longer has
  kAnchorBehind,    // the ledger has entries the anchor does not vouch for
};

const char* FailureName(Failure f);  // "rollback", "anchor-behind", ...

struct VerifyReport {
  bool ok = true;
  Failure failure = Failure::kNone;
  std::string reason;                        // one sentence a person reads; empty when ok
  int64_t seq = 0;                           // where it failed; 0 when ok
  int64_t epoch = 1;                         // the epoch checked
  int64_t first_seq = 0;                     // of that epoch in the ledger; 0 when it has none
  int64_t head_seq = 0;                      // the ledger's head
  int64_t checked = 0;                       // entries of the epoch whose hash was recomputed
  int64_t anchor_own = 0;                    // anchor lines of this ledger and epoch
  int64_t anchor_ignored = 0;                // anchor lines of other ledgers or unreadable
  int64_t missing_from = 0, missing_to = 0;  // kAnchorBehind: the seqs the anchor lacks
};

// store must be Open; anchor must be bound to the same ledger name (Invalid otherwise).
Result<VerifyReport> Verify(const LedgerStore& store, const Anchor& anchor);

// The cheap check before a protected act: the store's head (epoch, seq, hash) equals the anchor's
// last line for this ledger (not the file's last line, which may be another ledger's). Ok, or
// Invalid with the reason; reads only the anchor's tail.
Status CheckHead(const LedgerStore& store, const Anchor& anchor);

}  // namespace hangar::ledger
