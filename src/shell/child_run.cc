#include "shell/child_run.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <climits>

namespace hangar {

namespace {

using Clock = std::chrono::steady_clock;

// Runs in the forked child of a multi-threaded process: async-signal-safe calls only.
// Returns 0 or an errno value.
int PrepareChild(const ChildFds& f) {
  if (setpgid(0, 0) != 0 || fchdir(f.cwd) != 0) return errno;
  if (dup2(f.in, 0) < 0 || dup2(f.out, 1) < 0 || dup2(f.err >= 0 ? f.err : f.out, 2) < 0)
    return errno;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &dfl, nullptr);  // SIG_IGN survives exec
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Whatever other threads opened without O_CLOEXEC closes at exec; until then Boost's error pipe
  // stays usable.
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) return errno;
  for (int fd : f.inherit)
    if (fcntl(fd, F_SETFD, 0) != 0) return errno;
  if (int e = SetDroneLimits(f.processes, f.file_mb, f.memory_mb); e != 0) return e;
  if (int e = BecomeDroneUser(f.uid, f.gid); e != 0) return e;
  if (f.parent > 0) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return errno;
    if (getppid() != f.parent) return ESRCH;  // gone before the prctl took effect
  }
  return 0;
}

}  // namespace

int SetDroneLimits(int64_t processes, int64_t file_mb, int64_t memory_mb) {
  if (processes > 0) {
    const rlimit n{rlim_t(processes), rlim_t(processes)};
    if (setrlimit(RLIMIT_NPROC, &n) != 0) return errno;
  }
  if (file_mb > 0) {
    const rlimit f{rlim_t(file_mb) << 20, rlim_t(file_mb) << 20};
    if (setrlimit(RLIMIT_FSIZE, &f) != 0) return errno;
  }
  if (memory_mb > 0) {
    const rlimit d{rlim_t(memory_mb) << 20, rlim_t(memory_mb) << 20};
    if (setrlimit(RLIMIT_DATA, &d) != 0) return errno;
  }
  return 0;
}

int BecomeDroneUser(int64_t uid, int64_t gid) {
  if (uid < 0) return 0;
  if (setgroups(0, nullptr) != 0 || setresgid(gid_t(gid), gid_t(gid), gid_t(gid)) != 0 ||
      setresuid(uid_t(uid), uid_t(uid), uid_t(uid)) != 0)
    return errno;
  return getuid() == uid_t(uid) && geteuid() == uid_t(uid) ? 0 : EPERM;
}

namespace {

void Reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

struct Spawned {
  pid_t pid = -1;
  std::string error;
};

Spawned Spawn(const std::string& program, const std::vector<std::string>& argv,
              const std::map<std::string, std::string>& env, const ChildFds& fds) {
  namespace bp = boost::process;
  std::vector<std::string> vars;
  for (const auto& [k, v] : env) vars.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  pid_t failed = -1;
  std::error_code ec;
  bp::child child(
      bp::exe = program, bp::args = args,
      bp::extend::on_setup([&](auto& exec) { exec.env = envp.data(); }),
      bp::extend::on_exec_setup([&](auto& exec) {
        if (int err = PrepareChild(fds); err != 0) {
          exec.set_error(std::error_code(err, std::system_category()), "cannot prepare");
          _exit(127);
        }
      }),
      // Boost 1.74 does not reap a child whose exec failed; its pid is only known here.
      bp::extend::on_error([&](auto& exec, const std::error_code&) { failed = exec.pid; }), ec);
  if (ec) {
    if (failed > 0) Reap(failed);
    return {-1, "cannot run " + program + ": " + ec.message()};
  }
  Spawned s{child.id(), ""};
  child.detach();  // waited for below; Boost's own wait is not safe with several threads
  return s;
}

// Waits for PID until DEADLINE, kills its process group, reaps it.
ChildEnd Await(pid_t pid, Clock::time_point deadline) {
  ChildEnd e;
  UniqueFd pidfd(int(syscall(SYS_pidfd_open, pid, 0)));  // without one, poll below just sleeps
  for (;;) {
    siginfo_t info{};
    if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      e.error = Status::Errno("wait for " + std::to_string(pid), errno).message();
      return e;
    }
    if (info.si_pid == pid) break;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      e.timed_out = true;
      break;
    }
    pollfd p{pidfd.get(), POLLIN, 0};
    poll(&p, 1, pidfd.get() >= 0 ? int(std::min<int64_t>(left, INT_MAX)) : 10);
  }
  // Not reaped yet, so the pid (the group's id) cannot have been reused by another process.
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno == EINTR) continue;
    e.error = Status::Errno("wait for " + std::to_string(pid), errno).message();
    return e;
  }
  if (WIFEXITED(status)) e.rc = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

}  // namespace

std::string FindProgram(const std::string& name, const std::map<std::string, std::string>& env) {
  if (name.find('/') != std::string::npos) return name;
  auto path = env.find("PATH");
  if (name.empty() || path == env.end()) return "";
  size_t pos = 0;
  while (pos <= path->second.size()) {
    size_t colon = path->second.find(':', pos);
    if (colon == std::string::npos) colon = path->second.size();
    const std::string dir = path->second.substr(pos, colon - pos);
    pos = colon + 1;
    if (!dir.starts_with("/")) continue;  // relative entries would depend on whose cwd
    const std::string candidate = dir + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

std::string ReadCaptured(int fd, size_t max) {
  std::string text;
  char buf[8192];
  ssize_t n;
  while (text.size() < max && (n = pread(fd, buf, sizeof buf, off_t(text.size()))) > 0)
    text.append(buf, size_t(n));
  if (text.size() > max) text.resize(max);
  return text;
}

UniqueFd AboveStdio(int fd) {
  if (fd < 0 || fd > 2) return UniqueFd(fd);
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return UniqueFd(moved);
}

ChildEnd RunChild(const std::string& program, const std::vector<std::string>& argv,
                  const std::map<std::string, std::string>& env, const ChildFds& fds,
                  std::chrono::milliseconds timeout) {
  const auto start = Clock::now();
  Spawned s = Spawn(program, argv, env, fds);
  ChildEnd e;
  if (s.error.empty()) {
    e = Await(s.pid, start + timeout);
    e.started = true;
  } else {
    e.error = s.error;
  }
  e.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  return e;
}

}  // namespace hangar
