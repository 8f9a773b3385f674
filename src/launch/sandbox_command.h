// The command that runs a plan's drone inside the sandbox its plan names (man/hangar-policy.5,
// SANDBOX). Engine "none": the program itself. Engine "bwrap": bubblewrap with
//
//   --ro-bind / /  --dev /dev  --proc /proc      the machine, read-only
//   --tmpfs DIR | --ro-bind /dev/null FILE       each hidden path that exists (its symlinks
//                                                resolved): a directory gets an empty tmpfs, a
//                                                file the empty /dev/null
//   --bind W W                                   the room, then each of the mission's writes
//   --bind LAST LAST                             the plan's last-message file, when it is in the
//                                                run directory (the supervisor created it)
//   --unshare-pid --unshare-ipc --die-with-parent
//   --unshare-net                                unless the plan's network is "host"
//   --chdir ROOM -- PROGRAM ARGS...
//
// Writes are bound after the hidden paths, so a room inside a hidden directory (the spool) is
// visible, and only the room. No --new-session: the supervisor starts bwrap in a session of its
// own (setsid), which leaves the drone no controlling terminal just the same, and keeps every
// sandboxed process in the group the deadline signals.
//
// The gate judged each write as the shell resolved it at intake; a write that resolves elsewhere
// now (a symlink swapped since) or no longer exists is refused here and nothing is run.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "kernel/plan.h"

namespace hangar {

struct DroneCommand {
  std::string exe;                // what execve(2) runs
  std::vector<std::string> argv;  // its argv
};

// program: plan.argv[0] as found on the plan's PATH (launch/drone_exec.h, FindProgram).
Result<DroneCommand> SandboxCommand(const Plan& plan, const std::string& program);

// The command that runs the plan's drone: plan.argv[0] found on the plan's own PATH (FindProgram,
// relative entries from the room), in the plan's sandbox. NotFound "cannot execute NAME: No such
// file or directory" when there is no such program. Both hangar-shim's supervisor and its --exec
// mode run this.
Result<DroneCommand> PlanCommand(const Plan& plan);

}  // namespace hangar
