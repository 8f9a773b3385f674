#include "launch/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <vector>

#include "base/json.h"
#include "base/sha256.h"
#include "env/env.h"
#include "kernel/path_norm.h"
#include "launch/checkout.h"
#include "launch/confined_exec.h"
#include "launch/drone_exec.h"
#include "launch/sandbox_command.h"
#include "launch/stop_policy.h"
#include "shell/child_run.h"
#include "shell/proc.h"

namespace hangar {

namespace {

int64_t MonotonicMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void SleepMs(int ms) {
  poll(nullptr, 0, ms);
}

void WriteText(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the reader is gone: nobody left to tell
    s.remove_prefix(size_t(n));
  }
}

// hangard may hand us descriptors it forgot to mark close-on-exec, its hangard.lock among them.
// The shim outlives hangard, so holding any of them would keep that lock (or a pipe) alive after
// hangard is gone. Close all but 0-2 first, then make sure 0-2 are open so that no descriptor we
// open later lands on them.
// KEEP: descriptors above 2 that stay open (a begun launch's plan and answer).
void SanitizeDescriptors(std::vector<int> keep = {}) {
  std::sort(keep.begin(), keep.end());
  unsigned from = 3;
  keep.push_back(INT_MAX);  // closes the last stretch, to the end
  for (int k : keep) {
    if (k < int(from)) continue;
    const unsigned to = k == INT_MAX ? ~0U : unsigned(k) - 1;
    if (to >= from && close_range(from, to, 0) != 0)
      for (unsigned fd = from; fd <= std::min(to, 1023U); fd++) close(int(fd));
    if (k != INT_MAX) from = unsigned(k) + 1;
  }
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) < 0) {
      int n = open("/dev/null", O_RDWR);
      if (n >= 0 && n != fd) {
        dup2(n, fd);
        close(n);
      }
    }
  }
}

// The first process: waits for the supervisor's one line and turns it into an exit status.
int AwaitReport(int fd, const std::string& id) {
  std::string line;
  char c;
  for (;;) {
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') break;
    line.push_back(c);
  }
  close(fd);
  if (line == "ok") return kShimStarted;
  if (line.empty()) line = "the supervisor ended without saying why";
  std::string msg = "hangar-shim: cannot start drone for mission " + id + ": " + line + "\n";
  WriteText(2, msg);
  return kShimNotStarted;
}

// Where the directory FD is now ("" when the kernel cannot say).
std::string PathOf(int fd) {
  std::error_code ec;
  std::string p = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
  return ec ? "" : p;
}

// Waits for hangard's go on GO: true on "g"; false at the end of the stream or a reset (hangard
// withdrew the launch, or ended: its end closed, our "y" unread or read) or on any other error.
bool AwaitGo(int go) {
  for (;;) {
    char c[8];
    ssize_t n = recv(go, c, sizeof c, 0);
    if (n < 0 && errno == EINTR) continue;
    return n == 1 && c[0] == 'g';
  }
}

class Supervisor {
 public:
  // EARLY: the drone's command, when it was made before the launch's go (RunShimBegun).
  // NET: RunShim's; the drone's, or closed once the drone is forked.
  // GO and RUN: RunShimBegun's, when the supervisor is forked before the go (SandboxBeforeGo);
  // else -1.
  Supervisor(const Plan& plan, int report, std::optional<Result<DroneCommand>> early, int net,
             int go, int run)
      : plan_(plan), report_(report), early_(std::move(early)), run_fd_(run), go_(go), net_(net) {}
  int Run();

