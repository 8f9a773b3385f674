#include "launch/warm_shim.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "base/json.h"
#include "base/sha256.h"
#include "launch/direct_launcher.h"
#include "launch/shim_start.h"
#include "launch/supervisor.h"

namespace hangar {

namespace {

bool SendAll(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = send(fd, s.data(), s.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EPIPE: the shim is gone
    s.remove_prefix(size_t(n));
  }
  return true;
}

// Hands a waiting shim its plan: MESSAGE, then the end of the stream; true once the shim says it
// took it (one byte back), false when it ended or said nothing within kTakeWithinMs.
constexpr int kTakeWithinMs = 10000;
bool Took(int go, const std::string& message) {
  if (!SendAll(go, message) || shutdown(go, SHUT_WR) != 0) return false;
  pollfd p{go, POLLIN, 0};
  int n;
  do n = poll(&p, 1, kTakeWithinMs);
  while (n < 0 && errno == EINTR);
  char c = 0;
  return n == 1 && recv(go, &c, 1, MSG_DONTWAIT) == 1 && c == 'y';
}

// Ends a waiting shim that will not be used: the end of its stdin ends it (KILL_NOW: it is gone
// or stuck, and is killed at once); killed if it has not ended within a second.
void LetGo(pid_t pid, int go, int report, bool kill_now = false) {
  if (go >= 0) close(go);
  close(report);
  if (kill_now) kill(pid, SIGKILL);
  for (int waited_ms = 0; waited_ms < 1000; waited_ms += 5) {
    pid_t r = waitpid(pid, nullptr, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return;
    poll(nullptr, 0, 5);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace

Status WarmShims::Start(const std::string& plan_file, const std::string& plan_sha256) {
  Waiting w;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!waiting_.empty()) {
      w = waiting_.back();
      waiting_.pop_back();
    }
  }
  const bool one_line =
      plan_file.find('\n') == std::string::npos && plan_sha256.find('\n') == std::string::npos;
  Status s;
  if (w.pid > 0 && one_line && Took(w.go, plan_file + "\n" + plan_sha256 + "\n")) {
    close(w.go);
    s = AwaitShim(ShimChild{w.pid, w.report}, plan_file);
  } else {
    // It never took the plan (gone, or stuck): nothing of this launch ran there.
    if (w.pid > 0) LetGo(w.pid, w.go, w.report, /*kill_now=*/true);
    s = StartShim(shim_path_, plan_file, plan_sha256);
  }
  return s;
}

void WarmShims::Warm() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (waiting_.size() >= kMaxWaiting) return;
  }
  // A socket, not a pipe: /proc/PID/fd/0 of a waiting shim cannot be opened (ENXIO), so no
  // process of its user can write into its stdin that way; the other end stays in hangard.
  int p[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) != 0) return;  // next launch: cold
  Result<ShimChild> child = SpawnShim(shim_path_, {"--warm"}, p[0]);
  close(p[0]);
  if (!child.ok()) {
    close(p[1]);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  waiting_.push_back(Waiting{child->pid, p[1], child->report});
}

void WarmShims::WarmSoon() {
  std::lock_guard<std::mutex> lock(mu_);
  if (released_) return;
  ++asked_;
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  asked_cv_.notify_one();
}

void WarmShims::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    asked_cv_.wait(lock, [this] { return released_ || asked_ > 0; });
    if (released_) return;
    --asked_;
    lock.unlock();
    Warm();
    lock.lock();
  }
}

void WarmShims::Release() {
  std::vector<Waiting> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
  }
  asked_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    all.swap(waiting_);
  }
  for (const Waiting& w : all) close(w.go);  // all at once: they end side by side
  for (const Waiting& w : all) LetGo(w.pid, -1, w.report);
}

std::vector<pid_t> WarmShims::waiting() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<pid_t> pids;
  for (const Waiting& w : waiting_) pids.push_back(w.pid);
  return pids;
}

int RunWarmShim() {
  // What every launch would pay after its exec: OpenSSL's digest fetched, simdjson's
  // implementation chosen.
  (void)Sha256Hex("");
  (void)json::Parse("{}");
  std::string in;
  char buf[4096];
  for (;;) {
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    in.append(buf, size_t(n));
    if (in.size() > 65536) break;
  }
  if (in.empty()) return kShimNotStarted;  // let go
  const size_t a = in.find('\n');
  const size_t b = a == std::string::npos ? a : in.find('\n', a + 1);
  if (b == std::string::npos || b + 1 != in.size() || a == 0 || b == a + 1) {
    static const char kBad[] =
        "hangar-shim: --warm: expected PLAN_FILE and SHA256 on stdin, "
        "one line each\n";
    (void)!write(STDERR_FILENO, kBad, sizeof kBad - 1);
    return kShimUsage;
  }
  // Taken: from here on it is the launch's shim (hangard waits for its report, as for a cold one).
  (void)!send(STDIN_FILENO, "y", 1, MSG_NOSIGNAL);
  // stdin was hangard's socket; a shim started cold has /dev/null there.
  if (int null = open("/dev/null", O_RDONLY | O_CLOEXEC); null >= 0) {
    dup2(null, STDIN_FILENO);
    close(null);
  }
  return RunShim(in.substr(0, a), in.substr(a + 1, b - a - 1));
}

}  // namespace hangar
