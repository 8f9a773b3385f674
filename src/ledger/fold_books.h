// FoldBooks: what a start of hangard reads back from its ledger before it decides anything — the
// grants and revocations (kernel/grants.h), whose each requester is, with its work states'
// versions (kernel/requesters.h), and each profile's proven definition and canary
// (kernel/canary.h) — in one pass over the store (ledger/scan.h).
#pragma once

#include "base/status.h"
#include "kernel/canary.h"
#include "kernel/grants.h"
#include "kernel/requesters.h"
#include "ledger/store.h"

namespace hangar::ledger {

// Invalid when an entry cannot be read or such an entry's body is malformed. CANARIES null: that
// book is not wanted.
Status FoldBooks(const LedgerStore& store, GrantBook* grants, RequesterBook* requesters,
                 CanaryBook* canaries);

}  // namespace hangar::ledger
