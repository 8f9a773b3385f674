#include "launch/supervisor.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "base/sha256.h"
#include "env/env.h"
#include "env/nofollow.h"
#include "launch/direct_launcher.h"
#include "launch/drone_exec.h"
#include "launch/sandbox_command.h"
#include "launch/shim_path_testutil.h"
#include "launch/shim_zygote.h"
#include "launch/stop_policy.h"
#include "shell/proc.h"
#include "shell/scan.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::steady_clock;
using Act = StopPolicy::Act;

// exit.json's started and ended are wall-clock milliseconds, rounded down, and the supervisor's
// own clock is monotonic milliseconds, rounded down too: a drone stopped at its deadline D may
// show an ended - started a millisecond or two short of D.
constexpr int64_t kClockSlackMs = 5;

// ---- the pure parts ----

TEST(StopPolicy, DeadlineSendsTermThenKillAfterGrace) {
  StopPolicy p(1000, 300);
  EXPECT_EQ(p.Wake(), 1000);
  EXPECT_EQ(p.Tick(999), Act::kNone);
  EXPECT_EQ(p.Tick(1002), Act::kTerm);
  EXPECT_TRUE(p.timed_out());
  EXPECT_FALSE(p.cancelled());
  EXPECT_EQ(p.Wake(), 1302);
  EXPECT_EQ(p.Tick(1301), Act::kNone);
  EXPECT_EQ(p.Tick(1302), Act::kKill);
  EXPECT_EQ(p.Wake(), std::nullopt);
  EXPECT_EQ(p.Tick(5000), Act::kNone);
}

TEST(StopPolicy, CancelStopsTheSameWayAndTheFirstReasonStands) {
  StopPolicy p(1000, 300);
  EXPECT_EQ(p.Cancel(10), Act::kTerm);
  EXPECT_TRUE(p.cancelled());
  EXPECT_EQ(p.Cancel(20), Act::kNone);
  EXPECT_EQ(p.Wake(), 310);  // grace counts from the cancel
  EXPECT_EQ(p.Tick(309), Act::kNone);
  EXPECT_EQ(p.Tick(310), Act::kKill);
  EXPECT_EQ(p.Tick(1000), Act::kNone);  // the deadline no longer matters
  EXPECT_FALSE(p.timed_out());

  StopPolicy q(1000, 300);
  EXPECT_EQ(q.Tick(1000), Act::kTerm);
  EXPECT_EQ(q.Cancel(1100), Act::kNone);
  EXPECT_TRUE(q.timed_out());
  EXPECT_FALSE(q.cancelled());
}

TEST(StopPolicy, ZeroGraceKillsAtTheNextTick) {
  StopPolicy p(50, 0);
  EXPECT_EQ(p.Tick(50), Act::kTerm);
  EXPECT_EQ(p.Wake(), 50);
  EXPECT_EQ(p.Tick(50), Act::kKill);
}

// What a begun launch may make before its go: a command that needs nothing the supervisor makes
// first. A workspace's program may be in its checkout, egress binds the proxy's socket, and a
// last-message file outside the room is bound by a descriptor of the file the supervisor creates.
TEST(CommandBeforeGo, OnlyWhenTheCommandNeedsNothingTheSupervisorMakes) {
  Plan p;
  p.room = "/spool/rooms/M";
  p.run = "/spool/running/M/run";
  EXPECT_TRUE(CommandBeforeGo(p));
  p.last_message = p.room + "/last.txt";
  EXPECT_TRUE(CommandBeforeGo(p)) << "inside the room: not bound on its own";
  p.last_message = p.run + "/last-message.txt";
  EXPECT_FALSE(CommandBeforeGo(p));
  p.last_message.clear();
  p.network = "egress";
  EXPECT_FALSE(CommandBeforeGo(p));
  p.network = "none";
  p.workspace = PlanWorkspace{};
  EXPECT_FALSE(CommandBeforeGo(p));
}

TEST(SetEnding, ExitStatusOrSignal) {
  ExitInfo a, b;
  SetEnding(W_EXITCODE(3, 0), &a);
  EXPECT_EQ(a.rc, 3);
  EXPECT_EQ(a.signal, std::nullopt);
  SetEnding(W_EXITCODE(0, SIGKILL), &b);
  EXPECT_EQ(b.rc, std::nullopt);
  EXPECT_EQ(b.signal, SIGKILL);
}

// ---- bin/hangar-shim, driven as hangard drives it ----

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// PID's descendants, through the kernel's lists of children (CONFIG_PROC_CHILDREN).
std::vector<pid_t> Descendants(pid_t pid) {
  std::vector<pid_t> all;
  std::istringstream kids(
      Slurp("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children"));
  for (pid_t kid; kids >> kid;) {
    all.push_back(kid);
    for (pid_t d : Descendants(kid)) all.push_back(d);
  }
  return all;
}

// Whether PID has ended: gone, or a zombie.
bool Ended(pid_t pid) {
  const std::string st = Slurp("/proc/" + std::to_string(pid) + "/stat");
  return st.empty() || st.find(") Z ") != std::string::npos;
}

// A process still running sleep (a reused pid runs something else).
bool SleepAlive(pid_t pid) {
  return Slurp("/proc/" + std::to_string(pid) + "/comm") == "sleep\n";
}

