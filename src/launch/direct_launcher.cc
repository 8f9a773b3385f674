#include "launch/direct_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "base/json.h"
#include "env/env.h"
#include "shell/proc.h"

namespace hangar {

namespace {

// The first process of hangar-shim answers within milliseconds; ten seconds means it is stuck.
constexpr std::chrono::milliseconds kReportWithin{10000};

// waitpid with a time limit. Sleeps on a pidfd of this one child (readable when it exits), so the
// caller — hangard's event loop — is woken the moment the shim has reported, not a tick later.
// SIGCHLD stays untouched: other threads' children are none of our business.
Result<int> WaitWithin(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  int pidfd = int(syscall(SYS_pidfd_open, pid, 0));
  for (;;) {
    int status = 0;
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid || (got < 0 && errno != EINTR)) {
      if (pidfd >= 0) close(pidfd);
      if (got == pid) return status;
      return Status::Errno("wait for hangar-shim", errno);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      if (pidfd >= 0) close(pidfd);
      return Status::Unavailable("timed out");
    }
    struct pollfd p = {pidfd, POLLIN, 0};
    // Without a pidfd (kernels before 5.3) fall back to a short sleep.
    poll(pidfd >= 0 ? &p : nullptr, pidfd >= 0 ? 1 : 0, pidfd >= 0 ? int(left.count()) : 5);
  }
}

std::string ReadReport(int fd) {
  std::string text;
  char buf[4096];
  ssize_t n;
  while (text.size() < 65536 && (n = pread(fd, buf, sizeof buf, off_t(text.size()))) > 0) {
    text.append(buf, size_t(n));
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const std::string prefix = "hangar-shim: ";  // our caller puts its own program name first
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  return text;
}

std::string Describe(int status) {
  if (WIFEXITED(status))
    return "hangar-shim exited with status " + std::to_string(WEXITSTATUS(status));
  return "hangar-shim was killed by signal " + std::to_string(WTERMSIG(status));
}

// A zombie keeps its pid and start time until its parent (init, for a supervisor) reaps it, but
// it is gone: a signal to it reaches nobody.
bool Zombie(pid_t pid) {
  Result<std::string> stat = RealEnv()->ReadFile("/proc/" + std::to_string(pid) + "/stat", 4096);
  if (!stat.ok()) return false;
  size_t close_paren = stat->rfind(')');
  return close_paren != std::string::npos && stat->compare(close_paren, 3, ") Z") == 0;
}

Result<json::Value> ReadRunJson(const std::string& path) {
  Result<std::string> text = RealEnv()->ReadFile(path, 64 << 10);
  if (!text.ok()) return text.status();
  Result<json::Value> doc = json::Parse(*text);
  if (!doc.ok()) return Status::Invalid("cannot read " + path + ": " + doc.status().message());
  return doc;
}

}  // namespace

Status StartShim(const std::string& shim_path, const std::string& plan_file,
                 const std::string& plan_sha256) {
  // The shim's words go to an anonymous file, not a pipe: the supervisor the shim forks must not
  // be able to hold our reading end open, and a full pipe could never block it.
  int fd = memfd_create("hangar-shim-report", MFD_CLOEXEC);
  if (fd < 0) return Status::Errno("create a report file for hangar-shim", errno);
  FILE* report = fdopen(fd, "w+");
  if (!report) {
    int e = errno;
    close(fd);
    return Status::Errno("open a report file for hangar-shim", e);
  }
  // posix_spawn, not Boost.Process: Boost 1.74 only forks, and a fork copies the page tables of
  // hangard (its threads, its state of every mission) at each launch, then faults on each page
  // either side writes. glibc's posix_spawn starts the child in hangard's memory (clone with
  // CLONE_VM|CLONE_VFORK) until it execs, and reports a failed exec as its return value, the child
  // reaped. The child keeps the caller's signal mask (the loop's signals blocked, as in the launch
  // pool's threads) and environment, as Boost's did; the supervisor sets its own.
  posix_spawn_file_actions_t actions;
  int spawned = posix_spawn_file_actions_init(&actions);
  if (spawned != 0) {
    fclose(report);
    return Status::Io("cannot run " + shim_path + ": " + std::strerror(spawned));
  }
  std::string arg0 = shim_path, arg1 = plan_file, arg2 = plan_sha256;
  char* argv[] = {arg0.data(), arg1.data(), arg2.data(), nullptr};
  pid_t pid = -1;
  for (int rc : {posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0),
                 posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO),
                 posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO)})
    spawned = spawned ? spawned : rc;
  if (spawned == 0)
    spawned = posix_spawn(&pid, shim_path.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    fclose(report);
    return Status::Io("cannot run " + shim_path + ": " + std::strerror(spawned));
  }
  Result<int> status = WaitWithin(pid, kReportWithin);
  if (!status.ok() && status.status().code() == Code::kUnavailable) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  std::string text = ReadReport(fd);
  fclose(report);
  const std::string what = "cannot start drone with plan " + plan_file + ": ";
  if (!status.ok()) {
    if (status.status().code() == Code::kUnavailable) {
      return Status::Unavailable(what + "hangar-shim did not report within 10 s");
    }
    return Status::Io(what + status.status().message());
  }
  if (WIFEXITED(*status) && WEXITSTATUS(*status) == 0) return Status::Ok();
  if (text.empty()) text = what + Describe(*status);
  const bool refused =
      WIFEXITED(*status) && (WEXITSTATUS(*status) == 78 || WEXITSTATUS(*status) == 64);
  return refused ? Status::Invalid(text) : Status::Io(text);
}

