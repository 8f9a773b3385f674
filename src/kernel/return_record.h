// return.json (man/hangar-return.5): what the kernel itself observed when a mission ended. The
// outcome is decided here, from observations only: `done` only if the drone exited 0 and every
// done-check passed. Pure.
#pragma once

#include <string>

#include "base/json.h"
#include "kernel/kernel.h"

namespace hangar {

// done, failed, timed_out, killed, cancelled, lost. harness_error: the harness itself reported an
// error (Claude Code's is_error), which wins over an exit status of 0.
std::string DecideOutcome(const MissionRec& rec, bool checks_passed, bool harness_error = false);

// The limits the drone ran under and those its traces show it reached (man/hangar-return.5,
// limits): {"in_force": {processes, file_mb, memory_mb, shm_mb, ops_per_minute}, "reached":
// [...]}. Reached, from observations only: file_mb by a file of the room at the cap (a write past
// it failed) or a drone killed by SIGXFSZ; ops_per_minute by the window's op.rate refusals. A
// process or memory limit the drone reached leaves no trace the kernel observes (a failed fork
// or allocation is the drone's own error).
json::Value LimitsRecord(const DroneLimits& limits, const MissionRec& rec, const Observation* obs);

// return.json as the kernel writes it, and the outcome it gives.
struct Returned {
  std::string outcome;
  std::string text;  // canonical JSON, indented: json::WritePretty's bytes, written straight
};

// A return for a mission whose drone ran (or whose launch was attempted). seq: the ledger seq of
// its mission.returned entry, which return.json names (ledger_seq).
Returned BuildReturn(const std::string& id, const MissionRec& rec, const Observation* obs,
                     const DroneLimits& limits, int64_t seq, TimeMs now);

// A return for a mission that ended without running (cancelled while held or queued).
Returned BuildUnrunReturn(const std::string& id, const MissionRec& rec, const std::string& outcome,
                          const std::string& reason, const DroneLimits& limits, int64_t seq,
                          TimeMs now);

}  // namespace hangar