// Each test twice: hangar-shim started cold for its launch (StartShim), and forked by the shim
// zygote (launch/shim_zygote.h), which must behave the same in every way. The parameter's bit 0:
// the zygote; bit 1 (ShimTestSandbox): engine "namespaces" instead of "bwrap"; bit 2 (with bit 0):
// the launch begun (ShimZygote::Begin: the drone's command made before the go, in the first
// process, and carried into the supervisor and the drone); bit 3 (with bit 2): begun with its run
// directory, as hangard begins one, in queued/ID/run before the launch's move (with engine
// "namespaces", the supervisor and the drone's sandbox made before the go: supervisor.h,
// RunShimBegun).
class ShimTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(BuiltShimPath())) << BuiltShimPath() << ": build bin/hangar-shim first";
    char tmpl[] = "/tmp/hangar-shim-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = fs::canonical(tmpl);
    room_ = dir_ + "/room";
    run_ = dir_ + "/run";
    fs::create_directory(room_);
    fs::create_directory(run_);
    std::ofstream(run_ + "/prompt.md") << "reach the future\n";
  }

  void TearDown() override {
    if (SupervisorAlive(run_)) (void)SignalSupervisor(run_, SIGKILL);  // its drone dies with it
    fs::remove_all(dir_);
  }

  Plan MakePlan(std::vector<std::string> argv, int64_t deadline_ms = 60000,
                int64_t grace_ms = 1000) {
    Plan p;
    p.id = "M";
    p.argv = std::move(argv);
    p.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", room_}, {"HANGAR_MISSION", "M"}};
    p.room = room_;
    p.run = run_;
    p.stdin_path = run_ + "/prompt.md";
    p.deadline_ms = deadline_ms;
    p.grace_ms = grace_ms;
    p.sandbox.engine = "none";  // the supervisor alone; the sandbox has its own tests
    p.sandbox.write = {room_};
    return p;
  }

  Status Start(const Plan& p) {
    const std::string path = dir_ + "/plan.json";
    const std::string text = json::WritePretty(p.ToJson());
    std::ofstream(path) << text;
    if (!(GetParam() & 1)) return StartShim(BuiltShimPath(), path, Sha256Hex(text));
    EXPECT_TRUE(zygote_.Ready()) << "no zygote: the launch would start cold";
    const size_t before = zygote_.taken();
    std::optional<ShimZygote::Begun> begun;
    if (GetParam() & 4) {
      const std::string queued = run_ + ".queued";
      UniqueFd run_now;
      if (GetParam() & 8) {
        fs::rename(run_, queued);
        run_now = UniqueFd(open(queued.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      }
      begun = zygote_.Begin(path, Sha256Hex(text), text, SandboxCutsNetwork(p), run_now.get());
      EXPECT_TRUE(begun.has_value()) << "not begun";
      if (GetParam() & 8) fs::rename(queued, run_);  // the launch's move
    }
    Status s = zygote_.Start(path, Sha256Hex(text), std::move(begun), SandboxCutsNetwork(p));
    EXPECT_EQ(zygote_.taken(), before + 1) << "the launch started cold, not through the zygote";
    return s;
  }

  // Machines are noisy: wait long, assert on what happened, not on how fast.
  ExitInfo AwaitExit() {
    const auto until = steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
      Result<ExitInfo> e = ReadExit(RealEnv(), run_);
      if (e.ok()) return *e;
      EXPECT_EQ(e.status().code(), Code::kNotFound) << e.status().message();
      if (steady_clock::now() > until) {
        ADD_FAILURE() << "no exit.json after 60 s";
        return {};
      }
      std::this_thread::sleep_for(milliseconds(20));
    }
  }

  json::Value ShimJson() {
    Result<json::Value> v = json::Parse(Slurp(run_ + "/shim.json"));
    EXPECT_TRUE(v.ok());
    return v.ok() ? *v : json::Value(json::Object{});
  }

  std::string dir_, room_, run_;
  ShimZygote zygote_{BuiltShimPath()};
};

TEST_P(ShimTest, ExitStatusAndStdoutAreKept) {
  ASSERT_TRUE(Start(MakePlan({"sh", "-c", "echo hi; echo oops >&2; exit 3"})).ok());
  ExitInfo e = AwaitExit();
  EXPECT_EQ(e.rc, 3);
  EXPECT_EQ(e.signal, std::nullopt);
  EXPECT_FALSE(e.timed_out);
  EXPECT_FALSE(e.cancelled);
  EXPECT_EQ(e.error, "");
  EXPECT_LE(e.started, e.ended);
  EXPECT_EQ(Slurp(run_ + "/stdout"), "hi\n");
  EXPECT_EQ(Slurp(run_ + "/stderr"), "oops\n");
}