 private:
  Status Prepare();
  Status TakeLock();
  // HELD (only with in_process_, so the child takes hangar-confine's steps itself): the drone's
  // process makes its sandbox and then waits for Release before it executes the drone's program.
  Result<pid_t> SpawnDrone(bool held);
  // Before the go: waits for it (true), or, withdrawn, kills what AHEAD made (false).
  bool AwaitGoAhead(const std::optional<Result<pid_t>>& ahead);
  // The drone made ahead, released to execute its program.
  Result<pid_t> Release(Result<pid_t> ahead);
  // Network "egress": hangar-egress on the plan's socket, before the drone; stopped after it.
  Status StartEgress();
  void StopEgress();
  Status WriteShimJson(pid_t drone);
  void Report(const std::string& line);
  void Watch(pid_t drone);
  void Act(StopPolicy::Act act, pid_t group);
  void Reap(pid_t drone);
  void KillStragglers();
  void WriteExit();
  // After WriteExit: the lock let go, then the sandbox's mount namespace (sandbox_ns_).
  void LetGo();
  void Note(const std::string& msg);  // run/shim.log: what went wrong after the report

  const Plan& plan_;
  int report_;
  std::optional<Result<DroneCommand>> early_;
  int sigfd_ = -1, run_fd_ = -1, lock_fd_ = -1, room_fd_ = -1, in_ = -1, out_ = -1, err_ = -1;
  int go_ = -1;       // hangard's go, awaited here (RunShimBegun with RUN)
  int release_ = -1;  // the held drone's word to execute its program (SpawnDrone, HELD)
  // The sandbox's mount namespace, held from the go (Release) until the lock is let go: its
  // teardown then comes after hangard is told of the end (LetGo), not before.
  int sandbox_ns_ = -1;
  // Whether the drone's child takes hangar-confine's steps itself (launch/drone_exec.h).
  bool in_process_ = false;
  int64_t start_mono_ = 0;
  std::optional<int> drone_status_;
  ExitInfo exit_;
  pid_t egress_ = -1;
  int net_ = -1;
};

int Supervisor::Run() {
  // Nothing of hangard's: no terminal, no cwd pinning a mount, no pipe it reads to EOF.
  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd <= 2 && devnull >= 0; fd++) dup2(devnull, fd);
  if (devnull > 2) close(devnull);
  (void)!chdir("/");
  signal(SIGPIPE, SIG_IGN);  // a first process that went away must not kill the supervisor
  // Blocked before the drone exists, so that no exit and no cancel is missed; read via signalfd.
  // SIGHUP is taken too: a stray hangup is not a cancel and must not kill the supervisor.
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  sigfd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sigfd_ < 0) {
    Report(Status::Errno("create signalfd", errno).message());
    return kShimNotStarted;
  }
  in_process_ = plan_.sandbox.engine == "namespaces" && OnlyThread();
  if (Status s = Prepare(); !s.ok()) {
    Report(s.message());
    return kShimNotStarted;
  }
  // Forked before the go (RunShimBegun, RUN): the drone is made now, up to its program, during
  // hangard's waits for the launch's records, and released at the go.
  std::optional<Result<pid_t>> ahead;
  if (go_ >= 0) {
    if (in_process_) ahead = SpawnDrone(/*held=*/true);
    if (!AwaitGoAhead(ahead)) return kShimNotStarted;
  }
  exit_.started = RealEnv()->Now();
  start_mono_ = MonotonicMs();
  if (Status e = StartEgress(); !e.ok()) {
    // The launch was attempted: the drone's outcome, as a drone that could not be executed.
    exit_.error = e.message();
    Report("ok");
    exit_.ended = RealEnv()->Now();
    KillStragglers();
    WriteExit();
    return 0;
  }
  Result<pid_t> drone = ahead ? Release(std::move(*ahead)) : SpawnDrone(/*held=*/false);
  if (!drone.ok()) {
    // The launch was attempted: this is the drone's outcome, not a start failure.
    exit_.error = drone.status().message();
    Report("ok");
    exit_.ended = RealEnv()->Now();
    WriteExit();
    return 0;
  }
  if (Status s = WriteShimJson(*drone); !s.ok()) {
    // Without shim.json nobody can cancel it or find it after a hangard restart: take it back.
    kill(-*drone, SIGKILL);
    KillStragglers();
    Report(s.message());
    return kShimNotStarted;
  }
  Report("ok");
  Watch(*drone);
  exit_.ended = RealEnv()->Now();
  StopEgress();
  KillStragglers();
  WriteExit();
  LetGo();
  return 0;
}

