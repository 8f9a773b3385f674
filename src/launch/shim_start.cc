#include "launch/shim_start.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "shell/child_run.h"

namespace hangar {

namespace {

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

}  // namespace

std::string ReadShimReport(int fd) {
  std::string text = ReadCaptured(fd, 65536);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const std::string prefix = "hangar-shim: ";  // our caller puts its own program name first
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  return text;
}

std::string DescribeShimEnd(int status) {
  if (WIFEXITED(status))
    return "hangar-shim exited with status " + std::to_string(WEXITSTATUS(status));
  return "hangar-shim was killed by signal " + std::to_string(WTERMSIG(status));
}

namespace {

const char* const kShimEnvironment[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", nullptr};

}  // namespace

Result<ShimChild> SpawnShim(const std::string& shim_path, const std::vector<std::string>& args,
                            int stdin_fd) {
  // The shim's words go to an anonymous file, not a pipe: the supervisor the shim forks must not
  // be able to hold our reading end open, and a full pipe could never block it.
  int fd = memfd_create("hangar-shim-report", MFD_CLOEXEC);
  if (fd < 0) return Status::Errno("create a report file for hangar-shim", errno);
  // glibc's posix_spawn starts the child in hangard's memory (clone with CLONE_VM|CLONE_VFORK)
  // until it execs, and reports a failed exec as its return value, the child reaped. The child
  // keeps the caller's signal mask (the loop's signals blocked, as in the launch pool's threads);
  // the supervisor sets its own. Its environment is kShimEnvironment, none of hangard's: the shim
  // reads no variable, a drone's environment is its plan's, and what hangard was started with
  // (an admin's credentials, say) is not copied into every launch's processes, whose sandbox's
  // first two are copies of the supervisor (launch/drone_exec.h).
  posix_spawn_file_actions_t actions;
  int spawned = posix_spawn_file_actions_init(&actions);
  if (spawned != 0) {
    close(fd);
    return Status::Io("cannot run " + shim_path + ": " + std::strerror(spawned));
  }
  std::vector<std::string> text{shim_path};
  text.insert(text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : text) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (int rc : {stdin_fd >= 0 ? posix_spawn_file_actions_adddup2(&actions, stdin_fd, STDIN_FILENO)
                               : posix_spawn_file_actions_addopen(&actions, STDIN_FILENO,
                                                                  "/dev/null", O_RDONLY, 0),
                 posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO),
                 posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO)})
    spawned = spawned ? spawned : rc;
  pid_t pid = -1;
  if (spawned == 0)
    spawned = posix_spawn(&pid, shim_path.c_str(), &actions, nullptr, argv.data(),
                          const_cast<char* const*>(kShimEnvironment));
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    close(fd);
    return Status::Io("cannot run " + shim_path + ": " + std::strerror(spawned));
  }
  return ShimChild{pid, fd};
}

Status AwaitShim(ShimChild child, const std::string& plan_file) {
  Result<int> status = WaitWithin(child.pid, kShimReportWithin);
  if (!status.ok() && status.status().code() == Code::kUnavailable) {
    kill(child.pid, SIGKILL);
    waitpid(child.pid, nullptr, 0);
  }
  Status s = ShimOutcome(status, child.report, plan_file);
  close(child.report);
  return s;
}

Status ShimOutcome(const Result<int>& status, int report, const std::string& plan_file) {
  std::string text = ReadShimReport(report);
  const std::string what = "cannot start drone with plan " + plan_file + ": ";
  if (!status.ok()) {
    if (status.status().code() == Code::kUnavailable) {
      return Status::Unavailable(what + "hangar-shim did not report within 10 s");
    }
    return Status::Io(what + status.status().message());
  }
  if (WIFEXITED(*status) && WEXITSTATUS(*status) == 0) return Status::Ok();
  if (text.empty()) text = what + DescribeShimEnd(*status);
  const bool refused =
      WIFEXITED(*status) && (WEXITSTATUS(*status) == 78 || WEXITSTATUS(*status) == 64);
  return refused ? Status::Invalid(text) : Status::Io(text);
}

}  // namespace hangar
