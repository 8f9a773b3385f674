// Starting the drone between fork and exec: everything is prepared before fork (DroneSpec), and the
// child then makes only async-signal-safe calls. A failure before exec is reported through a
// close-on-exec pipe as a StepFailure; nothing arrives when exec succeeded.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace hangar {

// What the drone's child process reports through a close-on-exec pipe when it fails between fork
// and exec: which step, and errno. Nothing arrives when exec succeeded.
enum class Step : int { kGroup, kDeathSignal, kStdio, kRoom, kExec, kLimits, kUser };
struct StepFailure {
  Step step;
  int error;
};

// Everything the drone's child needs, prepared before fork: after fork only async-signal-safe
// calls are made (no allocation).
struct DroneSpec {
  std::string exe;
  std::vector<std::string> argv_text, env_text;
  std::vector<char*> argv, envp;
  int in = -1, out = -1, err = -1, room = -1;
  std::vector<int>
      inherit;  // descriptors (above 2) the drone's program inherits: the sandbox's binds
  int64_t processes = 0, file_mb = 0, memory_mb = 0;  // the plan's limits (SetDroneLimits)
  int64_t uid = -1, gid = -1;                         // the plan's user (BecomeDroneUser)
  pid_t supervisor = 0;
};

// Every signal to its default disposition, by the kernel's own call: glibc's sigaction(2) refuses
// its two internal signals (32 and 33), and glibc's posix_spawn, which starts hangar-shim, leaves
// them ignored in the child, which exec keeps. Async-signal-safe (a forked child may call it).
void DefaultEverySignal();

// Runs in the forked child: default signal dispositions (DefaultEverySignal), its own session (and
// so its own process group, and no controlling terminal), PR_SET_PDEATHSIG, stdio, the inherited
// descriptors' FD_CLOEXEC cleared, cwd = the room, an empty signal mask, then execve. Writes a
// StepFailure to REPORT on error.
[[noreturn]] void ExecDrone(const DroneSpec& spec, int report);

// Where execve(2) finds NAME: NAME itself when it holds a '/', otherwise the first entry of
// PATH_VAR (colon-separated; an empty entry is "."; relative entries are taken from BASE_DIR, the
// drone's cwd) naming an executable regular file. nullopt when there is none, and when PATH_VAR is
// empty: a bare name is never run from the drone's cwd (its room) unless PATH says so.
std::optional<std::string> FindProgram(const std::string& name, const std::string& path_var,
                                       const std::string& base_dir);

}  // namespace hangar