// The drone starts with every signal at its default and none blocked, as the kernel shows them:
// hangard starts the shim with glibc's posix_spawn, which leaves glibc's own signals 32 and 33
// ignored in the child (an ignored signal stays ignored across exec), and hangard's launch threads
// block SIGHUP, SIGINT and SIGTERM. Found by review: SigIgn was 0000000180000000.
TEST_P(ShimTest, TheDroneStartsWithNoSignalIgnoredOrBlocked) {
  ASSERT_TRUE(Start(MakePlan({"grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"})).ok());
  ExitInfo e = AwaitExit();
  EXPECT_EQ(e.rc, 0);
  EXPECT_EQ(Slurp(run_ + "/stdout"), "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

TEST_P(ShimTest, DeadlineTerminatesTheDrone) {
  const auto t0 = steady_clock::now();
  ASSERT_TRUE(Start(MakePlan({"sleep", "30"}, 300, 1000)).ok());
  ExitInfo e = AwaitExit();
  const auto took = std::chrono::duration_cast<milliseconds>(steady_clock::now() - t0).count();
  EXPECT_TRUE(e.timed_out);
  EXPECT_FALSE(e.cancelled);
  EXPECT_EQ(e.signal, SIGTERM);
  EXPECT_EQ(e.rc, std::nullopt);
  EXPECT_GE(e.ended - e.started, 300 - kClockSlackMs);
  EXPECT_LT(took, 300 + 1000 + 15000);  // deadline + grace + a generous slack
}

TEST_P(ShimTest, DroneIgnoringTermIsKilledAfterGrace) {
  ASSERT_TRUE(Start(MakePlan({"sh", "-c", "trap '' TERM; sleep 30"}, 300, 200)).ok());
  ExitInfo e = AwaitExit();
  EXPECT_TRUE(e.timed_out);
  EXPECT_EQ(e.signal, SIGKILL);
  EXPECT_GE(e.ended - e.started, 300 + 200 - kClockSlackMs);
}

TEST_P(ShimTest, SignalSupervisorCancels) {
  ASSERT_TRUE(Start(MakePlan({"sleep", "30"})).ok());
  ASSERT_TRUE(SignalSupervisor(run_, SIGTERM).ok());
  ExitInfo e = AwaitExit();
  EXPECT_TRUE(e.cancelled);
  EXPECT_FALSE(e.timed_out);
  EXPECT_EQ(e.signal, SIGTERM);
}

TEST_P(ShimTest, EnvironmentIsExactlyThePlans) {
  setenv("HANGAR_SHIM_TEST_LEAK", "1", 1);  // in hangard's environment, so in the shim's
  ASSERT_TRUE(Start(MakePlan({"env"})).ok());
  unsetenv("HANGAR_SHIM_TEST_LEAK");
  EXPECT_EQ(AwaitExit().rc, 0);
  EXPECT_EQ(Slurp(run_ + "/stdout"), "HANGAR_MISSION=M\nHOME=" + room_ + "\nPATH=/usr/bin:/bin\n");
}

TEST_P(ShimTest, CwdIsTheRoomAndStdinThePrompt) {
  ASSERT_TRUE(Start(MakePlan({"sh", "-c", "/bin/pwd; cat"})).ok());
  EXPECT_EQ(AwaitExit().rc, 0);
  EXPECT_EQ(Slurp(run_ + "/stdout"), room_ + "\nreach the future\n");
}

TEST_P(ShimTest, NoStdinReadsEmpty) {
  Plan p = MakePlan({"wc", "-c"});
  p.stdin_path = "";
  ASSERT_TRUE(Start(p).ok());
  EXPECT_EQ(AwaitExit().rc, 0);
  EXPECT_EQ(Slurp(run_ + "/stdout"), "0\n");
}

TEST_P(ShimTest, LockAndIdentityWhileRunningThenFreed) {
  std::ofstream(run_ + "/exit.json") << "{}";  // an earlier supervisor's, stale
  ASSERT_TRUE(Start(MakePlan({"sleep", "30"})).ok());
  EXPECT_TRUE(SupervisorAlive(run_));
  EXPECT_FALSE(fs::exists(run_ + "/exit.json"));
  json::Value shim = ShimJson();
  ASSERT_TRUE(shim.find("drone_pid") && shim.find("drone_start"));
  const pid_t drone = pid_t(shim.find("drone_pid")->as_int());
  const uint64_t drone_start = uint64_t(shim.find("drone_start")->as_int());
  EXPECT_TRUE(SameProcess(drone, drone_start));
  EXPECT_TRUE(SameProcess(pid_t(shim.find("shim_pid")->as_int()),
                          uint64_t(shim.find("shim_start")->as_int())));
  EXPECT_EQ(getpgid(drone), drone);  // its own group
  EXPECT_TRUE(SleepAlive(drone));
  EXPECT_EQ(shim.find("started")->as_string().size(),
            std::string("2026-11-29T19:05:43.123Z").size());

  ASSERT_TRUE(SignalSupervisor(run_, SIGTERM).ok());
  AwaitExit();
  EXPECT_FALSE(SameProcess(drone, drone_start));
  // exit.json comes just before the supervisor exits, lets go of the lock and is reaped.
  const auto until = steady_clock::now() + std::chrono::seconds(30);
  auto gone = [&] {
    return !SupervisorAlive(run_) && SignalSupervisor(run_, 0).code() == Code::kUnavailable;
  };
  while (!gone() && steady_clock::now() < until) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_FALSE(SupervisorAlive(run_));
  EXPECT_EQ(SignalSupervisor(run_, SIGTERM).code(), Code::kUnavailable);
}

// A drone that leaves two children: one stays in its group, one leaves it with setsid. Both must
// die with the drone; their pids in the room's grouped.pid and escaped.pid.
const std::vector<std::string> kLeavesStragglers = {
    "sh", "-c",
    "sleep 60 & echo $! > grouped.pid; setsid sleep 61 & echo $! > escaped.pid; sleep 0.2; exit 0"};

TEST_P(ShimTest, NothingOfTheDroneOutlivesIt) {
  ASSERT_TRUE(Start(MakePlan(kLeavesStragglers)).ok());
  ExitInfo e = AwaitExit();
  EXPECT_EQ(e.rc, 0);
  for (const char* f : {"/grouped.pid", "/escaped.pid"}) {
    const std::string text = Slurp(room_ + f);
    ASSERT_FALSE(text.empty()) << f;
    EXPECT_FALSE(SleepAlive(pid_t(std::stoi(text)))) << f;
  }
}

// hangard counts a drone's end once the supervisor lets go of its lock (Daemon::CheckExit), which
// the supervisor does before its own teardown (LetGo): at that moment exit.json is written and
// nothing of the drone is left, an escaped straggler included. Looked at from the first moment
// the lock is free (a tight loop, not a sleep).
TEST_P(ShimTest, TheLockIsLetGoOnlyOnceTheEndIsWrittenAndNothingIsLeft) {
  ASSERT_TRUE(Start(MakePlan(kLeavesStragglers)).ok());
  UniqueFd lock(open((run_ + "/lock").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_GE(lock.get(), 0);
  const auto until = steady_clock::now() + std::chrono::seconds(60);
  while (flock(lock.get(), LOCK_EX | LOCK_NB) != 0) ASSERT_LT(steady_clock::now(), until);
  EXPECT_TRUE(ReadExit(RealEnv(), run_).ok()) << "the lock was let go before exit.json";
  for (const char* f : {"/grouped.pid", "/escaped.pid"}) {
    const std::string text = Slurp(room_ + f);
    ASSERT_FALSE(text.empty()) << f;
    EXPECT_FALSE(SleepAlive(pid_t(std::stoi(text)))) << f << ": alive when the lock was let go";
  }
}

TEST_P(ShimTest, ExecFailureIsTheDronesOutcomeNotAStartFailure) {
  ASSERT_TRUE(Start(MakePlan({"/nonexistent/drone", "x"})).ok());
  ExitInfo e = AwaitExit();
  EXPECT_EQ(e.rc, std::nullopt);
  EXPECT_EQ(e.signal, std::nullopt);
  EXPECT_EQ(e.error, "cannot execute /nonexistent/drone: No such file or directory");
  EXPECT_FALSE(fs::exists(run_ + "/shim.json"));
}

TEST_P(ShimTest, NameNotOnPathIsNotRunFromTheRoom) {
  const std::string planted = room_ + "/drone-in-room";
  std::ofstream(planted) << "#!/bin/sh\nexit 0\n";
  fs::permissions(planted, fs::perms::owner_all);
  ASSERT_TRUE(Start(MakePlan({"drone-in-room"})).ok());
  EXPECT_EQ(AwaitExit().error, "cannot execute drone-in-room: No such file or directory");
}

TEST_P(ShimTest, SecondShimOnTheSameRunIsRefused) {
  Plan p = MakePlan({"sleep", "30"});
  ASSERT_TRUE(Start(p).ok());
  const std::string first = Slurp(run_ + "/shim.json");
  Status second = Start(p);
  EXPECT_EQ(second.code(), Code::kIo);
  EXPECT_NE(second.message().find("cannot start drone for mission M: cannot lock"),
            std::string::npos)
      << second.message();
  EXPECT_NE(second.message().find("another supervisor holds it"), std::string::npos);
  EXPECT_EQ(Slurp(run_ + "/shim.json"), first);
  EXPECT_TRUE(SupervisorAlive(run_));
  ASSERT_TRUE(SignalSupervisor(run_, SIGTERM).ok());
  EXPECT_TRUE(AwaitExit().cancelled);
}

TEST_P(ShimTest, MissingRoomIsAStartFailure) {
  Plan p = MakePlan({"true"});
  p.room = p.sandbox.write[0] = dir_ + "/no-room";
  Status s = Start(p);
  EXPECT_EQ(s.code(), Code::kIo);
  EXPECT_NE(s.message().find("cannot open room " + p.room), std::string::npos) << s.message();
  EXPECT_FALSE(fs::exists(run_ + "/exit.json"));
  // The supervisor reports before it exits, and its lock goes with it: released soon, not
  // necessarily by the time the report is read (machines are noisy: wait, do not time).
  bool released = false;
  for (int i = 0; i < 500 && !released; i++) {
    released = !SupervisorAlive(run_);
    if (!released) usleep(10000);
  }
  EXPECT_TRUE(released) << "the supervisor of a failed start still holds its lock after 5 s";
}

// ---- FindProgram and LoadShimPlan read real files ----

TEST_P(ShimTest, FindProgramFollowsPathLikeExecvp) {
  fs::create_directories(dir_ + "/a");
  fs::create_directories(dir_ + "/b");
  std::ofstream(dir_ + "/a/tool") << "not executable";
  std::ofstream(dir_ + "/b/tool") << "#!/bin/sh\n";
  fs::permissions(dir_ + "/b/tool", fs::perms::owner_all);
  EXPECT_EQ(FindProgram("tool", dir_ + "/a:" + dir_ + "/b", "/"), dir_ + "/b/tool");
  EXPECT_EQ(FindProgram("tool", "a:b", dir_), dir_ + "/b/tool");  // relative: from the room
  EXPECT_EQ(FindProgram("tool", dir_ + "/a", "/"), std::nullopt);
  EXPECT_EQ(FindProgram("tool", "", dir_ + "/b"), std::nullopt);
  EXPECT_EQ(FindProgram("./x/y", "/bin", "/"), "./x/y");
  EXPECT_EQ(FindProgram("b", dir_, "/"), std::nullopt);  // a directory is not a program
}

TEST_P(ShimTest, LoadShimPlanRefusesAnotherLauncher) {
  Plan p = MakePlan({"true"});
  p.launcher = "systemd";
  const std::string path = dir_ + "/plan.json";
  std::ofstream(path) << json::Write(p.ToJson());
  Result<Plan> got = LoadShimPlan(path, Sha256Hex(json::Write(p.ToJson())));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kInvalid);
  EXPECT_NE(got.status().message().find("launcher"), std::string::npos);
  p.launcher = "direct";
  const std::string text = json::Write(p.ToJson());
  std::ofstream(path) << text;
  ASSERT_TRUE(LoadShimPlan(path, Sha256Hex(text)).ok());
  EXPECT_EQ(LoadShimPlan(path, Sha256Hex(text))->argv, p.argv);
  // The same plan with one byte more is not the plan the gate passed.
  std::ofstream(path) << text << " ";
  got = LoadShimPlan(path, Sha256Hex(text));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("changed after the gate"), std::string::npos);
}

// ---- the sandbox: bin/hangar-shim with the real bubblewrap ----

constexpr char kBwrap[] = "/usr/bin/bwrap";  // installed by scripts/install-deps

// Each sandbox test with both engines, which must make the same sandbox: bubblewrap, and
// hangar-confine's own (engine "namespaces", shell/namespace_sandbox.h).
class ShimTestSandbox : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    if (!Namespaces() && !fs::exists(kBwrap)) GTEST_SKIP() << kBwrap << " is not installed";
  }

  bool Namespaces() const { return GetParam() & 2; }

  Plan MakeSandboxedPlan(std::vector<std::string> argv, int64_t deadline_ms = 60000,
                         int64_t grace_ms = 1000) {
    Plan p = MakePlan(std::move(argv), deadline_ms, grace_ms);
    p.sandbox.engine = Namespaces() ? "namespaces" : "bwrap";
    p.sandbox.bwrap = Namespaces() ? "" : kBwrap;
    return p;
  }

  // The interfaces a /proc/net/dev lists, one a line: what `NetDevices` prints in the drone.
  static std::string NetDevices(const std::string& proc_net_dev) {
    std::istringstream in(proc_net_dev);
    std::string line, out;
    for (int i = 0; std::getline(in, line); i++) {
      if (i < 2 || line.find(':') == std::string::npos) continue;  // two header lines
      std::string name = line.substr(0, line.find(':'));
      name.erase(0, name.find_first_not_of(' '));
      out += name + "\n";
    }
    return out;
  }
  static constexpr char kNetDevices[] = "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '";

  // Starts a sandboxed drone that sleeps once it has touched "ready" in its room, waits for that
  // file, and puts the run's shim.json in *SHIM.
  void StartSleeper(json::Value* shim) {
    ASSERT_TRUE(Start(MakeSandboxedPlan({"sh", "-c", "touch ready; sleep 30"})).ok());
    const auto until = steady_clock::now() + std::chrono::seconds(30);
    while (!fs::exists(room_ + "/ready") && steady_clock::now() < until)
      std::this_thread::sleep_for(milliseconds(10));
    ASSERT_TRUE(fs::exists(room_ + "/ready")) << Slurp(run_ + "/stderr");
    *shim = ShimJson();
  }
};

