#include "launch/shim_zygote.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <vector>

#include "base/json.h"
#include "base/sha256.h"
#include "env/file_batches.h"
#include "env/nofollow.h"
#include "launch/direct_launcher.h"
#include "launch/network_pool.h"
#include "launch/shim_start.h"
#include "launch/supervisor.h"

namespace hangar {

namespace {

// What the zygote's children show in place of "--zygote" on their command line.
constexpr char kForkedTitle[] = "--forked";
// A request: the plan's file and sha256, one line each, at most this long.
constexpr size_t kMaxRequest = 8192;
// Network namespaces made ahead: two, for a batch's two launches at slots 2.
constexpr size_t kNetworksAhead = 2;

void Close(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

// The descriptors MSG (as recvmsg filled it) carries, in order.
std::vector<int> PassedFds(msghdr* msg) {
  std::vector<int> fds;
  for (cmsghdr* c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        fds.push_back(fd);
      }
  return fds;
}

// One message of at most 64 bytes on SOCK (hangard's end of an answer: "y", "s STATUS"), waiting
// at most until UNTIL. "" at the end of the stream, when it is late (TIMED_OUT set), or on an
// error. A descriptor it carries goes to *FD when FD is given (closed otherwise).
std::string Receive(int sock, std::chrono::steady_clock::time_point until, bool* timed_out,
                    int* fd = nullptr) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    pollfd p{sock, POLLIN, 0};
    int n = poll(&p, 1, int(std::max<int64_t>(left.count(), 0)));  // what is queued, even late
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return "";
    if (n == 0 && left.count() <= 0) {
      *timed_out = true;
      return "";
    }
    if (n == 0) continue;  // the time left is looked at again
    char buf[64];
    iovec iov{buf, sizeof buf};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 2)] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t got = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    // ECONNRESET: the other end was closed with a message of ours unread (a "g" its child ended
    // before reading); said once, before what it had sent is read.
    if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == ECONNRESET)) continue;
    if (got < 0) return "";
    for (int passed : PassedFds(&msg)) {
      if (fd && *fd < 0) {
        *fd = passed;
      } else {
        close(passed);
      }
    }
    return got > 0 ? std::string(buf, size_t(got)) : "";
  }
}

// Sends TEXT with descriptors FDS in one message on SOCK, waiting at most a second for room in
// its queue when WAIT (a zygote that takes no request in a second is stuck). 0, or the errno:
// EPIPE (or ECONNRESET) when the peer is gone, EAGAIN when it takes nothing.
int SendWithFds(int sock, const std::string& text, const std::vector<int>& fds, bool wait = true) {
  iovec iov{const_cast<char*>(text.data()), text.size()};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()), 0);
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(wait ? 1 : 0);
  for (;;) {
    if (sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT) == ssize_t(text.size())) return 0;
    if (errno == EINTR) continue;
    if (errno != EAGAIN || std::chrono::steady_clock::now() >= until) return errno;
    pollfd p{sock, POLLOUT, 0};
    poll(&p, 1, 10);
  }
}

