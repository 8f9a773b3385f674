// The shim zygote (docs/ARCHITECTURE.md, hangar-shim). A launch's hangar-shim, executed anew,
// spends milliseconds of CPU before it reads its plan: the exec, the dynamic linker relocating
// libcrypto and libstdc++, OpenSSL's start (docs/BENCHMARKS.md, The shim zygote). The zygote
// (`hangar-shim --zygote`) is one hangar-shim, started once by hangard, that has done all that
// and forks the first process of each direct launch on request: the child is, from its fork on,
// the shim `hangar-shim PLAN_FILE SHA256` would be, without an exec.
//
// The protocol. The zygote's stdin is a unix SOCK_SEQPACKET socket whose other end only hangard
// holds (no process can open it through /proc). A request is one message, "PLAN_FILE\nSHA256\n"
// (and "net\n", below), carrying two descriptors: the anonymous file (memfd) the first process's
// stdout and stderr go to, and the zygote's end of a socket pair made for this launch (the
// answer). The zygote forks;
// the child sends "y" (taken) on the answer before anything else, with a pidfd of itself, and
// from then on it is the launch's shim; when the child has ended, the zygote reaps it and sends
// "s STATUS" (its wait status, decimal) on the answer and closes it. hangard closing its end of the
// answer means it gave up waiting: the zygote kills the child (SIGKILL) and reaps it. The end of
// the stream on its stdin (hangard ended, or let it go) ends the zygote once its children have
// ended; it runs nothing more.
//
// A begun launch (Begin): the same request carries a third descriptor, an anonymous file with
// the plan's bytes, sent while hangard still waits for the launch's records (its key, its move) to
// be durable. The child says "y", then reads and checks the plan from that file and makes what
// depends only on it (supervisor.h, RunShimBegun: the drone's command, its hidden paths and
// Landlock ruleset), writing nothing and starting nothing, and waits for "g" (go) on the answer.
// hangard sends "g" once the records are durable; withdrawing the launch (the records failed, the
// key was there already, hangard ended) is closing its end unsaid: the zygote kills the child, and
// the child, should it see the end of the stream first, ends having run nothing. So no drone runs
// before its records are durable, as when the zygote learns the plan only then (a request
// without the third descriptor, Start's own).
//
// A fourth descriptor, when given, is the launch's run directory where it is until the launch's
// move (queued/ID/run; the move carries it, and what is open in it, to running/ID/run). With it
// and a plan whose drone the shim can make in its own process (supervisor.h, SandboxBeforeGo),
// the child forks the supervisor before the go, and the supervisor makes the drone's files and
// the drone's process with its whole sandbox, which then waits for the go before it executes the
// drone's program. Withdrawn, the supervisor kills that process; the drone never ran.
//
// Network namespaces made ahead (shell/network_namespace.h). A drone whose sandbox of engine
// "namespaces" cuts the network gets a network namespace of its own with its loopback up; making
// one is some 0.6 ms of the launch's path. A zygote that may (root: CAP_SYS_ADMIN) keeps two made
// ahead, made while no request waits, and a request whose third line is "net" gives its child the
// oldest: the child is then the only holder of that namespace, the zygote's copy closed at the
// fork, and its drone enters it before it leaves the host's user namespace (DroneSpec::net; a
// namespace given once, so no two drones share a loopback). With none
// ready (a user's zygote, or requests faster than it makes them), the sandbox makes its own, as
// without the line. A zygote that could not return to its own network namespace after making one
// ends (its children would start supervisors and egress proxies cut off): launches start cold
// until hangard starts another.
#pragma once

#include <sys/types.h>

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "base/status.h"
#include "env/nofollow.h"

namespace hangar {

// hangard's side: the zygote of one direct launcher. Start may be called from several threads at
// once (the launch pool); each launch has its own answer socket.
class ShimZygote {
 public:
  // SAY (when given) is told, from whichever thread finds it, that the zygote ended on its own
  // (how, and the last of what it wrote) or could not be started: an operator's signs that
  // launches start cold.
  explicit ShimZygote(std::string shim_path, std::function<void(const std::string&)> say = nullptr)
      : shim_path_(std::move(shim_path)), say_(std::move(say)) {}
  ~ShimZygote() { Release(); }
  ShimZygote(const ShimZygote&) = delete;
  ShimZygote& operator=(const ShimZygote&) = delete;

