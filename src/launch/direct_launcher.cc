#include "launch/direct_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "base/json.h"
#include "env/env.h"
#include "launch/shim_start.h"
#include "shell/proc.h"

namespace hangar {

namespace {

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
  Result<ShimChild> child = SpawnShim(shim_path, {plan_file, plan_sha256}, -1);
  if (!child.ok()) return child.status();
  return AwaitShim(*child, plan_file);
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