bool SupervisorAlive(const std::string& run_dir) {
  int fd = open((run_dir + "/lock").c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  int rc;
  do rc = flock(fd, LOCK_EX | LOCK_NB);
  while (rc != 0 && errno == EINTR);
  // Any failure but "taken" also counts as alive: declaring a running drone lost is the worse
  // error.
  const bool alive = rc != 0;
  close(fd);  // lets go of the lock if we took it
  return alive;
}

Status SignalSupervisor(const std::string& run_dir, int sig) {
  const std::string path = run_dir + "/shim.json";
  Result<json::Value> doc = ReadRunJson(path);
  if (!doc.ok()) return doc.status();
  const json::Value* ver = doc->is_object() ? doc->find("hangar") : nullptr;
  if (!ver || !ver->is_int() || ver->as_int() != 1) {
    return Status::Invalid("cannot read " + path + ": hangar: expected 1");
  }
  const json::Value* pid = doc->find("shim_pid");
  const json::Value* start = doc->find("shim_start");
  if (!pid || !pid->is_int() || pid->as_int() <= 0 || !start || !start->is_int()) {
    return Status::Invalid("cannot read " + path + ": shim_pid, shim_start: expected integers");
  }
  const std::string who = "supervisor " + std::to_string(pid->as_int()) + " of " + run_dir;
  // The pidfd is taken before the identity is checked: if the pid was reused in between, the
  // check fails; if it is reused after, the pidfd still names the process we checked.
  int pidfd = int(syscall(SYS_pidfd_open, pid_t(pid->as_int()), 0));
  if (pidfd < 0 && errno == ESRCH)
    return Status::Unavailable("cannot signal " + who + ": it is gone");
  if (pidfd < 0) return Status::Errno("signal " + who, errno);
  if (!SameProcess(pid_t(pid->as_int()), uint64_t(start->as_int())) ||
      Zombie(pid_t(pid->as_int()))) {
    close(pidfd);
    return Status::Unavailable("cannot signal " + who + ": it is gone (pid " +
                               std::to_string(pid->as_int()) + " is another process now)");
  }
  int rc = int(syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0));
  int e = errno;
  close(pidfd);
  if (rc != 0 && e == ESRCH) return Status::Unavailable("cannot signal " + who + ": it is gone");
  if (rc != 0) return Status::Errno("signal " + who, e);
  return Status::Ok();
}

}  // namespace hangar
