// ScanLedger: the bulk read behind Verify. Every entry of a ledger from seq 1, in order, parsed
// strictly (EntryView) and, for one epoch, its hash recomputed: the costly part runs on all cores,
// a large block of lines at a time, and fn still sees the entries one by one, in file order, on
// the calling thread. The outcome does not depend on the number of threads: each line's result is
// kept in its slot and the first failure in file order is the one reported.
#pragma once

#include <cstdint>
#include <functional>

#include "base/status.h"
#include "ledger/entry_view.h"
#include "ledger/store.h"

namespace hangar::ledger {

struct ScanOptions {
  int64_t hash_epoch = 0;  // entries of this epoch get hash_ok computed; others get true
  int threads = 0;         // 0: one per core (at most 8); 1: all on the calling thread
  size_t block_bytes = size_t(4) << 20;
};

// Calls fn(view, hash_ok) for every entry of store in order, stopping at the first non-Ok it
// returns (which ScanLedger returns). The view points into a read buffer: valid only during the
// call. Reading rules and messages are LedgerStore::ForEach's: Invalid, naming segment and line,
// for a line that does not parse, a partial last line, or a segment whose first entry's seq is
// not its name. Sequence, chain and anchor are the caller's business.
Status ScanLedger(const LedgerStore& store, const ScanOptions& options,
                  const std::function<Status(const EntryView&, bool hash_ok)>& fn);

}  // namespace hangar::ledger