TEST_P(ShimTestSandbox, DroneWritesInItsRoomAndNowhereElse) {
  ASSERT_TRUE(
      Start(MakeSandboxedPlan({"sh", "-c", "echo x > ok; echo y > " + dir_ + "/outside"})).ok());
  ExitInfo e = AwaitExit();
  EXPECT_EQ(e.error, "");
  EXPECT_NE(e.rc, 0);  // the second write failed
  EXPECT_EQ(Slurp(room_ + "/ok"), "x\n");
  EXPECT_FALSE(fs::exists(dir_ + "/outside"));
  EXPECT_NE(Slurp(run_ + "/stderr").find("Read-only file system"), std::string::npos)
      << Slurp(run_ + "/stderr");
}

TEST_P(ShimTestSandbox, LastMessageIsTheOnlyWritableFileOfTheRunDirectory) {
  Plan p = MakeSandboxedPlan(
      {"sh", "-c", "echo done > " + run_ + "/last-message.txt; echo y > " + run_ + "/other"});
  p.last_message = run_ + "/last-message.txt";
  ASSERT_TRUE(Start(p).ok());
  ExitInfo e = AwaitExit();
  EXPECT_NE(e.rc, 0);
  EXPECT_EQ(Slurp(run_ + "/last-message.txt"), "done\n");
  EXPECT_FALSE(fs::exists(run_ + "/other"));
}

