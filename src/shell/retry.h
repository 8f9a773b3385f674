// The shell's side of `hangar retry` (man/hangar-spool.5 "RETRY"): what the kernel needs to know of
// a returned mission before it retries it, and the move back to queued/ for the next attempt, done
// in durable steps so that a crash at any point leaves the mission in exactly one state directory
// and the next start either completes the retry or finds it never happened.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"
#include "env/env.h"
#include "kernel/kernel.h"
#include "kernel/layout.h"

namespace hangar {

// Reads returned/ID for a retry: return.json's outcome, attempt and exit, launch.json's attempt,
// mission.json, intake.json; and whether attempt N may still be alive: alive(run_dir) says whether
// a supervisor holds returned/ID/run/lock, and run/shim.json's shim and drone are looked for by pid
// AND start time (and the drone's process group for members left behind).
RetryFacts ReadRetryFacts(Env* env, const Layout& l, const std::string& id, const std::string& home,
                          const std::function<bool(const std::string&)>& alive);

// Performs the kernel's Retry action. Steps, each durable:
//   1. attempts/N/ is made in returned/ID; launch.json, plan.json, gate2.json, approve.json,
//      retry.json and run/ move into it (those present; never over a file already there);
//   2. returned/ID -> queued/ID (return.json still on top: a crash now sends it back to
//      returned/ at the next start, as any live directory holding a return.json; never retried);
//   3. retry.json of the new attempt is written into queued/ID;
//   4. return.json -> attempts/N/return.json: the retry is done.
// A non-Ok Status is an I/O failure of the spool itself (hangard stops, as for any move).
Status PerformRetry(Env* env, const Layout& l, const Retry& r);

// For recovery (RecoverIntakes): queued/ID holds a return.json. When it also holds retry.json and
// attempts/PREVIOUS/return.json is absent, a retry stopped between steps 3 and 4: step 4 is done
// now and true returned. Else false: the directory is an ordinary return cut short.
Result<bool> FinishRetry(Env* env, const Layout& l, const std::string& id);

// The attempt a queued or held mission's retry.json says came before it ("previous"), 0 without
// one.
int RetriedAttempt(Env::Dir* state, const std::string& id);

}  // namespace hangar
