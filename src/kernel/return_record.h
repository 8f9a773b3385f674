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

// A return for a mission whose drone ran (or whose launch was attempted).
json::Value BuildReturn(const std::string& id, const MissionRec& rec, const Observation* obs,
                        TimeMs now);

// A return for a mission that ended without running (cancelled while held or queued).
json::Value BuildUnrunReturn(const std::string& id, const MissionRec& rec,
                             const std::string& outcome, const std::string& reason, TimeMs now);

}  // namespace hangar