// A launch's report (the memfd its first process's stdout and stderr go to) and its answer socket
// pair: ours and the zygote's. False when any cannot be made.
bool MakeAnswer(UniqueFd* report, UniqueFd* answer, UniqueFd* theirs) {
  *report = UniqueFd(memfd_create("hangar-shim-report", MFD_CLOEXEC));
  int pair[2] = {-1, -1};
  if (report->get() < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    return false;
  *answer = UniqueFd(pair[0]);
  *theirs = UniqueFd(pair[1]);
  return true;
}

// A request's text: PLAN_FILE and SHA256, one line each, and "net" when NETWORK.
std::string Request(const std::string& plan_file, const std::string& plan_sha256, bool network) {
  return plan_file + "\n" + plan_sha256 + "\n" + (network ? "net\n" : "");
}

void Say(const std::string& line) {
  const std::string text = "hangar-shim: --zygote: " + line + "\n";
  (void)!write(STDERR_FILENO, text.data(), text.size());
}

// SIGPIPE's disposition as the zygote was started with it.
sighandler_t inherited_sigpipe = SIG_DFL;

// The zygote's view of one child: the first process of a launch.
struct Child {
  pid_t pid = -1;
  int pidfd = -1;   // readable when it has ended
  int answer = -1;  // the zygote's end of the launch's answer socket; -1 once hangard gave up
};

// The command line's mode argument (argv[1], "--zygote"), rewritten in each child.
char* title = nullptr;

// The child of the zygote: from here on the launch's shim. Never returns.
// PLAN: a begun launch's plan (its bytes; the child waits for hangard's go on ANSWER), or -1.
// RUN: a begun launch's run directory where it is until the launch's move, or -1.
// NET: a network namespace made ahead for this launch alone (NetworkPool), or -1.
[[noreturn]] void RunChild(int report, int answer, int plan, int run, int net,
                           const std::string& plan_file, const std::string& plan_sha256) {
  // Taken, before anything else: hangard starts no other shim for this launch from now on. With
  // it a pidfd of this process, so that hangard can tell when it has ended should the zygote,
  // which reports its status, end first.
  int self = int(syscall(SYS_pidfd_open, getpid(), 0));
  const bool told =
      SendWithFds(answer, "y", self >= 0 ? std::vector<int>{self} : std::vector<int>{},
                  /*wait=*/false) == 0;
  if (!told) _exit(kShimNotStarted);  // hangard gave up already: it may start another; run nothing
  if (self >= 0) close(self);
  // ps(1) and pkill(1) tell it (and the supervisor it forks) from the zygote: "hangar-shim
  // --forked", the same length.
  if (title && std::strlen(title) == std::strlen(kForkedTitle))
    std::memcpy(title, kForkedTitle, std::strlen(kForkedTitle));
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(report, STDOUT_FILENO) < 0 ||
      dup2(report, STDERR_FILENO) < 0)
    _exit(kShimNotStarted);
  // The signal mask and dispositions are then a fresh hangar-shim's; every other descriptor (the
  // zygote's, the other launches' answers, the namespaces made ahead for other launches) RunShim
  // closes first.
  signal(SIGPIPE, inherited_sigpipe);
  _exit(plan >= 0 ? RunShimBegun(plan_file, plan_sha256, plan, answer, net, run)
                  : RunShim(plan_file, plan_sha256, net));
}

// Takes one request off STDIN: forks its child (with a namespace of POOL, when the request asks
// and one is ready), or refuses it. False at the end of the stream.
bool TakeRequest(std::vector<Child>* children, NetworkPool* pool) {
  char buf[kMaxRequest + 1];
  iovec iov{buf, sizeof buf};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do n = recvmsg(STDIN_FILENO, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return false;  // the end of the stream (or stdin unusable): no more requests
  const std::vector<int> fds = PassedFds(&msg);
  const std::string in(buf, size_t(n));
  const size_t a = in.find('\n');
  const size_t b = a == std::string::npos ? a : in.find('\n', a + 1);
  const std::string rest = b == std::string::npos ? "" : in.substr(b + 1);
  if (fds.size() < 2 || fds.size() > 4 || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
      b == std::string::npos || (!rest.empty() && rest != "net\n") || a == 0 || b == a + 1) {
    Say("refused a request: expected PLAN_FILE and SHA256, one line each (then \"net\", or "
        "nothing), with two descriptors (three: a begun launch; four: with its run directory)");
    for (int fd : fds) close(fd);
    return true;
  }
  const int report = fds[0], answer = fds[1], plan = fds.size() >= 3 ? fds[2] : -1,
            run = fds.size() == 4 ? fds[3] : -1;
  const int net = rest.empty() ? -1 : pool->Take();  // the child's alone from the fork on
  pid_t pid = fork();
  if (pid == 0)
    RunChild(report, answer, plan, run, net, in.substr(0, a), in.substr(a + 1, b - a - 1));
  close(report);
  if (plan >= 0) close(plan);
  if (run >= 0) close(run);
  if (net >= 0) close(net);
  if (pid < 0) {
    Say("cannot fork a shim: " + std::string(std::strerror(errno)));
    close(answer);  // not taken: hangard starts one cold
    return true;
  }
  Child c{pid, int(syscall(SYS_pidfd_open, pid, 0)), answer};
  children->push_back(c);
  return true;
}

// Reaps CHILD when it has ended, and tells hangard its wait status (when hangard still waits);
// true then.
bool Reap(Child* c) {
  int status = 0;
  pid_t got;
  do got = waitpid(c->pid, &status, WNOHANG);
  while (got < 0 && errno == EINTR);
  if (got == 0) return false;
  if (got == c->pid && c->answer >= 0) {
    // A go its child ended before reading is read here: closed unread, it would reach hangard as
    // a reset before the status.
    char go[8];
    while (recv(c->answer, go, sizeof go, MSG_DONTWAIT) > 0) {
    }
    const std::string text = "s " + std::to_string(status);
    (void)!send(c->answer, text.data(), text.size(), MSG_NOSIGNAL);
  }
  Close(&c->answer);
  Close(&c->pidfd);
  return true;
}

}  // namespace

