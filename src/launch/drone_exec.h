// Starting the drone between fork and exec: everything is prepared before fork (DroneSpec), and the
// child then makes only async-signal-safe calls. A failure before exec is reported through a
// close-on-exec pipe as a StepFailure; nothing arrives when exec succeeded.
//
// With a sandbox of engine "namespaces" (DroneSpec::confined), the child does hangar-confine's work
// itself instead of executing it (launch/confined_exec.h), and that work allocates. That is safe
// only in the child of a process with one thread (the supervisor: OnlyThread() says so before each
// fork; with another thread it executes hangar-confine, as before): the child is then a whole copy
// of its parent, whose locks no other thread held. Its pipe is closed where the exec would have
// closed it, and its failures said as hangar-confine says them.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace hangar {

struct ConfineArgs;  // launch/confined_exec.h

// What the drone's child process reports through a close-on-exec pipe when it fails between fork
// and exec: which step, and errno. Nothing arrives when exec succeeded.
enum class Step : int {
  kGroup,
  kDeathSignal,
  kStdio,
  kRoom,
  kExec,
  kLimits,
  kUser,
  kClose,
  kNetwork
};
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
  // Engine "namespaces": hangar-confine's arguments (exe and argv run it), which the child then
  // follows itself, without the exec; null: execve(exe, argv, envp).
  const ConfineArgs* confined = nullptr;
  // With CONFINED whose sandbox cuts the network: a network namespace made for this drone alone
  // (shell/network_namespace.h), entered before the change of user (setns needs the host's
  // CAP_SYS_ADMIN) and closed; the sandbox then makes none (NamespaceSandbox::network_entered).
  // -1: the sandbox makes its own.
  int net = -1;
  // With CONFINED: a pipe the drone's process reads one byte from, its sandbox made, before it
  // executes the drone's program (ConfineArgs::go); kept open to there. -1: none.
  int go = -1;
};

// Every signal to its default disposition, by the kernel's own call: glibc's sigaction(2) refuses
// its two internal signals (32 and 33), and glibc's posix_spawn, which starts hangar-shim, leaves
// them ignored in the child, which exec keeps. Async-signal-safe (a forked child may call it).
void DefaultEverySignal();

// Runs in the forked child: default signal dispositions (DefaultEverySignal), its own session (and
// so its own process group, and no controlling terminal), PR_SET_PDEATHSIG, stdio, the inherited
// descriptors' FD_CLOEXEC cleared, cwd = the room, the limits, spec.net entered, the user, an
// empty signal mask, then execve. Writes a
// StepFailure to REPORT on error. With spec.confined, in place of execve: every descriptor closed
// but stdio and the inherited ones (REPORT too, as the exec would: from there on a failure is said
// on stderr and by the exit status, 126 or 127, as by hangar-confine), the name "hangar-confine"
// (ps shows what it shows with the exec), then RunConfined.
[[noreturn]] void ExecDrone(const DroneSpec& spec, int report);

// Whether this process has a single thread (/proc/self/status): the condition for
// DroneSpec::confined. False when it cannot tell.
bool OnlyThread();

// Where execve(2) finds NAME: NAME itself when it holds a '/', otherwise the first entry of
// PATH_VAR (colon-separated; an empty entry is "."; relative entries are taken from BASE_DIR, the
// drone's cwd) naming an executable regular file. nullopt when there is none, and when PATH_VAR is
// empty: a bare name is never run from the drone's cwd (its room) unless PATH says so.
std::optional<std::string> FindProgram(const std::string& name, const std::string& path_var,
                                       const std::string& base_dir);

}  // namespace hangar
