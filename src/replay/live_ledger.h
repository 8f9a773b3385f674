// LiveLedger: what a replay needs of the live ledger, read once (ledger/scan.h): per entry its
// kind, hash and the signal record line that decided it (the body's "signal_record"), the mission
// it names, and the gate's rules where the entry has them; the grant and requester entries whole,
// to fold a start's books from. The chain and anchor are checked
// before, by ledger::Verify.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/canary.h"
#include "kernel/grants.h"
#include "kernel/requesters.h"
#include "ledger/store.h"

namespace hangar::replay {

struct LiveEntry {
  std::string kind;
  std::string hash;           // the entry's own
  std::string signal_record;  // the line hash in its body, or empty
  std::string verdict;        // "rules" and "rule" of the body, as "R1,R2", for the diff's note
  std::string id;             // the body's "id": the mission it is about, or empty
};

class LiveLedger {
 public:
  Status Load(const ledger::LedgerStore& store);
  // The entry at SEQ, or nullptr outside 1..head.
  const LiveEntry* At(int64_t seq) const;
  int64_t head() const { return int64_t(entries_.size()); }
  // The first entry after seq AFTER whose body names a signal record line; 0 when none.
  int64_t FirstNamingALine(int64_t after) const;
  // The grants in force after SEQ, as the kernel folds them at a start.
  Result<GrantBook> GrantsAt(int64_t seq) const;
  // The requester book after SEQ, likewise.
  Result<RequesterBook> RequestersAt(int64_t seq) const;
  Result<CanaryBook> CanariesAt(int64_t seq) const;

 private:
  std::vector<LiveEntry> entries_;   // seq 1 at index 0
  std::vector<GrantRecord> grants_;  // the entries the grant and requester books fold
};

}  // namespace hangar::replay