TEST_P(ShimTestSandbox, HiddenDirectoryIsEmptyAndHiddenFileReadsNothing) {
  fs::create_directory(dir_ + "/secrets");
  std::ofstream(dir_ + "/secrets/secret") << "the key\n";
  std::ofstream(dir_ + "/notes.txt") << "the notes\n";
  Plan p =
      MakeSandboxedPlan({"sh", "-c",
                         "echo entries: $(ls -A " + dir_ + "/secrets | wc -l); cat " + dir_ +
                             "/secrets/secret; " + "echo file: $(cat " + dir_ + "/notes.txt)"});
  p.sandbox.hide = {dir_ + "/notes.txt", dir_ + "/secrets"};
  ASSERT_TRUE(Start(p).ok());
  ExitInfo e = AwaitExit();
  EXPECT_EQ(e.rc, 0);
  EXPECT_EQ(Slurp(run_ + "/stdout"), "entries: 0\nfile:\n");
  EXPECT_NE(Slurp(run_ + "/stderr").find("No such file"), std::string::npos)
      << Slurp(run_ + "/stderr");
  // Hidden from the drone, untouched on the disk.
  EXPECT_EQ(Slurp(dir_ + "/secrets/secret"), "the key\n");
  EXPECT_EQ(Slurp(dir_ + "/notes.txt"), "the notes\n");
}

