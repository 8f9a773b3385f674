#include "launch/drone_exec.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>

#include "launch/confined_exec.h"
#include "shell/child_run.h"

namespace hangar {

void DefaultEverySignal() {
  // The kernel's struct sigaction (x86_64 and arm64 alike: handler, flags, restorer, mask).
  struct {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    uint64_t mask;
  } dfl{SIG_DFL, 0, nullptr, 0};
  for (int s = 1; s < NSIG; s++)
    if (s != SIGKILL && s != SIGSTOP) syscall(SYS_rt_sigaction, s, &dfl, nullptr, sizeof dfl.mask);
}

namespace {

// Closes every descriptor above 2 but KEEP and ALSO, as exec(2) closes the close-on-exec ones (and
// stricter: one left inheritable by mistake is closed too). False (errno set) when it cannot.
bool CloseAllBut(std::vector<int> keep, int also) {
  keep.push_back(also);
  keep.push_back(2);
  std::sort(keep.begin(), keep.end());
  unsigned from = 3;
  for (int fd : keep) {
    if (fd < int(from)) continue;
    if (unsigned(fd) > from && close_range(from, unsigned(fd) - 1, 0) != 0) return false;
    from = unsigned(fd) + 1;
  }
  return close_range(from, ~0U, 0) == 0;
}

// What hangar-confine would say before exit 126, in the drone's process (its stderr), with no
// allocation: "hangar-confine: refusing to run PROGRAM: WHY".
[[noreturn]] void Refuse(const char* program, const char* why) {
  for (const char* part : {"hangar-confine: refusing to run ", program, ": ", why, "\n"})
    (void)!write(2, part, strlen(part));
  _exit(126);
}

}  // namespace

bool OnlyThread() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Threads:", 0) == 0) return std::strtol(line.c_str() + 8, nullptr, 10) == 1;
  return false;
}

[[noreturn]] void ExecDrone(const DroneSpec& spec, int report) {
  auto fail = [report](Step step) {
    StepFailure f{step, errno};
    (void)!write(report, &f, sizeof f);
    _exit(127);
  };
  // An ignored signal stays ignored across exec; the drone starts with every default.
  DefaultEverySignal();
  // Its own session and group: the deadline reaches every process the drone starts, and no
  // terminal of ours is its controlling terminal (no TIOCSTI into the admin's shell).
  if (setsid() < 0) fail(Step::kGroup);
  // Should the supervisor die, nobody would enforce the deadline: the drone dies with it.
  auto tie = [&] {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(Step::kDeathSignal);
    if (getppid() != spec.supervisor) {  // it died before prctl took effect
      errno = ESRCH;
      fail(Step::kDeathSignal);
    }
  };
  tie();
  if (dup2(spec.in, 0) < 0 || dup2(spec.out, 1) < 0 || dup2(spec.err, 2) < 0) fail(Step::kStdio);
  for (int fd : spec.inherit)
    if (fcntl(fd, F_SETFD, 0) != 0) fail(Step::kStdio);
  if (fchdir(spec.room) != 0) fail(Step::kRoom);
  if (int e = SetDroneLimits(spec.processes, spec.file_mb, spec.memory_mb); e != 0) {
    errno = e;
    fail(Step::kLimits);
  }
  if (spec.net >= 0) {
    if (setns(spec.net, CLONE_NEWNET) != 0) fail(Step::kNetwork);
    close(spec.net);
  }
  if (int e = BecomeDroneUser(spec.uid, spec.gid); e != 0) {
    errno = e;
    fail(Step::kUser);
  }
  // A change of user clears the death signal (the kernel's commit_creds): tied again. Else a
  // supervisor killed would leave the sandbox of engine "namespaces" (its first process is this
  // one) and an unsandboxed drone running, with no deadline. bwrap sets its own after its exec.
  if (spec.uid >= 0) tie();
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (spec.confined) {
    const char* program = spec.confined->argv.front().c_str();
    try {  // never back into the supervisor's code
      std::vector<int> keep = spec.inherit;
      if (spec.go >= 0) keep.push_back(spec.go);
      if (!CloseAllBut(keep, report)) fail(Step::kClose);
      close(report);
      (void)prctl(PR_SET_NAME, "hangar-confine");
      // A change of user (BecomeDroneUser) left this process undumpable, and the kernel then
      // gives its /proc/self files to root: the drone's user could not write its own uid_map.
      // The exec would have made it dumpable again; the sandbox's processes make themselves
      // undumpable again before the drone runs.
      if (prctl(PR_SET_DUMPABLE, 1) != 0) Refuse(program, "cannot make its process dumpable");
      // The environment the exec would have given it, for what it starts (egress's forwarder).
      environ = const_cast<char**>(spec.envp.data());
      _exit(RunConfined(*spec.confined, environ));
    } catch (const std::exception& e) {
      Refuse(program, e.what());
    } catch (...) {
      Refuse(program, "an unknown exception");
    }
  }
  execve(spec.exe.c_str(), spec.argv.data(), spec.envp.data());
  fail(Step::kExec);
  _exit(127);  // not reached
}

std::optional<std::string> FindProgram(const std::string& name, const std::string& path_var,
                                       const std::string& base_dir) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) return name;
  if (path_var.empty()) return std::nullopt;
  size_t begin = 0;
  for (;;) {
    size_t end = path_var.find(':', begin);
    std::string entry = path_var.substr(begin, end == std::string::npos ? end : end - begin);
    // Built by appends: g++ 12 warns falsely here (-Wrestrict, GCC bug 105329) on = "." and + "/".
    if (entry.empty()) entry.push_back('.');
    std::string full;
    if (entry[0] != '/') full.append(base_dir).push_back('/');
    full.append(entry).push_back('/');
    full.append(name);
    struct stat st {};
    if (stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(full.c_str(), X_OK) == 0) {
      return full;
    }
    if (end == std::string::npos) return std::nullopt;
    begin = end + 1;
  }
}

}  // namespace hangar
