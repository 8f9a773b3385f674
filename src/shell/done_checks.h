// Done-checks run by the kernel itself: "done" is what the kernel observes in the room after the
// drone ended, never what the drone says.
//
// A file check passes when its path is a regular file inside the room, reached without following
// a symlink in any component. A run check runs an argv in the room and passes when it exits (not
// by a signal, not at its timeout) with exactly the expected status.
//
// A run check runs in the drone's sandbox (shell/bwrap_command.h): the same hidden paths, no
// network, no unix socket, no capability, and the room read-only. Its program may be one the drone
// planted (./check.sh), or one the drone's files steer (git and the room's .git/config, pytest and
// its conftest.py): whatever it runs can read no more than the drone could and write nothing.
// A check dies with the thread that runs it (ChildFds::parent, shell/child_run.h): nothing but
// hangard enforces its timeout.
// Inside the sandbox's pid namespace the check is bubblewrap's child, and bwrap tells its death by
// signal N as exit status 128 + N: "rc" then holds that, "signal" only bwrap's own death.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/json.h"
#include "kernel/mission.h"
#include "kernel/plan.h"

namespace hangar {

struct CheckRun {
  json::Value results;  // an array, one object per check, in the order of the checks
  bool all_passed = true;
};

// Runs each check against ROOM in order. OUT_DIR receives check-N.out (N from 1, the position of
// the check in CHECKS) for run checks. ENV is the whole environment of run checks (nothing is
// inherited). Safe to call from several threads at once.
//
// Each result holds "check" (DoneCheck::ToJson), "passed" and:
//   file: "detail": "regular file, N bytes" | "missing" | "a symbolic link, not followed" |
//         "a directory, not a regular file" | "cannot open dir a/b: ..." | ...
//   run:  "rc" (int|null), "signal" (int|null), "timed_out", "duration_ms",
//         "output": {"file":"check-N.out","size","sha256"} (null when nothing ran),
//         "error" (string|null: the program was not found, could not be started, ...).
//
// A run check: argv[0] without '/' is looked up in the absolute directories of ENV's PATH (none:
// not found); with a '/', it is taken as is, relative to the room. The process runs with cwd = the
// room (bound into the sandbox by fd, the room opened without following a symlink), ENV only,
// stdin /dev/null,
// stdout and stderr both to OUT_DIR/check-N.out (truncated; fsynced with OUT_DIR afterwards), no
// inherited fd above 2, default signal dispositions and an empty signal mask, in a new process
// group. At the check's timeout the group is killed (SIGKILL); when the process ends by itself,
// whatever is left of its group is killed too, so nothing started by a check outlives it (except a
// process that left the group on purpose, by setsid or setpgid). The child is reaped here: no
// zombie, no fd left.
//
// What the caller must know: exit statuses are collected with waitid/waitpid on the child's pid,
// no signal handler is installed and SIGCHLD is neither blocked nor needed, but SIGCHLD must not be
// set to SIG_IGN and no other thread may wait for any child (waitpid(-1)), or the status is lost
// (then "error" says so). The calling thread blocks for up to the sum of the checks' timeouts.
//
// A changed check judges CHANGE, the workspace's change hangar computed (shell/change.h): its
// result holds "check", "passed" and "detail" ("3 files changed", "ci.yml changed, outside the
// check's paths", ...).
//
// SANDBOX (kernel/plan.h, CheckSandbox): bwrap, hangar-confine, the paths to hide, the limits and
// the user, and whether hangar-confine makes the sandbox itself (the drone's engine "namespaces").
// Otherwise, with no bwrap, no run check runs: each fails with "error" saying there is no sandbox
// to run it in.
CheckRun RunDoneChecks(const std::string& room, const std::vector<DoneCheck>& checks,
                       const std::map<std::string, std::string>& env, const std::string& out_dir,
                       const CheckSandbox& sandbox, const json::Value& change = nullptr);

}  // namespace hangar