int RunShimZygote(char* mode_arg) {
  title = mode_arg;
  // Nothing of hangard's but the socket on stdin stays open here while hangard runs (its children
  // close every descriptor above 2 themselves, RunShim).
  if (close_range(3, ~0U, 0) != 0)
    for (int fd = 3; fd < 1024; fd++) close(fd);
  // What every launch would pay after its exec: OpenSSL's digest fetched, simdjson's
  // implementation chosen. Done once, here; each child inherits it.
  (void)Sha256Hex("");
  (void)json::Parse("{}");
  // An answer whose reader is gone is a failed send, not the end; the children get back what the
  // zygote was given, as a shim started cold has.
  inherited_sigpipe = signal(SIGPIPE, SIG_IGN);
  std::vector<Child> children;
  NetworkPool pool(kNetworksAhead);
  bool open = true;
  while (open || !children.empty()) {
    // Namespaces made while no request waits: a request never waits for one.
    for (pollfd in{STDIN_FILENO, POLLIN, 0}; open && poll(&in, 1, 0) == 0;) {
      std::string why;
      const NetworkPool::Made made = pool.MakeOne(&why);
      if (made == NetworkPool::Made::kStuck) {
        Say(why + "; ending (launches start cold)");
        return 1;
      }
      if (made != NetworkPool::Made::kOne) break;
    }
    std::vector<pollfd> p;
    p.push_back({open ? STDIN_FILENO : -1, POLLIN, 0});
    for (const Child& c : children) {
      p.push_back({c.pidfd, POLLIN, 0});
      p.push_back({c.answer, 0, 0});  // POLLHUP: hangard gave up on it
    }
    bool asked = false;  // a child without a pidfd is asked after a short poll
    for (const Child& c : children) asked = asked || c.pidfd < 0;
    int n = poll(p.data(), p.size(), asked ? 5 : -1);
    if (n < 0 && errno != EINTR) {
      Say("poll: " + std::string(std::strerror(errno)));
      return 1;
    }
    // The children polled, each judged by its own two entries; those ended go after the walk.
    for (size_t i = 0; i < (p.size() - 1) / 2; ++i) {
      Child& c = children[i];
      if (p[2 + 2 * i].revents & (POLLHUP | POLLERR)) {
        kill(c.pid, SIGKILL);  // not reaped yet: the pid is still this child's
        Close(&c.answer);
      }
      // Without a pidfd (kernels before 5.3) the child is asked after each short poll.
      if ((c.pidfd < 0 || (p[1 + 2 * i].revents & POLLIN)) && Reap(&c)) c.pid = -1;
    }
    std::erase_if(children, [](const Child& c) { return c.pid < 0; });
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) open = TakeRequest(&children, &pool) && open;
  }
  return 0;
}

pid_t ShimZygote::pid() {
  std::lock_guard<std::mutex> lock(mu_);
  return pid_;
}

size_t ShimZygote::taken() {
  std::lock_guard<std::mutex> lock(mu_);
  return taken_;
}

bool ShimZygote::Ready() {
  std::lock_guard<std::mutex> lock(mu_);
  return ReadyLocked();
}

// Under mu_: whether the zygote has ended, or is ending (its end of the socket is closed).
bool ShimZygote::EndedLocked() {
  pollfd p{control_, 0, 0};
  siginfo_t info{};  // asked, not reaped: ReleaseLocked reaps it and says how it ended
  return poll(&p, 1, 0) != 0 ||
         waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0;
}

