// The supervisor: hangar-shim's logic. It runs one drone exactly as a plan says, enforces the
// plan's deadline from outside the drone, and writes what it saw to run/exit.json
// (docs/ARCHITECTURE.md, "hangar-shim"). shim_main.cc is only the entry point; the pure parts below
// are unit-tested, the process as a whole is tested by driving bin/hangar-shim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "kernel/exit_info.h"
#include "kernel/plan.h"

namespace hangar {

// Exit statuses of hangar-shim's first process (sysexits(3) where one fits).
inline constexpr int kShimStarted =
    0;  // the drone was launched (or its exec failed: see exit.json)
inline constexpr int kShimNotStarted = 1;  // nothing was launched; the reason is on stderr
inline constexpr int kShimUsage = 64;      // EX_USAGE
inline constexpr int kShimBadPlan = 78;    // EX_CONFIG: the plan could not be read or is invalid

// The whole program for `hangar-shim PLAN_FILE SHA256`: SHA256 is the plan's hash as the gate
// passed it; a plan whose bytes hash otherwise was changed after the gate and is never run. Forks:
// the first process returns once the supervisor has reported (kShimStarted, kShimNotStarted,
// kShimBadPlan); the supervisor returns when the drone's story is written to exit.json (or it could
// not start). Without space for exit.json (ENOSPC, EDQUOT) it keeps the record and its lock and
// tries again every second until the write succeeds: a full disk delays an end, never loses it.
// Call once, from main, in a process that has no other threads.
int RunShim(const std::string& plan_file, const std::string& plan_sha256);

// Reads PLAN_FILE and checks that its bytes hash to plan_sha256 (the plan the gate passed), for
// any launcher. Invalid or NotFound with a message of the shape "cannot read plan FILE: reason".
Result<Plan> LoadPlanFile(const std::string& plan_file, const std::string& plan_sha256);

// Reads PLAN_FILE, checks that its bytes hash to plan_sha256 (the plan the gate passed) and that
// it is a plan this launcher runs ("launcher":"direct"). Invalid or NotFound with a message of the
// shape "cannot read plan FILE: reason".
Result<Plan> LoadShimPlan(const std::string& plan_file, const std::string& plan_sha256);

}  // namespace hangar