TEST_P(ShimTestSandbox, RoomInsideAHiddenDirectoryStaysVisible) {
  // As the spool: the whole test directory (room, run, plan.json) is hidden, the room bound back.
  std::ofstream(room_ + "/input") << "in the room\n";
  Plan p = MakeSandboxedPlan({"sh", "-c", "cat input; ls -A " + dir_ + "; echo x > ok"});
  p.sandbox.hide = {dir_};
  ASSERT_TRUE(Start(p).ok());
  ExitInfo e = AwaitExit();
  EXPECT_EQ(e.rc, 0);
  EXPECT_EQ(Slurp(run_ + "/stdout"), "in the room\nroom\n");
  EXPECT_EQ(Slurp(room_ + "/ok"), "x\n");
}

TEST_P(ShimTestSandbox, NetworkNoneLeavesOnlyLoopback) {
  // /proc/net/dev follows the drone's network namespace (the sandbox mounts a new /proc);
  // /sys/class/net would show the machine's, as / is bound from outside.
  Plan p = MakeSandboxedPlan({"sh", "-c", kNetDevices});
  p.network = "none";
  ASSERT_TRUE(Start(p).ok());
  EXPECT_EQ(AwaitExit().rc, 0);
  EXPECT_EQ(Slurp(run_ + "/stdout"), "lo\n");
}

TEST_P(ShimTestSandbox, NetworkHostKeepsTheMachinesInterfaces) {
  Plan p = MakeSandboxedPlan({"sh", "-c", kNetDevices});
  p.network = "host";
  ASSERT_TRUE(Start(p).ok());
  EXPECT_EQ(AwaitExit().rc, 0);
  EXPECT_EQ(Slurp(run_ + "/stdout"), NetDevices(Slurp("/proc/self/net/dev")));
}

TEST_P(ShimTestSandbox, DeadlineTermReachesTheDroneInsideTheSandbox) {
  // bwrap leads the group; a TERM to it would end the sandbox at once (--die-with-parent) and the
  // drone would never see its grace (hangar-confine, leading with engine "namespaces", ignores it).
  // The drone must get the TERM and finish on its own: its trap takes a moment, well inside the
  // grace, so it only writes the file when the grace is given.
  ASSERT_TRUE(Start(MakeSandboxedPlan({"sh", "-c",
                                       "trap 'sleep 0.2; echo got TERM > term.txt; exit 7' TERM; "
                                       "sleep 30 & wait"},
                                      300, 5000))
                  .ok());
  ExitInfo e = AwaitExit();
  EXPECT_TRUE(e.timed_out);
  EXPECT_FALSE(e.cancelled);
  EXPECT_EQ(Slurp(room_ + "/term.txt"), "got TERM\n");
  EXPECT_EQ(e.rc, 7);  // the sandbox passes the drone's own exit status on
  EXPECT_EQ(e.signal, std::nullopt);
  EXPECT_GE(e.ended - e.started, 300 - kClockSlackMs);
}

// With engine "namespaces" the supervisor's child takes hangar-confine's steps without executing
// it (launch/drone_exec.h), and two of the sandbox's processes never execute anything: the one that
// waits in the host's PID namespace and the namespace's first. They must hold none of the
// supervisor's descriptors, as after the exec: no file of the spool (its run/lock would keep the
// supervisor's lock after the supervisor died), no socket; above 2 only a pipe (the namespace's
// death pipe) or an anonymous inode (the Landlock ruleset). Fails without the close before the
// sandbox's steps. With bwrap, hangar-confine executes the drone: no process keeps its name.
// Root only: the two make themselves undumpable, and only root reads their /proc/PID/fd then.
TEST_P(ShimTestSandbox, TheSandboxsOwnProcessesHoldNoneOfTheSupervisorsDescriptors) {
  if (geteuid() != 0) GTEST_SKIP() << "reading another user's undumpable process needs root";
  json::Value shim;
  ASSERT_NO_FATAL_FAILURE(StartSleeper(&shim));
  ASSERT_TRUE(shim.find("drone_pid"));
  int looked = 0;
  for (pid_t pid : ProcessGroupMembers(pid_t(shim.find("drone_pid")->as_int()))) {
    if (Slurp("/proc/" + std::to_string(pid) + "/comm") != "hangar-confine\n") continue;
    looked++;
    std::error_code ec;
    // The shim's copy, not an executed hangar-confine: else this test would look at nothing new.
    EXPECT_EQ(fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec).filename(),
              "hangar-shim");
    EXPECT_FALSE(ec) << ec.message();
    for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
      if (std::stoi(fd.path().filename().string()) <= 2) continue;
      std::error_code gone;  // a descriptor closed meanwhile reads as nothing
      const std::string to = fs::read_symlink(fd.path(), gone).string();
      if (gone) continue;
      EXPECT_TRUE(to.rfind("pipe:", 0) == 0 || to.rfind("anon_inode:", 0) == 0)
          << "process " << pid << " holds descriptor " << fd.path().filename() << " on " << to;
    }
    EXPECT_FALSE(ec) << "/proc/" << pid << "/fd: " << ec.message();
  }
  EXPECT_EQ(looked, Namespaces() ? 2 : 0);
}

