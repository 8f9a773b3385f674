// Running a helper program as the kernel's own hand (a done-check, an op's handler): in a new
// process group, with exactly the environment given, stdio on the fds given, no inherited fd above
// 2 but those named in ChildFds::inherit, default signal dispositions, and a time limit after which the whole group is killed.
//
// What the caller must know: exit statuses are collected with waitid/waitpid on the child's pid;
// SIGCHLD must not be set to SIG_IGN and no other thread may wait for any child (waitpid(-1)), or
// the status is lost (then ChildEnd::error says so). Safe to call from several threads at once.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shell/manifest.h"

namespace hangar {

// The program to execute for NAME: itself when it holds a '/', else the first executable regular
// file NAME in an absolute directory of ENV's PATH; "" when there is none.
std::string FindProgram(const std::string& name, const std::map<std::string, std::string>& env);

// Sets RLIMIT_NPROC to PROCESSES, RLIMIT_FSIZE to FILE_MB MiB and RLIMIT_DATA to MEMORY_MB MiB,
// soft and hard (a limit of 0 is left as it is): the limits of a drone or a done-check (DroneLimits). Async-signal-safe, for a
// forked child; 0 or an errno value.
int SetDroneLimits(int64_t processes, int64_t file_mb, int64_t memory_mb);

// Changes to UID and GID for good (no supplementary group; real, effective and saved ids), when
// UID >= 0: the drone_user of a hangard run as root. Async-signal-safe; 0 or an errno value.
int BecomeDroneUser(int64_t uid, int64_t gid);

// What a child wrote to FD (a memfd or a file it was given as stdout or stderr), from its start,
// up to MAX bytes.
std::string ReadCaptured(int fd, size_t max);

// Moves FD above 2, so that the child's dup2 onto 0..2 cannot overwrite it before it is used.
UniqueFd AboveStdio(int fd);

// The child's working directory and stdio (all above 2: see AboveStdio).
struct ChildFds {
  int cwd, in, out;  // stdout, and stderr too unless `err` is given
  int err = -1;
  std::vector<int> inherit = {};  // above 2, also inherited (a sandbox's binds)
  int64_t processes = 0, file_mb = 0, memory_mb = 0;  // SetDroneLimits (0: as they are)
  int64_t uid = -1, gid = -1;  // BecomeDroneUser in the child (-1: as it is)
  // > 0: the child dies with the thread that starts it (PR_SET_PDEATHSIG SIGKILL, set after the
  // change of user, which clears it), and is not started when PARENT, this process, is gone
  // already: a done-check, whose timeout only hangard enforces, ends with hangard (bwrap's
  // --die-with-parent does the same for its sandbox; engine "namespaces" has no bwrap).
  pid_t parent = 0;
};

struct ChildEnd {
  std::optional<int> rc, signal;
  bool timed_out = false;
  bool started = false;  // false: it could not be started (error says why)
  std::string error;     // it could not be started, or its status was lost
  int64_t duration_ms = 0;
};

// Runs PROGRAM (absolute, or relative to the child's cwd) with ARGV (argv[0] included) and ENV as
// the whole environment, waits for it up to TIMEOUT, then kills its process group (SIGKILL) —
// also when it ended by itself, so nothing it started outlives it unless it left the group on
// purpose — and reaps it.
ChildEnd RunChild(const std::string& program, const std::vector<std::string>& argv,
                  const std::map<std::string, std::string>& env, const ChildFds& fds,
                  std::chrono::milliseconds timeout);

}  // namespace hangar