void Supervisor::LetGo() {
  // hangard counts exit.json once the lock is let go (Daemon::CheckExit), which the exit of this
  // process would do only after tearing down its memory; every process of the drone is gone
  // (KillStragglers), so nothing is left for the lock to cover.
  close(lock_fd_);
  lock_fd_ = -1;
  // The last reference to the sandbox's mounts: unmounted now, after that word, where the
  // drone's last process would have unmounted them before its parent here was told of its end.
  if (sandbox_ns_ >= 0) close(sandbox_ns_);
  sandbox_ns_ = -1;
}

Status Supervisor::Prepare() {
  const std::string& run = plan_.run;
  if (run_fd_ < 0) run_fd_ = open(run.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (run_fd_ < 0) return Status::Errno("open run directory " + run, errno);
  if (Status s = TakeLock(); !s.ok()) return s;
  // Files of an earlier supervisor of this run directory describe a drone that is gone; while
  // they stood, exit.json would say this drone had ended.
  for (const char* stale : {"exit.json", "shim.json"}) {
    if (unlinkat(run_fd_, stale, 0) != 0 && errno != ENOENT) {
      return Status::Errno("remove stale " + run + "/" + stale, errno);
    }
  }
  // Orphans of the drone come to us, so none escapes the end-of-mission kill.
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
    return Status::Errno("become a child subreaper", errno);
  room_fd_ = open(plan_.room.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (room_fd_ < 0) return Status::Errno("open room " + plan_.room, errno);
  // A file of the run directory (the prompt, the last-message file) is opened there: before the
  // go, the launch's move has not given it the plan's name yet.
  auto open_in_run = [&](const std::string& path, int flags) {
    const std::string below = RunRelative(plan_, path);
    return below.empty() ? open(path.c_str(), flags, 0644)
                         : openat(run_fd_, below.c_str(), flags | O_NOFOLLOW, 0644);
  };
  const std::string in = plan_.stdin_path.empty() ? "/dev/null" : plan_.stdin_path;
  in_ = open_in_run(in, O_RDONLY | O_CLOEXEC);
  if (in_ < 0) return Status::Errno("open stdin " + in, errno);
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW;
  out_ = openat(run_fd_, plan_.stdout_file.c_str(), flags, 0644);
  if (out_ < 0) return Status::Errno("create " + run + "/" + plan_.stdout_file, errno);
  err_ = openat(run_fd_, "stderr", flags, 0644);
  if (err_ < 0) return Status::Errno("create " + run + "/stderr", errno);
  // The file the drone leaves its last message in is there before it starts, so that a sandbox
  // can bind exactly that file writable (and nothing else of the run directory).
  UniqueFd last;
  if (!plan_.last_message.empty()) {
    last = UniqueFd(open_in_run(plan_.last_message, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC));
    if (last.get() < 0) return Status::Errno("create " + plan_.last_message, errno);
  }
  if (Status s = HandOverRoom(plan_, last.get()); !s.ok()) return s;
  return MakeCheckout(plan_);
}

Status Supervisor::TakeLock() {
  const std::string path = plan_.run + "/lock";
  lock_fd_ = openat(run_fd_, "lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (lock_fd_ < 0) return Status::Errno("open " + path, errno);
  // A liveness probe (SupervisorAlive) holds the lock for a moment; a supervisor holds it for its
  // whole life. Half a second tells the two apart.
  const int64_t until = MonotonicMs() + 500;
  while (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return Status::Errno("lock " + path, errno);
    if (MonotonicMs() >= until) {
      return Status::Unavailable("cannot lock " + path + ": another supervisor holds it");
    }
    SleepMs(10);
  }
  return Status::Ok();
}

// Plain fork/execve, not Boost.Process: the drone needs a new group, a death signal checked
// against a parent that may already be gone, reset signals, an exact argv[0] and environment, and
// a step-by-step failure report. Boost.Process would only be in the way of each of these (it sets
// argv[0] to the path it runs, searches the shim's own PATH, execs even after a failed setup
// handler, and reports every failure as one error code).
Result<pid_t> Supervisor::SpawnDrone(bool held) {
  const std::string& name = plan_.argv[0];
  // One made before the go that failed is made again: its reason may have gone since. Held (before
  // the go), its last-message file is bound from where the run directory is now.
  Result<DroneCommand> cmd = early_ && early_->ok() ? std::move(*early_)
                             : held                 ? PlanCommand(plan_, PathOf(run_fd_))
                                                    : PlanCommand(plan_);
  early_.reset();
  if (!cmd.ok()) return cmd.status();
  DroneSpec spec;
  spec.exe = cmd->exe;
  spec.argv_text = cmd->argv;
  for (const auto& [k, v] : plan_.env) spec.env_text.push_back(k + "=" + v);
  for (std::string& a : spec.argv_text) spec.argv.push_back(a.data());
  spec.argv.push_back(nullptr);
  for (std::string& e : spec.env_text) spec.envp.push_back(e.data());
  spec.envp.push_back(nullptr);
  spec.in = in_;
  spec.out = out_;
  spec.err = err_;
  spec.room = room_fd_;
  spec.inherit = cmd->inherit();
  spec.processes = plan_.processes;
  spec.file_mb = plan_.file_mb;
  spec.memory_mb = plan_.memory_mb;
  spec.uid = plan_.uid;
  spec.gid = plan_.gid;
  spec.supervisor = getpid();
  // Engine "namespaces": the child does hangar-confine's work itself, from the very arguments it
  // would have been given (launch/drone_exec.h, launch/confined_exec.h), when the fork is safe.
  ConfineArgs confined;
  if (in_process_) {
    const int argc = int(spec.argv.size()) - 1;  // without the closing null
    if (std::string bad = ParseConfineArgs(argc, spec.argv.data(), &confined); !bad.empty())
      return Status::Invalid("the drone's sandbox command: " + bad);
    spec.confined = &confined;
    if (net_ >= 0 && confined.sandbox && confined.sandbox->cut_network) {
      spec.net = net_;
      confined.sandbox->network_entered = true;
    }
  }

  int hold[2] = {-1, -1};
  if (held) {
    if (pipe2(hold, O_CLOEXEC) != 0)
      return Status::Errno("create a pipe for the drone's go", errno);
    confined.go = spec.go = hold[0];
  }
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    int e = errno;
    for (int fd : hold)
      if (fd >= 0) close(fd);
    return Status::Errno("create a pipe for the drone", e);
  }
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    for (int fd : {p[0], p[1], hold[0], hold[1]})
      if (fd >= 0) close(fd);
    return Status::Errno("fork the drone", e);
  }
  if (pid == 0) ExecDrone(spec, p[1]);
  close(p[1]);
  if (held) {
    close(hold[0]);
    release_ = hold[1];
  }
  if (net_ >= 0) close(net_);  // the drone's now, or of no use: one drone a namespace
  net_ = -1;
  StepFailure f{};
  ssize_t n;
  do n = read(p[0], &f, sizeof f);
  while (n < 0 && errno == EINTR);
  close(p[0]);
  if (n != ssize_t(sizeof f)) return pid;  // closed by exec: the drone runs
  waitpid(pid, nullptr, 0);
  switch (f.step) {
    case Step::kGroup:
      return Status::Errno("give the drone its own session", f.error);
    case Step::kDeathSignal:
      return Status::Errno("tie the drone to its supervisor", f.error);
    case Step::kStdio:
      return Status::Errno("connect the drone's stdin, stdout and stderr", f.error);
    case Step::kRoom:
      return Status::Errno("enter room " + plan_.room, f.error);
    case Step::kLimits:
      return Status::Errno("set the drone's limits", f.error);
    case Step::kUser:
      return Status::Errno("change to the drone's user (uid " + std::to_string(plan_.uid) + ")",
                           f.error);
    case Step::kNetwork:
      return Status::Errno("enter the drone's network namespace", f.error);
    case Step::kClose:
      return Status::Errno("close the supervisor's descriptors in the drone's process", f.error);
    case Step::kExec:
      break;
  }
  return Status::Errno("execute " + name, f.error);
}

bool Supervisor::AwaitGoAhead(const std::optional<Result<pid_t>>& ahead) {
  const bool go = AwaitGo(go_);
  close(go_);
  go_ = -1;
  if (go) return true;
  // Withdrawn: the drone's process, waiting for its release, is killed with all it made; the
  // lock goes with this process. No exit.json: the mission is still queued.
  if (ahead && ahead->ok()) kill(-**ahead, SIGKILL);
  if (release_ >= 0) close(release_);
  release_ = -1;
  KillStragglers();
  Report("the launch of mission " + plan_.id +
         " was withdrawn before its go: the drone's program was not executed");
  return false;
}

Result<pid_t> Supervisor::Release(Result<pid_t> ahead) {
  // A drone whose process ended before its go (its sandbox refused) is reaped by Watch: its
  // status is the drone's outcome, as after a fork at the go. The write then fails (EPIPE;
  // SIGPIPE is ignored here).
  if (release_ >= 0) {
    // Its mount namespace, made by now as a rule (else this is the host's, and holding it does
    // nothing): see sandbox_ns_.
    if (ahead.ok())
      sandbox_ns_ =
          open(("/proc/" + std::to_string(*ahead) + "/ns/mnt").c_str(), O_RDONLY | O_CLOEXEC);
    (void)!write(release_, "g", 1);
    close(release_);
    release_ = -1;
  }
  return ahead;
}

Status Supervisor::StartEgress() {
  if (plan_.network != "egress") return Status::Ok();
  const EgressPlan& e = plan_.egress;
  json::Object rules{{"allow", json::Array(e.allow.begin(), e.allow.end())},
                     {"methods", json::Array(e.methods.begin(), e.methods.end())}};
  if (Status s = RealEnv()->WriteFileAtomic(plan_.run, "egress-rules.json",
                                            json::WritePretty(json::Value(std::move(rules))));
      !s.ok())
    return s;
  const std::string rules_file = plan_.run + "/egress-rules.json";
  const std::string log = plan_.run + "/connections.jsonl";
  const std::string words = plan_.run + "/egress.log";
  const pid_t self = getpid();
  pid_t pid = fork();
  if (pid < 0) return Status::Errno("fork the egress proxy", errno);
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != self) _exit(0);
    int fd = open(words.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    const char* argv[] = {e.proxy.c_str(),    "--socket", e.socket.c_str(), "--rules",
                          rules_file.c_str(), "--log",    log.c_str(),      nullptr};
    execv(e.proxy.c_str(), const_cast<char* const*>(argv));
    _exit(127);
  }
  egress_ = pid;
  struct stat st {};
  for (int waited = 0; waited < 5000; waited += 5) {
    if (stat(e.socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) return Status::Ok();
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      egress_ = -1;
      return Status::Io("the egress proxy " + e.proxy + " ended before it listened (see " + words +
                        ")");
    }
    usleep(5000);
  }
  return Status::Io("the egress proxy " + e.proxy + " did not listen on " + e.socket +
                    " within 5 s");
}