bool ShimZygote::ReadyLocked() {
  if (pid_ > 0 && !EndedLocked()) return true;
  if (pid_ > 0) ForgetLocked("; a new one is started");
  // A socket, not a pipe: /proc/PID/fd/0 of the zygote cannot be opened (ENXIO), so no process
  // of its user can write into its stdin that way; the other end stays in hangard.
  int p[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p) != 0) return false;
  Result<ShimChild> child = SpawnShim(shim_path_, {"--zygote"}, p[0]);
  close(p[0]);
  if (!child.ok()) {
    close(p[1]);
    if (say_ && !failed_to_start_)
      say_("cannot start the shim zygote (" + child.status().message() +
           "): direct launches execute hangar-shim anew, and ask again each time");
    failed_to_start_ = true;
    return false;
  }
  failed_to_start_ = false;
  pid_ = child->pid;
  control_ = p[1];
  report_ = child->report;
  return true;
}

void ShimZygote::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseLocked();
}

void ShimZygote::ForgetLocked(const std::string& then) {
  const pid_t was = pid_;
  const std::string how = ReleaseLocked();
  if (say_) say_("the shim zygote (pid " + std::to_string(was) + ") ended: " + how + then);
}

std::string ShimZygote::ReleaseLocked() {
  if (pid_ <= 0) return "";
  Close(&control_);  // the end of its stdin: it ends once its children have
  int status = 0;
  auto reaped_within_a_second = [&] {
    for (int waited_ms = 0; waited_ms < 1000; waited_ms += 5) {
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_ || (r < 0 && errno != EINTR)) return true;
      poll(nullptr, 0, 5);
    }
    return false;
  };
  bool reaped = reaped_within_a_second();
  if (!reaped) {
    kill(pid_, SIGKILL);
    reaped = reaped_within_a_second();
  }
  // Not reaped a second after SIGKILL (stuck in the kernel): let go of, not waited for.
  std::string how = reaped ? DescribeShimEnd(status) : "killed, and not reaped within a second";
  const std::string said = ReadShimReport(report_);
  if (!said.empty()) how += " (" + said.substr(said.rfind('\n') + 1) + ")";
  Close(&report_);
  pid_ = -1;
  return how;
}

std::optional<ShimZygote::Begun> ShimZygote::Begin(const std::string& plan_file,
                                                   const std::string& plan_sha256,
                                                   const std::string& plan_text, bool network,
                                                   int run_dir) {
  if (plan_file.find('\n') != std::string::npos || plan_sha256.find('\n') != std::string::npos)
    return std::nullopt;
  // Never waited for: a zygote another launch is starting or asking, or one that is not running
  // or takes no request at once, leaves this launch to Start, which deals with each.
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock() || pid_ <= 0 || EndedLocked()) return std::nullopt;
  UniqueFd plan(memfd_create("hangar-plan", MFD_CLOEXEC));
  if (plan.get() < 0 || !WriteAll(plan.get(), plan_text, "hangar-plan", /*sync=*/false).ok())
    return std::nullopt;
  Begun b;
  UniqueFd theirs;
  if (!MakeAnswer(&b.report, &b.answer, &theirs)) return std::nullopt;
  std::vector<int> fds{b.report.get(), theirs.get(), plan.get()};
  if (run_dir >= 0) fds.push_back(run_dir);
  if (SendWithFds(control_, Request(plan_file, plan_sha256, network), fds, /*wait=*/false) != 0)
    return std::nullopt;
  b.asked = pid_;
  return b;
}