  // StartShim (launch/direct_launcher.h), the same answers, through the zygote (started when it
  // is not running, and started anew when it has ended). A launch the zygote did not take (it
  // ended, or its child said nothing within 10 s: killed) starts a shim cold, so a zygote that
  // died fails no launch; one it took is decided by the child's report as a cold start's is.
  // NETWORK: the plan's drone will enter a network namespace made ahead, when the zygote has one
  // (the request's third line; see the protocol above).
  Status Start(const std::string& plan_file, const std::string& plan_sha256, bool network = false) {
    return Start(plan_file, plan_sha256, std::nullopt, network);
  }

  // A launch begun: its request sent, the answer kept. Destroyed without Start, it is withdrawn.
  struct Begun {
    UniqueFd report, answer;
    pid_t asked = -1;  // the zygote that took the request
  };
  // Sends the begun request for PLAN_FILE (its name once the launch's records are durable) whose
  // bytes are PLAN_TEXT, hashing to PLAN_SHA256, and returns at once: never waits (a zygote
  // another thread is starting or asking, one not running or not taking the request at once:
  // nullopt, and the launch is Start's, whole). Called by hangard's loop. RUN_DIR (when not -1,
  // the caller's to close) is the launch's run directory as it is now, sent along (above).
  std::optional<Begun> Begin(const std::string& plan_file, const std::string& plan_sha256,
                             const std::string& plan_text, bool network = false, int run_dir = -1);
  // Start for a launch BEGUN (when given): its records now durable, the child told to go; the
  // same answers as Start. A child that did not take it (the zygote ended first) leaves the launch
  // to a cold start, as in Start.
  // NETWORK as above, for a launch not begun (a begun one's request said it).
  Status Start(const std::string& plan_file, const std::string& plan_sha256,
               std::optional<Begun> begun, bool network = false);

  // Starts the zygote now when it is not running (hangard's start calls it: the first launch
  // then finds it ready). False when it cannot be started; launches then start cold.
  bool Ready();

  // Lets the zygote go (its stdin closed: it ends once its children have) and reaps it; killed
  // when it has not ended within a second. hangard calls it before it re-executes itself, so
  // that no zygote of the old image is left a zombie of the new one. A later Start or Ready
  // starts a new one.
  void Release();

  // The zygote's pid, -1 when none runs; how many launches a zygote took (for tests).
  pid_t pid();
  size_t taken();

 private:
  // Under mu_: the zygote running (started when it was not), or false.
  bool ReadyLocked();
  // Under mu_: its stdin closed, reaped (within a second, else killed); how it ended
  // (DescribeShimEnd, launch/shim_start.h), and the last line it wrote, when it said any.
  std::string ReleaseLocked();
  // Under mu_, with a zygote started: whether it has ended, or is ending (its socket closed).
  bool EndedLocked();
  // Under mu_, with a zygote that ended on its own: ReleaseLocked, and said, with THEN after.
  void ForgetLocked(const std::string& then);

  const std::string shim_path_;
  const std::function<void(const std::string&)> say_;
  std::mutex mu_;
  pid_t pid_ = -1;    // guarded by mu_
  int control_ = -1;  // hangard's end of its stdin; guarded by mu_
  int report_ = -1;   // the memfd the zygote's own stdout and stderr go to; guarded by mu_
  size_t taken_ = 0;  // guarded by mu_
  bool failed_to_start_ = false;  // said once until one starts; guarded by mu_
};

// The shim's side, `hangar-shim --zygote`: closes every descriptor but 0-2, makes ready, then
// serves requests on stdin as above until the end of the stream and its children have ended;
// returns 0. A request that is not two lines with two descriptors (three: begun) is refused (its
// answer closed unanswered, why on stderr), and the zygote goes on. MODE_ARG is the command line's
// "--zygote", which each child rewrites in place to "--forked", so that ps(1) and pkill(1) tell the
// zygote from the launches' shims and supervisors.
int RunShimZygote(char* mode_arg);

}  // namespace hangar