// hangard's environment (what an admin started it with: credentials, say) reaches no process of a
// launch: not the supervisor, nor the sandbox's own processes, copies of it (engine "namespaces"),
// nor the drone, whose environment is its plan's. Fails with the shim spawned with hangard's
// environ. Root only, as above: the sandbox's processes are undumpable.
TEST_P(ShimTestSandbox, NoProcessOfTheLaunchCarriesHangardsEnvironment) {
  if (geteuid() != 0) GTEST_SKIP() << "reading another user's undumpable process needs root";
  const std::string secret = "TOPSECRET-ENV-5521";
  setenv("HANGAR_SHIM_TEST_SECRET", secret.c_str(), 1);  // this process plays hangard
  json::Value shim;
  StartSleeper(&shim);
  unsetenv("HANGAR_SHIM_TEST_SECRET");
  if (HasFatalFailure()) return;
  ASSERT_TRUE(shim.find("drone_pid") && shim.find("shim_pid"));
  std::vector<pid_t> launch = ProcessGroupMembers(pid_t(shim.find("drone_pid")->as_int()));
  launch.push_back(pid_t(shim.find("shim_pid")->as_int()));
  if (GetParam() & 1) launch.push_back(zygote_.pid());
  for (pid_t pid : launch) {
    const std::string env = Slurp("/proc/" + std::to_string(pid) + "/environ");
    EXPECT_FALSE(env.empty()) << "process " << pid << ": no environment read";
    EXPECT_EQ(env.find(secret), std::string::npos)
        << "process " << pid << " (" << Slurp("/proc/" + std::to_string(pid) + "/comm")
        << ") carries hangard's environment";
  }
}