Status ShimZygote::Start(const std::string& plan_file, const std::string& plan_sha256,
                         std::optional<Begun> begun, bool network) {
  const bool one_line =
      plan_file.find('\n') == std::string::npos && plan_sha256.find('\n') == std::string::npos;
  UniqueFd report, answer, theirs;
  bool sent = false;
  pid_t asked = -1;  // the zygote the request went to: a later one is not ended for its silence
  if (begun) {
    report = std::move(begun->report);
    answer = std::move(begun->answer);
    sent = true;
    asked = begun->asked;
  } else if (one_line) {
    (void)MakeAnswer(&report, &answer, &theirs);  // none made: not asked, started cold below
  }
  if (!begun && answer.get() >= 0) {
    const std::string request = Request(plan_file, plan_sha256, network);
    std::lock_guard<std::mutex> lock(mu_);
    // A zygote that ended, or is stuck, is started anew, once, and asked again.
    for (int tries = 0; tries < 2 && !sent && ReadyLocked(); ++tries) {
      const int e = SendWithFds(control_, request, {report.get(), theirs.get()});
      sent = e == 0;
      if (sent) asked = pid_;
      // Gone (EPIPE), or stuck, taking no request (EAGAIN): ended, and a new one asked.
      if (!sent)
        ForgetLocked(e == EAGAIN ? "; it took no request for a second, and was ended" : "");
    }
  }
  theirs.Reset();  // the zygote holds its own copy, and its child one
  auto until = std::chrono::steady_clock::now() + kShimReportWithin;
  bool timed_out = false;
  int child_fd = -1;  // the child's pidfd, sent with its "y"
  bool took = sent && Receive(answer.get(), until, &timed_out, &child_fd) == "y";
  bool shut = false;
  if (sent && !took && timed_out) {
    // No answer in time. Shut our reading side first, so that the child can no longer say "y"
    // (its send fails and it runs nothing; the zygote sees no hang-up and kills nothing), then
    // look: a "y" already on its way means it took the launch after all.
    shutdown(answer.get(), SHUT_RD);
    shut = true;
    timed_out = false;
    took = Receive(answer.get(), std::chrono::steady_clock::now(), &timed_out, &child_fd) == "y";
    if (!took) {
      // Its child said nothing within 10 s: the zygote is stuck (or stopped), and replaced.
      std::lock_guard<std::mutex> lock(mu_);
      if (pid_ == asked) ForgetLocked("; it did not take a launch within 10 s, and was ended");
    }
  }
  UniqueFd child(child_fd);
  if (took && begun) {
    // A begun child goes on once told. One that has ended already is told nothing (EPIPE,
    // ECONNRESET): its status follows. A go that cannot be sent to a child that waits for it
    // withdraws the launch (the child runs nothing without it) and starts it cold, as one not
    // taken.
    const int e = SendWithFds(answer.get(), "g", {}, /*wait=*/true);
    if (e != 0 && e != EPIPE && e != ECONNRESET) took = false;
  }
  if (took) {
    // Taken: the child is the launch's shim; its end decides, as a cold start's would, within
    // ~10 s of its "y".
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++taken_;
    }
    until = std::chrono::steady_clock::now() + kShimReportWithin;
    timed_out = false;
    const std::string said = shut ? "" : Receive(answer.get(), until, &timed_out);
    bool ended = false;  // the child, as its pidfd says
    if (said.empty() && child.get() >= 0) {
      // No status (the zygote ended, or our side was shut, or it is late): the child's own end,
      // so that what its supervisor holds then (run/lock) tells whether a drone runs.
      pollfd p{child.get(), POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      ended = poll(&p, 1, int(std::max<int64_t>(left.count(), 0))) == 1;
    }
    answer.Reset();  // when it has not ended: the zygote kills it now, as a cold start would
    int status = 0;
    if (said.rfind("s ", 0) == 0 &&
        std::from_chars(said.data() + 2, said.data() + said.size(), status).ec == std::errc())
      return ShimOutcome(status, report.get(), plan_file);
    if (!ended)  // it did not end within its 10 s (killed now): a slow shim, as a cold one
      return ShimOutcome(Status::Unavailable("timed out"), report.get(), plan_file);
    if (!shut) {
      // It ended and the zygote said nothing: the zygote is gone or stuck.
      std::lock_guard<std::mutex> lock(mu_);
      if (pid_ == asked && !EndedLocked())
        ForgetLocked("; it did not say how a shim it forked ended, and was ended");
    }
    // Its status unknown: as after a shim that did not report.
    const std::string words = ReadShimReport(report.get());
    return Status::Unavailable("cannot start drone with plan " + plan_file +
                               ": the shim zygote did not say how the shim it forked ended" +
                               (words.empty() ? "" : " (it said: " + words + ")"));
  }
  // Not taken (no zygote, it ended, it refused, its child never answered, or a begun child could
  // not be told to go; it is killed once this end is closed): nothing of this launch ran there.
  answer.Reset();
  report.Reset();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pid_ > 0 && EndedLocked()) ForgetLocked("; the launch of " + plan_file + " starts cold");
  }
  return StartShim(shim_path_, plan_file, plan_sha256);
}

}  // namespace hangar