void Supervisor::StopEgress() {
  if (egress_ < 0) return;
  // SIGTERM: it stops taking connections and gives the open ones a moment to end and be logged.
  kill(egress_, SIGTERM);
  for (int waited = 0; waited < 3000; waited += 10) {
    const pid_t r = waitpid(egress_, nullptr, WNOHANG);
    if (r == egress_ || (r < 0 && errno == ECHILD)) {  // ECHILD: Reap took it already
      egress_ = -1;
      return;
    }
    usleep(10000);
  }
  Note("the egress proxy did not stop within 3 s of SIGTERM; killed");
  kill(egress_, SIGKILL);
  waitpid(egress_, nullptr, 0);
  egress_ = -1;
}

Status Supervisor::WriteShimJson(pid_t drone) {
  auto start = [](pid_t pid) {
    std::optional<uint64_t> t = ProcStartTime(pid);
    return t ? json::Value(*t) : json::Value(nullptr);
  };
  json::Object o;
  o["hangar"] = 1;
  o["shim_pid"] = int64_t(getpid());
  o["shim_start"] = start(getpid());
  o["drone_pid"] = int64_t(drone);
  o["drone_start"] = start(drone);
  o["started"] = FormatTime(exit_.started);
  // Visible, not durable: it names processes, and a power loss that could take it back ends them
  // too (recovery then finds no lock held and no exit.json: the drone is lost). Its fsyncs were
  // 2 ms of every launch on ext4, with hangard waiting for the report.
  return RealEnv()->WriteFileVisible(plan_.run, "shim.json", json::WritePretty(o));
}

