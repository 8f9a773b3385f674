// Starting hangar-shim's first process and waiting for its report: the part of the direct
// launcher that both a cold start (StartShim, launch/direct_launcher.h) and a first process forked
// by the shim zygote (launch/shim_zygote.h) go through.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"

namespace hangar {

// The first process of hangar-shim answers within milliseconds; ten seconds means it is stuck
// (a cold start's, and one the shim zygote forked, alike).
inline constexpr std::chrono::milliseconds kShimReportWithin{10000};

// A first process of hangar-shim, started and not reaped yet: its pid and the anonymous file
// (memfd) its stdout and stderr go to, which the caller owns.
struct ShimChild {
  pid_t pid = -1;
  int report = -1;
};

// posix_spawn of SHIM_PATH with ARGS after argv[0], stdin from STDIN_FD (/dev/null when -1),
// stdout and stderr to a fresh memfd, and no environment but PATH (none of hangard's). Not
// Boost.Process: Boost 1.74 only forks, and a fork copies hangard's page tables at each launch
// (docs/ARCHITECTURE.md, hangar-shim). Io naming SHIM_PATH when it cannot be run.
Result<ShimChild> SpawnShim(const std::string& shim_path, const std::vector<std::string>& args,
                            int stdin_fd);

// Waits (at most ~10 s) for CHILD, which runs PLAN_FILE, to end, reaps it, closes its report, and
// says what it said, as StartShim documents: Ok, Invalid (the plan refused), Io (nothing launched)
// or Unavailable (no report in time; the first process killed).
Status AwaitShim(ShimChild child, const std::string& plan_file);

// What hangar-shim wrote to the report file FD (at most 64 KiB), without its trailing newlines and
// its leading "hangar-shim: ".
std::string ReadShimReport(int fd);
// "hangar-shim exited with status N" or "hangar-shim was killed by signal N", from a wait STATUS.
std::string DescribeShimEnd(int status);

// What a first process that ran PLAN_FILE said, as StartShim documents: from its wait STATUS
// (Unavailable when it did not end in time and was killed; another error when it could not be
// waited for) and its REPORT (the memfd its stdout and stderr went to; read, not closed).
Status ShimOutcome(const Result<int>& status, int report, const std::string& plan_file);

}  // namespace hangar
