#include "shell/done_checks.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <chrono>
#include <climits>
#include <optional>

#include "shell/manifest.h"

namespace hangar {

namespace {

using Clock = std::chrono::steady_clock;

// "regular file, N bytes" when PATH is one beneath ROOM (setting *passed), else why not.
std::string FileDetail(int room, const std::string& path, bool* passed) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (path.starts_with("/") || name.empty() || name == "." || name == "..") {
    return "not a path inside the room";
  }
  Result<UniqueFd> fd = OpenDirBeneath(room, dir);
  if (!fd.ok()) return fd.status().code() == Code::kNotFound ? "missing" : fd.status().message();
  struct stat st {};
  if (fstatat(fd->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? "missing" : Status::Errno("stat " + path, errno).message();
  }
  if (!S_ISREG(st.st_mode)) return NotRegularReason(st.st_mode);
  *passed = true;
  return "regular file, " + std::to_string(st.st_size) + " bytes";
}

// The program to execute for NAME: itself when it holds a '/', else the first executable regular
// file NAME in an absolute directory of ENV's PATH; "" when there is none.
std::string Resolve(const std::string& name, const std::map<std::string, std::string>& env) {
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

// Moves FD above 2, so that the child's dup2 onto 0..2 cannot overwrite it before it is used.
UniqueFd AboveStdio(int fd) {
  if (fd < 0 || fd > 2) return UniqueFd(fd);
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return UniqueFd(moved);
}

struct ChildFds {
  int room, in, out;
};

// Runs in the forked child of a multi-threaded process: async-signal-safe calls only.
// Returns 0 or an errno value.
int PrepareChild(const ChildFds& f) {
  if (setpgid(0, 0) != 0 || fchdir(f.room) != 0) return errno;
  if (dup2(f.in, 0) < 0 || dup2(f.out, 1) < 0 || dup2(f.out, 2) < 0) return errno;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &dfl, nullptr);  // SIG_IGN survives exec
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Whatever other threads opened without O_CLOEXEC closes at exec; until then Boost's error pipe
  // stays usable.
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) return errno;
  return 0;
}

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

struct Ended {
  std::optional<int> rc, signal;
  bool timed_out = false;
  std::string error;
};

// Waits for PID until DEADLINE, kills its process group, reaps it.
Ended Await(pid_t pid, Clock::time_point deadline) {
  Ended e;
  UniqueFd pidfd(int(syscall(SYS_pidfd_open, pid, 0)));  // without one, poll below just sleeps
  for (;;) {
    siginfo_t info{};
    if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      e.error = Status::Errno("wait for the check", errno).message();
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
    e.error = Status::Errno("wait for the check", errno).message();
    return e;
  }
  if (WIFEXITED(status)) e.rc = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

json::Value Output(int fd, const std::string& name, std::string* error) {
  if (fsync(fd) != 0) *error = Status::Errno("fsync " + name, errno).message();
  Result<FileHash> h = HashFd(fd, INT64_MAX);
  if (!h.ok()) {
    *error = "cannot hash " + name + ": " + h.status().message();
    return nullptr;
  }
  json::Object o;
  o["file"] = name;
  o["size"] = h->size;
  o["sha256"] = h->sha256;
  return o;
}

json::Object RunCheck(const Result<UniqueFd>& room, const DoneCheck& c,
                      const std::map<std::string, std::string>& env, const std::string& out_dir,
                      int n) {
  json::Object r{{"check", c.ToJson()}, {"passed", false},    {"rc", nullptr},
                 {"signal", nullptr},   {"timed_out", false}, {"duration_ms", 0},
                 {"output", nullptr},   {"error", nullptr}};
  const std::string program = c.argv.empty() ? "" : Resolve(c.argv[0], env);
  std::string error;
  if (!room.ok()) {
    error = room.status().message();
  } else if (program.empty()) {
    error = "cannot run " + (c.argv.empty() ? "\"\"" : c.argv[0]) + ": program not found in PATH";
  }
  const std::string name = "check-" + std::to_string(n) + ".out";
  UniqueFd in, out;
  if (error.empty()) {
    in = AboveStdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
    out = AboveStdio(open((out_dir + "/" + name).c_str(),
                          O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (in.get() < 0) error = Status::Errno("open /dev/null", errno).message();
    if (out.get() < 0) error = Status::Errno("create " + out_dir + "/" + name, errno).message();
  }
  if (!error.empty()) {
    r["error"] = error;
    return r;
  }
  const auto start = Clock::now();
  Spawned s = Spawn(program, c.argv, env, {room->get(), in.get(), out.get()});
  Ended e;
  if (s.error.empty()) e = Await(s.pid, start + std::chrono::seconds(c.timeout_s));
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  r["duration_ms"] = int64_t(took.count());
  if (e.rc) r["rc"] = *e.rc;
  if (e.signal) r["signal"] = *e.signal;
  r["timed_out"] = e.timed_out;
  error = !s.error.empty() ? s.error : e.error;
  r["output"] = Output(out.get(), name, &error);
  if (!error.empty()) r["error"] = error;
  r["passed"] = error.empty() && !e.timed_out && e.rc && *e.rc == c.rc;
  return r;
}

}  // namespace

CheckRun RunDoneChecks(const std::string& room, const std::vector<DoneCheck>& checks,
                       const std::map<std::string, std::string>& env, const std::string& out_dir) {
  CheckRun run;
  json::Array results;
  const Result<UniqueFd> room_fd = OpenRoom(room);
  bool wrote = false;
  for (size_t i = 0; i < checks.size(); i++) {
    const DoneCheck& c = checks[i];
    json::Object r;
    if (c.kind == DoneCheck::Kind::kFile) {
      bool passed = false;
      r["check"] = c.ToJson();
      r["detail"] =
          room_fd.ok() ? FileDetail(room_fd->get(), c.file, &passed) : room_fd.status().message();
      r["passed"] = passed;
    } else {
      r = RunCheck(room_fd, c, env, out_dir, int(i + 1));
      wrote = wrote || !r["output"].is_null();
    }
    run.all_passed = run.all_passed && r["passed"].as_bool();
    results.emplace_back(std::move(r));
  }
  if (wrote) {
    UniqueFd dir(open(out_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() >= 0) fsync(dir.get());  // the outputs' names, so that return.json's are durable
  }
  run.results = std::move(results);
  return run;
}

}  // namespace hangar