void Supervisor::Report(const std::string& line) {
  WriteText(report_, line + "\n");
  close(report_);
  report_ = -1;
}

void Supervisor::Watch(pid_t drone) {
  StopPolicy policy(plan_.deadline_ms, plan_.grace_ms);
  Reap(drone);
  while (!drone_status_) {
    int64_t now = MonotonicMs() - start_mono_;
    Act(policy.Tick(now), drone);
    std::optional<int64_t> wake = policy.Wake();
    int timeout = wake ? int(std::clamp<int64_t>(*wake - now, 0, INT_MAX)) : -1;
    pollfd pfd{sigfd_, POLLIN, 0};
    if (poll(&pfd, 1, timeout) <= 0) continue;
    signalfd_siginfo si{};
    while (read(sigfd_, &si, sizeof si) == ssize_t(sizeof si)) {
      if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
        Act(policy.Cancel(MonotonicMs() - start_mono_), drone);
      }
    }
    Reap(drone);
  }
  exit_.timed_out = policy.timed_out();
  exit_.cancelled = policy.cancelled();
  SetEnding(*drone_status_, &exit_);
}

void Supervisor::Act(StopPolicy::Act act, pid_t group) {
  // In a sandbox the group's leader is bwrap, which a SIGTERM ends at once, and the sandbox with
  // it (--die-with-parent): the grace is given to the drone's own processes, bwrap is left alone.
  // (hangar-confine's own sandbox ignores it there, shell/namespace_sandbox.h: the same suits it.)
  if (act == StopPolicy::Act::kTerm && SandboxedEngine(plan_.sandbox.engine)) {
    std::vector<pid_t> members = ProcessGroupMembers(group);
    bool others = false;
    for (pid_t pid : members)
      if (pid != group) others = kill(pid, SIGTERM) == 0 || others;
    if (others) return;
  }
  if (act == StopPolicy::Act::kTerm) kill(-group, SIGTERM);
  if (act == StopPolicy::Act::kKill) kill(-group, SIGKILL);
}