TEST_P(ShimTestSandbox, DroneIgnoringTermIsKilledAfterGrace) {
  ASSERT_TRUE(
      Start(MakeSandboxedPlan({"sh", "-c", "trap '' TERM; touch ready; sleep 30; true"}, 300, 200))
          .ok());
  // The sandboxed sleep, as the machine sees it: a member of the drone's group.
  json::Value shim = ShimJson();
  ASSERT_TRUE(shim.find("drone_pid"));
  const pid_t drone = pid_t(shim.find("drone_pid")->as_int());
  std::vector<pid_t> sleepers;
  const auto until = steady_clock::now() + std::chrono::seconds(30);
  while (sleepers.empty() && steady_clock::now() < until && !fs::exists(run_ + "/exit.json")) {
    for (pid_t pid : ProcessGroupMembers(drone))
      if (SleepAlive(pid)) sleepers.push_back(pid);
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_FALSE(sleepers.empty()) << "no sleep in the drone's group";

  ExitInfo e = AwaitExit();
  EXPECT_TRUE(e.timed_out);
  EXPECT_EQ(e.signal, SIGKILL);
  EXPECT_EQ(e.rc, std::nullopt);
  EXPECT_GE(e.ended - e.started, 300 + 200 - kClockSlackMs);
  EXPECT_TRUE(fs::exists(room_ + "/ready"));
  for (pid_t pid : sleepers) EXPECT_FALSE(SleepAlive(pid)) << pid;
  // The supervisor ends and lets go of its lock.
  const auto gone_by = steady_clock::now() + std::chrono::seconds(30);
  while (SupervisorAlive(run_) && steady_clock::now() < gone_by)
    std::this_thread::sleep_for(milliseconds(10));
  EXPECT_FALSE(SupervisorAlive(run_));
}

// A launch begun with its run directory (parameter bit 3) and engine "namespaces": the supervisor
// takes its lock, makes the drone's files and the drone's process with its whole sandbox before
// the go, in the run directory where it is then (hangard's queued/ID/run, moved after), and the
// drone's program runs only at the go. Withdrawn, every process of it ends, the lock is let go, and
// the program never ran. Told by the drone's own side effect (the file it makes in its room), not
// by the shim's report. Fails with the wait before the execve removed (confined_exec.cc): the
// proof is there before the go. Through the zygote, begun with its run directory, engine
// "namespaces" only (parameter 15).
class ShimTestMadeBeforeGo : public ShimTestSandbox {};

TEST_P(ShimTestMadeBeforeGo, ADroneMadeBeforeItsGoRunsItsProgramOnlyAtTheGo) {
  ASSERT_TRUE(zygote_.Ready());
  // Also with a last-message file in the run directory (codex's): bound into the sandbox from
  // where it is before the move, at the name it has after it, under the hidden directory that
  // holds both (hangard's spool).
  for (const bool last : {false, true})
    for (const bool go : {false, true}) {
      SCOPED_TRACE(std::string(go ? "told to go" : "withdrawn") + (last ? ", last message" : ""));
      fs::remove(room_ + "/proof");
      Plan p = MakeSandboxedPlan(
          {"sh", "-c", "touch proof" + std::string(last ? "; echo said > \"$LAST\"" : "")});
      if (last) {
        p.last_message = run_ + "/last-message.txt";
        p.env["LAST"] = p.last_message;
        p.sandbox.hide = {dir_};
      }
      const std::string path = dir_ + "/plan.json", text = json::WritePretty(p.ToJson());
      std::ofstream(path) << text;
      const std::string queued = run_ + ".queued";
      fs::rename(run_, queued);
      std::optional<ShimZygote::Begun> begun;
      {
        UniqueFd run_now(open(queued.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        begun = zygote_.Begin(path, Sha256Hex(text), text, SandboxCutsNetwork(p), run_now.get());
      }
      ASSERT_TRUE(begun.has_value());
      // The drone's process, its sandbox being made or made: named as hangar-confine names it.
      std::vector<pid_t> held;
      const auto until = steady_clock::now() + std::chrono::seconds(30);
      while (steady_clock::now() < until) {
        held.clear();
        for (pid_t pid : Descendants(zygote_.pid()))
          if (Slurp("/proc/" + std::to_string(pid) + "/comm") == "hangar-confine\n")
            held.push_back(pid);
        if (!held.empty() && SupervisorAlive(queued)) break;
        std::this_thread::sleep_for(milliseconds(5));
      }
      ASSERT_FALSE(held.empty()) << "no drone's process made before the go";
      EXPECT_TRUE(SupervisorAlive(queued)) << "no supervisor's lock before the go";
      EXPECT_TRUE(fs::exists(queued + "/stdout"));
      std::this_thread::sleep_for(milliseconds(300));  // ample time for a drone not held to run
      EXPECT_FALSE(fs::exists(room_ + "/proof")) << "the drone ran before its go";
      fs::rename(queued, run_);  // the launch's move
      if (!go) {
        begun.reset();
        auto left = [&] {
          return SupervisorAlive(run_) || !std::all_of(held.begin(), held.end(), Ended);
        };
        while (left() && steady_clock::now() < until) std::this_thread::sleep_for(milliseconds(5));
        EXPECT_FALSE(SupervisorAlive(run_)) << "the supervisor outlived its withdrawn launch";
        for (pid_t pid : held) EXPECT_TRUE(Ended(pid)) << "the withdrawn drone's process " << pid;
        std::this_thread::sleep_for(milliseconds(300));
        EXPECT_FALSE(fs::exists(room_ + "/proof")) << "a withdrawn launch ran its drone";
        EXPECT_FALSE(fs::exists(run_ + "/exit.json"));
        continue;
      }
      ASSERT_TRUE(zygote_.Start(path, Sha256Hex(text), std::move(begun)).ok());
      ExitInfo e = AwaitExit();
      EXPECT_EQ(e.rc, 0) << Slurp(run_ + "/stderr");
      EXPECT_TRUE(fs::exists(room_ + "/proof"));
      if (last) {
        EXPECT_EQ(Slurp(run_ + "/last-message.txt"), "said\n");
      }
      fs::remove(run_ + "/exit.json");
    }
}

// The network namespaces a root-run zygote makes ahead (launch/network_pool.h): a drone whose
// sandbox cuts the network enters one the zygote held, none made in its place, and the next drone
// another. Fails with the request's "net" line left out (the drone makes its own, which the zygote
// never held) and with a namespace given twice (the two drones' are the same).
// Engine "namespaces" through the zygote only (ShimTest's parameters 3 and 7).
class ShimTestMadeAhead : public ShimTestSandbox {};

TEST_P(ShimTestMadeAhead, ADroneEntersANetworkMadeAheadForItAlone) {
  if (geteuid() != 0) GTEST_SKIP() << "a user's zygote makes no network namespace ahead";
  ASSERT_TRUE(zygote_.Ready());
  // The "net:[INODE]" namespaces the zygote holds, once it holds two.
  auto held = [&] {
    std::set<std::string> nets;
    std::error_code ec;
    for (const auto& fd :
         fs::directory_iterator("/proc/" + std::to_string(zygote_.pid()) + "/fd", ec)) {
      std::error_code gone;
      const std::string to = fs::read_symlink(fd.path(), gone).string();
      if (!gone && to.rfind("net:", 0) == 0) nets.insert(to);
    }
    return nets;
  };
  std::vector<std::string> entered;
  for (int launch = 0; launch < 2; launch++) {
    std::set<std::string> ahead;
    const auto until = steady_clock::now() + std::chrono::seconds(30);
    while ((ahead = held()).size() < 2 && steady_clock::now() < until)
      std::this_thread::sleep_for(milliseconds(10));
    ASSERT_EQ(ahead.size(), 2u) << "the zygote made no network namespaces ahead";
    run_ = dir_ + "/run" + std::to_string(launch);  // each launch its own run directory
    fs::create_directory(run_);
    std::ofstream(run_ + "/prompt.md") << "reach the future\n";
    Plan p =
        MakeSandboxedPlan({"sh", "-c", "readlink /proc/self/ns/net; " + std::string(kNetDevices)});
    p.network = "none";
    ASSERT_TRUE(Start(p).ok());
    EXPECT_EQ(AwaitExit().rc, 0) << Slurp(run_ + "/stderr");
    std::istringstream out(Slurp(run_ + "/stdout"));
    std::string ns, devices;
    std::getline(out, ns);
    std::getline(out, devices, '\0');
    EXPECT_TRUE(ahead.count(ns)) << ns << " was not one the zygote held";
    EXPECT_EQ(devices, "lo\n");
    entered.push_back(ns);
  }
  EXPECT_NE(entered[0], entered[1]);
  EXPECT_NE(entered[0], fs::read_symlink("/proc/self/ns/net").string());
}

std::string ColdOrZygote(const ::testing::TestParamInfo<int>& info) {
  return std::string(info.param & 1 ? "Zygote" : "Cold") + (info.param & 4 ? "Begun" : "") +
         (info.param & 8 ? "WithRun" : "") + (info.param & 2 ? "Namespaces" : "");
}
INSTANTIATE_TEST_SUITE_P(Start, ShimTest, ::testing::Values(0, 1, 5, 13), ColdOrZygote);
INSTANTIATE_TEST_SUITE_P(Start, ShimTestSandbox, ::testing::Values(0, 1, 2, 3, 5, 7, 15),
                         ColdOrZygote);
INSTANTIATE_TEST_SUITE_P(Start, ShimTestMadeAhead, ::testing::Values(3, 7, 15), ColdOrZygote);
INSTANTIATE_TEST_SUITE_P(Start, ShimTestMadeBeforeGo, ::testing::Values(15), ColdOrZygote);

}  // namespace
}  // namespace hangar
