// The command that runs a plan's drone inside the sandbox its plan names (man/hangar-policy.5,
// SANDBOX). Engine "none": the program itself (stage 2 refuses it when hangard runs as root).
// Engine "bwrap": shell/bwrap_command.h, with the plan's hidden paths, its room and writes bound
// writable by descriptor, the plan's last-message file when it is in the run directory (the
// supervisor created it), the network cut unless the plan's network is "host", and
// hangar-confine (found beside the running binary) between bwrap and the drone, which hides by
// Landlock too where the kernel offers it (shell/landlock.h). Engine "namespaces": the same, with
// hangar-confine making the sandbox itself (shell/namespace_sandbox.h) where bwrap would.
//
// No --new-session: the supervisor starts bwrap in a session of its own (setsid), which leaves the
// drone no controlling terminal just the same, and keeps every sandboxed process in the group the
// deadline signals.
//
// The gate judged each write as the shell resolved it at intake (its symbolic links resolved); a
// write whose path now holds a link or no longer exists is refused here and nothing is run.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "kernel/plan.h"
#include "shell/bwrap_command.h"

namespace hangar {

// What execve(2) runs, its argv, and (engine bwrap) the descriptors the sandbox binds: the caller
// keeps them open and lets the process inherit them (DroneCommand::inherit()).
using DroneCommand = SandboxedCommand;

// program: plan.argv[0] as found on the plan's PATH (launch/drone_exec.h, FindProgram);
// confine: hangar-confine (absolute); kernel_abi: the Landlock ABI of the kernel the drone runs on
// (LandlockAbi(); a Slurm node's may not be hangard's host's). Never less than the plan: a plan
// that names a ruleset (sandbox.landlock_abi 2 or later) is Unavailable on a kernel below ABI 2,
// and nothing runs; the ruleset hides (BwrapSpec::landlock) wherever the kernel can make it, also
// for a plan from a host without one or from before plans said (it only ever needs ABI 2's rights).
// run_now: PlanCommand's.
Result<DroneCommand> SandboxCommand(const Plan& plan, const std::string& program,
                                    const std::string& confine, int kernel_abi,
                                    const std::string& run_now = "");

// Whether the plan's drone gets a network namespace made for it by a sandbox of engine
// "namespaces": the engine named, and the network cut (any but "host"). What a request to the shim
// zygote asks one made ahead for (launch/shim_zygote.h).
bool SandboxCutsNetwork(const Plan& plan);

// hangar-confine beside the running program (/proc/self/exe).
std::string ConfineProgram();

// With a plan whose drone runs as another user (plan.uid >= 0, config drone_user): gives that
// user the room, its ops/ and room_dirs, and the last-message file (fchown, no link followed), so
// that the drone can write where the plan says and nowhere else. Nothing without one.
// LAST_MESSAGE: that file, open (the supervisor's, made before the launch's move); -1: opened by
// its name.
Status HandOverRoom(const Plan& plan, int last_message = -1);

// PATH's part below PLAN's run directory ("a/b" for RUN/a/b), or "" when PATH is not below it
// (by PathInside, and literally: the part is cut off the very path given).
std::string RunRelative(const Plan& plan, const std::string& path);

// Where PATH, a file of PLAN's run directory, is while that directory is at RUN_NOW (before the
// launch's move, queued/ID/run); PATH itself for any other path, or RUN_NOW "" or plan.run.
std::string InRunNow(const Plan& plan, const std::string& run_now, const std::string& path);

// The plan's program: plan.argv[0] found on the plan's own PATH (FindProgram, relative entries
// from the room). NotFound "cannot execute NAME: REASON" when there is no such program or the
// plan's user could not execute it (not a regular file, no execute bit for it): judged on the host
// before any sandbox or engine starts, so every launcher and sandbox gives the same reason.
Result<std::string> PlanProgram(const Plan& plan);

// The command that runs the plan's drone: PlanProgram in the plan's sandbox. Both hangar-shim's
// supervisor and its --exec mode run this, with this kernel's Landlock ABI. RUN_NOW: where the
// plan's run directory is while the command is made (InRunNow; its last-message file is bound
// from there, or from its name once moved), "" at its name.
Result<DroneCommand> PlanCommand(const Plan& plan, const std::string& run_now = "");

}  // namespace hangar