// Collects every child that has ended. The drone is looked at before it is reaped: while it is a
// zombie its pid, which is also its group's id, cannot be reused, so killing the group hits only
// what is left of the drone.
void Supervisor::Reap(pid_t drone) {
  for (;;) {
    siginfo_t si{};
    if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0) return;
    if (si.si_pid == drone && !drone_status_) kill(-drone, SIGKILL);
    int status = 0;
    if (waitpid(si.si_pid, &status, 0) == drone) drone_status_ = status;
  }
}

// No process of the mission outlives it. The drone's group was killed when the drone ended; what
// escaped the group (a setsid daemon) was re-parented to us, the subreaper, and is killed here,
// again and again until we have no child left: their own orphans come to us as they die.
void Supervisor::KillStragglers() {
  const int64_t until = MonotonicMs() + 10000;
  for (;;) {
    for (pid_t pid : ChildProcesses()) kill(pid, SIGKILL);  // a zombie ignores it
    int status;
    pid_t got;
    while ((got = waitpid(-1, &status, WNOHANG)) > 0) {
    }
    if (got < 0 && errno == ECHILD) return;
    if (MonotonicMs() >= until) {
      Note("cannot kill every process of the drone: some are left after 10 s");
      return;
    }
    // Woken by the next child's end (SIGCHLD is read through sigfd_), or after 10 ms to look
    // for new stragglers; a fixed sleep made every mission wait, since the sandbox's own pid 1
    // is usually still being torn down at this point.
    pollfd pfd{sigfd_, POLLIN, 0};
    if (poll(&pfd, 1, 10) > 0) {
      signalfd_siginfo si;
      while (read(sigfd_, &si, sizeof si) == ssize_t(sizeof si)) {
      }
    }
  }
}

