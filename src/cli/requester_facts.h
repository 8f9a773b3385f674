// What hangar recorded of one requester, gathered for `hangar resume` and `hangar memory`: one
// pass over the live ledger (ledger/scan.h, without recomputing hashes: `hangar ledger verify`
// and hangard's own start are where the chain is proved, and the pack says whether hangard is
// failed closed), the requester's work states in memory/REQUESTER/, its live missions' files for
// their deadlines, and the checkpoint beside the anchor.
#pragma once

#include <string>

#include "base/status.h"
#include "cli/context.h"
#include "kernel/resume_pack.h"

namespace hangar::cli {

// A stored work state read back: its text and what it parsed to, checked against the sha256 its
// memory.stored entry names. problem says why it is not to be trusted ("" when it is).
struct StoredMemory {
  PackVersion version;
  std::string path, text;
  std::optional<RequesterMemory> memory;
  std::string problem;
  // "ok", "missing" (cannot be read), "changed" (not the sha256 the ledger stored) or "invalid"
  // (the ledger's bytes, yet not a work state of this requester).
  std::string state = "ok";
};
StoredMemory ReadStoredMemory(const Context& ctx, const std::string& requester,
                              const PackVersion& v);

// The facts of the pack for REQUESTER (a valid id). Errors: the ledger cannot be read.
Result<PackFacts> GatherRequesterFacts(const Context& ctx, const std::string& requester);

}  // namespace hangar::cli
