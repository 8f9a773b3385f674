// The direct launcher, hangard's side: starts hangar-shim for a plan, tells whether a run
// directory's supervisor is alive, and signals it by its exact identity. The supervisor itself is
// launch/supervisor.h; the files they share are in docs/ARCHITECTURE.md ("Run directory").
#pragma once

#include <string>

#include "base/status.h"
#include "kernel/exit_info.h"

namespace hangar {

// Starts SHIM_PATH (bin/hangar-shim) for PLAN_FILE and waits until it reports that the drone
// started, or why not. PLAN_SHA256 is the plan's hash as the gate passed it: the shim runs the
// plan only if the bytes it reads hash to it (else Invalid: changed after the gate). Blocks at most
// ~10 s; reaps the shim's first process, so it leaves no zombie (the supervisor it forks is not our
// child). Safe to call from hangard's main thread, also while other threads run. The caller must
// not have SIGCHLD ignored nor reap with waitpid(-1) meanwhile.
//   Ok           the drone was launched. Its exec may still have failed: then run/exit.json
//                already says so (rc null, error "cannot execute ...") and no shim.json exists.
//   Invalid      the plan was refused (hangar-shim exit 78); nothing was written anywhere.
//   Io           nothing was launched: the message says why ("cannot start drone for mission M:
//                cannot lock RUN/lock: another supervisor holds it", no run directory, no room...),
//                or hangar-shim itself could not be run.
//   Unavailable  no report within 10 s; the first process was killed. Whether a drone runs is
//                unknown: ask SupervisorAlive before doing anything else with the mission.
Status StartShim(const std::string& shim_path, const std::string& plan_file,
                 const std::string& plan_sha256);

// Liveness of the supervisor of RUN_DIR: true while run/lock is locked by someone. Tested with
// flock(LOCK_EX|LOCK_NB) on a fresh descriptor, released at once; no lock file means not alive.
bool SupervisorAlive(const std::string& run_dir);

// Sends SIG to the supervisor of RUN_DIR (SIGTERM: cancel the drone; it ends with
// cancelled:true). The process is the one run/shim.json names by pid AND start time, never a pid
// alone, a name or a prefix. NotFound when shim.json is missing (not launched, or its exec
// failed), Invalid when it cannot be read, Unavailable when that process is gone.
Status SignalSupervisor(const std::string& run_dir, int sig);

}  // namespace hangar