void Supervisor::WriteExit() {
  // A full disk (a drone may have filled it) must not lose the drone's end: the record is kept
  // here, the lock held (so hangard counts this supervisor alive), and written once space returns.
  // Visible, not durable: hangard fsyncs it and run/ beside the records of the end it read there
  // (Daemon::ExitRead), one wait on its side where this write's two were on every mission's path
  // from the drone's end to the next launch. A power loss before that leaves no exit.json (or an
  // empty one, which reads as none): the drone is lost, as when the power took the drone itself.
  const std::string text = json::WritePretty(exit_.ToJson());
  for (int waited_s = 0;; waited_s++) {
    Status s = RealEnv()->WriteFileVisible(plan_.run, "exit.json", text);
    if (s.ok()) {
      if (waited_s > 0)
        Note("exit.json written after " + std::to_string(waited_s) + " s without space");
      return;
    }
    if (s.sys_errno() != ENOSPC && s.sys_errno() != EDQUOT) {
      Note(s.message());
      return;
    }
    if (waited_s == 0) Note(s.message() + "; kept, and tried again every second");
    sleep(1);
  }
}

void Supervisor::Note(const std::string& msg) {
  int fd =
      openat(run_fd_, "shim.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return;
  WriteText(fd, FormatTime(RealEnv()->Now()) + " hangar-shim: " + msg + "\n");
  close(fd);
}

}  // namespace

Result<Plan> LoadPlanText(const std::string& text, const std::string& plan_file,
                          const std::string& plan_sha256) {
  // The bytes given here are the bytes run: hashed once, parsed once.
  if (const std::string got = Sha256Hex(text); got != plan_sha256)
    return Status::Invalid("cannot read plan " + plan_file + ": its sha256 is " + got +
                           ", not the " + plan_sha256 +
                           " the gate passed; a plan changed after the gate is never run");
  Result<json::Value> doc = json::Parse(text);
  if (!doc.ok())
    return Status::Invalid("cannot read plan " + plan_file + ": " + doc.status().message());
  Result<Plan> plan = Plan::FromJson(*doc);
  if (!plan.ok())
    return Status::Invalid("cannot read plan " + plan_file + ": " + plan.status().message());
  return plan;
}

Result<Plan> LoadPlanFile(const std::string& plan_file, const std::string& plan_sha256) {
  Result<std::string> text = RealEnv()->ReadFile(plan_file, 1 << 20);
  if (!text.ok()) return text.status();
  return LoadPlanText(*text, plan_file, plan_sha256);
}

namespace {

// The launcher check of LoadShimPlan, on a plan read.
Result<Plan> DirectOnly(Result<Plan> plan, const std::string& plan_file) {
  if (plan.ok() && plan->launcher != "direct") {
    return Status::Invalid(
        "cannot read plan " + plan_file +
        ": plan.json: launcher: expected \"direct\", the launcher hangar-shim is");
  }
  return plan;
}

// The first process, with the plan loaded: forks the supervisor and waits for its report. GO and
// RUN: the supervisor's, forked before the go (RunShimBegun), or -1.
int ForkSupervisor(const Plan& plan, std::optional<Result<DroneCommand>> early, int net,
                   int go = -1, int run = -1) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    WriteText(2, "hangar-shim: " + Status::Errno("create a pipe", errno).message() + "\n");
    return kShimNotStarted;
  }
  pid_t pid = fork();
  if (pid < 0) {
    WriteText(2, "hangar-shim: " + Status::Errno("fork the supervisor", errno).message() + "\n");
    return kShimNotStarted;
  }
  if (pid > 0) {
    close(p[1]);
    for (int fd : {net, go, run})  // the supervisor's
      if (fd >= 0) close(fd);
    return AwaitReport(p[0], plan.id);
  }
  close(p[0]);
  setsid();  // no longer in hangard's session or process group: its signals are not ours
  return Supervisor(plan, p[1], std::move(early), net, go, run).Run();
}

}  // namespace

Result<Plan> LoadShimPlan(const std::string& plan_file, const std::string& plan_sha256) {
  return DirectOnly(LoadPlanFile(plan_file, plan_sha256), plan_file);
}

namespace {

// Neither a workspace's checkout nor the egress proxy's socket: what the supervisor makes only
// after the go, and the drone's command needs.
bool NothingMadeAtTheGo(const Plan& plan) {
  return !plan.workspace && plan.network != "egress";
}

}  // namespace

bool CommandBeforeGo(const Plan& plan) {
  return NothingMadeAtTheGo(plan) &&
         (plan.last_message.empty() || PathInside(plan.last_message, plan.room));
}

bool SandboxBeforeGo(const Plan& plan) {
  // A last-message file in run/ is made by the supervisor before the go too (Prepare, through the
  // run directory's descriptor), and the command made after it.
  return plan.sandbox.engine == "namespaces" &&
         (CommandBeforeGo(plan) ||
          (NothingMadeAtTheGo(plan) && !RunRelative(plan, plan.last_message).empty()));
}

int RunShim(const std::string& plan_file, const std::string& plan_sha256, int net) {
  SanitizeDescriptors(net >= 0 ? std::vector<int>{net} : std::vector<int>{});
  Result<Plan> plan = LoadShimPlan(plan_file, plan_sha256);
  if (!plan.ok()) {
    WriteText(2, "hangar-shim: " + plan.status().message() + "\n");
    return kShimBadPlan;
  }
  return ForkSupervisor(*plan, std::nullopt, net);
}

int RunShimBegun(const std::string& plan_file, const std::string& plan_sha256, int plan_fd, int go,
                 int net, int run) {
  std::vector<int> keep{plan_fd, go};
  for (int fd : {net, run})
    if (fd >= 0) keep.push_back(fd);
  SanitizeDescriptors(keep);
  // At most 1 MiB, as a plan file is read; bytes that cannot be read fail the sha256.
  const std::string text = ReadCaptured(plan_fd, (1 << 20) + 1);
  close(plan_fd);
  Result<Plan> plan =
      text.size() > (1 << 20)
          ? Result<Plan>(Status::Invalid("cannot read plan " + plan_file + ": larger than 1 MiB"))
          : DirectOnly(LoadPlanText(text, plan_file, plan_sha256), plan_file);
  // Refused before the go as after it: hangard learns it once the launch's records are durable,
  // as from a shim started then.
  if (!plan.ok()) {
    WriteText(2, "hangar-shim: " + plan.status().message() + "\n");
    return kShimBadPlan;
  }
  std::optional<Result<DroneCommand>> early;
  if (CommandBeforeGo(*plan)) early = PlanCommand(*plan);
  if (run >= 0 && SandboxBeforeGo(*plan) && (!early || early->ok()))
    return ForkSupervisor(*plan, std::move(early), net, go, run);
  if (run >= 0) close(run);
  if (!AwaitGo(go)) {
    WriteText(2, "hangar-shim: the launch of mission " + plan->id +
                     " was withdrawn before its go: nothing was started\n");
    return kShimNotStarted;
  }
  close(go);
  return ForkSupervisor(*plan, std::move(early), net);
}

}  // namespace hangar
