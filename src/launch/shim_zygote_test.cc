#include "launch/shim_zygote.h"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/json.h"
#include "base/scratch_dir_testutil.h"
#include "base/sha256.h"
#include "env/env.h"
#include "kernel/plan.h"
#include "launch/direct_launcher.h"
#include "launch/shim_path_testutil.h"
#include "launch/shim_start.h"
#include "shell/scan.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;
using std::chrono::steady_clock;

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Sends TEXT on SOCK as hangard makes a request: one message carrying REPORT and ANSWER.
ssize_t SendRequest(int sock, const std::string& text, int report, int answer) {
  int fds[2] = {report, answer};
  iovec iov{const_cast<char*>(text.data()), text.size()};
  alignas(cmsghdr) char buf[CMSG_SPACE(sizeof fds)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = buf;
  msg.msg_controllen = sizeof buf;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof fds);
  memcpy(CMSG_DATA(c), fds, sizeof fds);
  return sendmsg(sock, &msg, MSG_NOSIGNAL);
}

bool Gone(pid_t pid) {
  return kill(pid, 0) != 0 && errno == ESRCH;
}

// A scratch directory every user may write (the hostile test runs as nobody), with a room and a
// run directory, and plans whose drone leaves a proof file in it.
class ShimZygoteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(BuiltShimPath())) << BuiltShimPath() << ": build bin/hangar-shim first";
    ASSERT_FALSE(scratch_.path().empty());
    dir_ = scratch_.path();
    for (const std::string& d : {dir_, dir_ + "/room", dir_ + "/run"}) {
      fs::create_directories(d);
      ASSERT_EQ(chmod(d.c_str(), 0777), 0);
    }
  }
  void TearDown() override {
    for (const std::string run : {"/run", "/runA", "/runB", "/runC"})
      if (SupervisorAlive(dir_ + run)) (void)SignalSupervisor(dir_ + run, SIGKILL);
    for (int fd : opened_) close(fd);
  }  // scratch_ goes with everything in it

  // A plan whose drone writes WORD into proof (SUFFIX: proofSUFFIX, and its run directory
  // runSUFFIX); its file written, its text returned.
  // A drone that runs on for AFTER seconds; its stdin from FIFO (the supervisor's open of it
  // blocks until the test opens it too: a shim that takes its time) when given.
  std::string WritePlan(const std::string& file, const std::string& word,
                        const std::string& suffix = "", const std::string& fifo = "",
                        int after = 0) {
    Plan p;
    p.id = "M";
    p.argv = {
        "sh", "-c",
        "echo " + word + " > " + dir_ + "/proof" + suffix + "; sleep " + std::to_string(after)};
    if (!fifo.empty()) {
      EXPECT_EQ(mkfifo(fifo.c_str(), 0600), 0);
      p.stdin_path = fifo;
    }
    p.env = {{"PATH", "/usr/bin:/bin"}};
    p.room = dir_ + "/room";
    p.run = dir_ + "/run" + suffix;
    p.deadline_ms = 60000;
    p.grace_ms = 1000;
    p.sandbox.engine = "none";
    p.sandbox.write = {p.room};
    const std::string text = json::WritePretty(p.ToJson());
    std::ofstream(file) << text;
    return text;
  }

  // The proof's text once exit.json is written (the drone's end), or "" when no drone ran.
  std::string ProofAfterExit(const std::string& suffix = "") {
    const auto until = steady_clock::now() + std::chrono::seconds(30);
    while (!ReadExit(RealEnv(), dir_ + "/run" + suffix).ok() && steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream f(dir_ + "/proof" + suffix);
    std::string s;
    std::getline(f, s);
    return s;
  }

  // Lets the supervisor blocked on opening FIFO go (and keeps it from blocking again).
  void Open(const std::string& fifo) {
    int fd = open(fifo.c_str(), O_RDWR | O_CLOEXEC);  // never blocks, and is a writer
    ASSERT_GE(fd, 0);
    opened_.push_back(fd);
  }
  // Waits (30 s at most) until PATH exists.
  bool Appears(const std::string& path) {
    const auto until = steady_clock::now() + std::chrono::seconds(30);
    while (!fs::exists(path) && steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return fs::exists(path);
  }

  std::vector<int> opened_;
  ScratchDir scratch_{"zygote-test"};
  std::string dir_;
};

TEST_F(ShimZygoteTest, LaunchesGoThroughOneZygoteStartedOnce) {
  ShimZygote zygote(BuiltShimPath());
  EXPECT_EQ(zygote.pid(), -1) << "started on demand, not before";
  const std::string plan = dir_ + "/plan.json";
  ASSERT_TRUE(zygote.Start(plan, Sha256Hex(WritePlan(plan, "first"))).ok());
  EXPECT_EQ(ProofAfterExit(), "first");
  const pid_t pid = zygote.pid();
  ASSERT_GT(pid, 0);
  fs::remove(dir_ + "/run/exit.json");
  ASSERT_TRUE(zygote.Start(plan, Sha256Hex(WritePlan(plan, "second"))).ok());
  EXPECT_EQ(ProofAfterExit(), "second");
  EXPECT_EQ(zygote.pid(), pid) << "the same zygote forks the next launch's shim";
  EXPECT_EQ(zygote.taken(), 2u);
  EXPECT_EQ(Slurp("/proc/" + std::to_string(pid) + "/cmdline"),
            BuiltShimPath() + std::string("\0--zygote\0", 10));
}

// The plan the gate passed is the plan run, through the zygote as through a cold shim.
TEST_F(ShimZygoteTest, APlanChangedAfterTheGateIsNeverRunByTheZygote) {
  ShimZygote zygote(BuiltShimPath());
  ASSERT_TRUE(zygote.Ready());
  const std::string plan = dir_ + "/plan.json";
  const std::string passed = WritePlan(plan, "passed");
  WritePlan(plan, "tampered");
  Status s = zygote.Start(plan, Sha256Hex(passed));
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("changed after the gate"), std::string::npos) << s.message();
  EXPECT_EQ(zygote.taken(), 1u) << "refused by the shim it forked, not started cold";
  EXPECT_TRUE(fs::is_empty(dir_ + "/run"));
  EXPECT_FALSE(fs::exists(dir_ + "/proof"));
}

// The pids of PID's children (its main thread's).
std::string ChildrenOf(pid_t pid) {
  return Slurp("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
}

// A begun launch: the zygote's child has the plan's bytes from hangard (here no plan file exists
// at all), and runs nothing until it is told to go, then exactly that plan.
TEST_F(ShimZygoteTest, ABegunLaunchRunsItsPlanOnlyOnceToldToGo) {
  ShimZygote zygote(BuiltShimPath());
  ASSERT_TRUE(zygote.Ready());
  const std::string plan = dir_ + "/plan.json";
  const std::string text = WritePlan(plan, "begun");
  fs::remove(plan);
  std::optional<ShimZygote::Begun> begun = zygote.Begin(plan, Sha256Hex(text), text);
  ASSERT_TRUE(begun.has_value());
  const auto until = steady_clock::now() + std::chrono::seconds(10);
  while (ChildrenOf(zygote.pid()).empty() && steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_FALSE(ChildrenOf(zygote.pid()).empty()) << "the zygote forked the launch's child";
  // Ample time for a child that did not wait for its go to run the drone.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(fs::exists(dir_ + "/proof")) << "a drone ran before its go";
  EXPECT_TRUE(fs::is_empty(dir_ + "/run")) << "the run directory was touched before the go";
  Status s = zygote.Start(plan, Sha256Hex(text), std::move(begun));
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(ProofAfterExit(), "begun");
  EXPECT_EQ(zygote.taken(), 1u);
}

// A begun launch that is withdrawn (its Begun dropped: hangard's records failed, its key was
// there, hangard ended) runs nothing, and the zygote goes on with the next launch. With the zygote
// stopped (so that it cannot kill the child), the child's own reading of the withdrawal: it ends
// having run nothing.
TEST_F(ShimZygoteTest, ABegunLaunchWithdrawnRunsNothing) {
  for (const bool stopped : {false, true}) {
    SCOPED_TRACE(stopped ? "the zygote stopped" : "the zygote running");
    ShimZygote zygote(BuiltShimPath());
    ASSERT_TRUE(zygote.Ready());
    const pid_t z = zygote.pid();
    const std::string plan = dir_ + "/plan.json";
    const std::string text = WritePlan(plan, "withdrawn");
    std::string child;  // the zygote's child, "PID "
    {
      std::optional<ShimZygote::Begun> begun = zygote.Begin(plan, Sha256Hex(text), text);
      ASSERT_TRUE(begun.has_value());
      const auto until = steady_clock::now() + std::chrono::seconds(10);
      while ((child = ChildrenOf(z)).empty() && steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      ASSERT_FALSE(child.empty()) << "the zygote forked the launch's child";
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // it waits for its go now
      if (stopped) {
        ASSERT_EQ(kill(z, SIGSTOP), 0);
      }
    }  // withdrawn
    const pid_t c = std::stoi(child);
    const auto until = steady_clock::now() + std::chrono::seconds(10);
    // Ended: a zombie of the stopped zygote, or reaped by the running one.
    auto ended = [&] {
      const std::string st = Slurp("/proc/" + std::to_string(c) + "/stat");
      return st.empty() || st.find(") Z ") != std::string::npos;
    };
    while (!ended() && steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_TRUE(ended()) << "the withdrawn child ended";
    if (stopped) {
      ASSERT_EQ(kill(z, SIGCONT), 0);
    }
    // Ample time for a drone, had one been started, to leave its proof.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(fs::exists(dir_ + "/proof")) << "a withdrawn launch ran its drone";
    EXPECT_TRUE(fs::is_empty(dir_ + "/run"));
    const std::string next = WritePlan(plan, "next");
    ASSERT_TRUE(zygote.Start(plan, Sha256Hex(next)).ok());
    EXPECT_EQ(ProofAfterExit(), "next");
    EXPECT_EQ(zygote.pid(), z) << "the zygote went on";
    fs::remove(dir_ + "/proof");
    fs::remove(dir_ + "/run/exit.json");
    while (SupervisorAlive(dir_ + "/run") && steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (const auto& f : fs::directory_iterator(dir_ + "/run")) fs::remove(f.path());
  }
}

// The bytes a begun launch is handed are checked as a plan file's are: other bytes than the ones
// the gate passed are never run.
TEST_F(ShimZygoteTest, ABegunPlanChangedAfterTheGateIsNeverRun) {
  ShimZygote zygote(BuiltShimPath());
  ASSERT_TRUE(zygote.Ready());
  const std::string plan = dir_ + "/plan.json";
  const std::string passed = WritePlan(plan, "passed");
  const std::string tampered = WritePlan(plan, "tampered");
  WritePlan(plan, "passed");  // on the disk, the plan passed: only the bytes handed over differ
  std::optional<ShimZygote::Begun> begun = zygote.Begin(plan, Sha256Hex(passed), tampered);
  ASSERT_TRUE(begun.has_value());
  Status s = zygote.Start(plan, Sha256Hex(passed), std::move(begun));
  EXPECT_EQ(s.code(), Code::kInvalid) << s.message();
  EXPECT_NE(s.message().find("changed after the gate"), std::string::npos) << s.message();
  EXPECT_EQ(zygote.taken(), 1u) << "refused by the child it was handed to, not started cold";
  EXPECT_TRUE(fs::is_empty(dir_ + "/run"));
  EXPECT_FALSE(fs::exists(dir_ + "/proof"));
}

// Without a zygote running, nothing is begun (Begin never waits for one to start); the launch is
// Start's, whole.
TEST_F(ShimZygoteTest, NothingIsBegunWithoutAZygoteRunning) {
  ShimZygote zygote(BuiltShimPath());
  const std::string plan = dir_ + "/plan.json";
  const std::string text = WritePlan(plan, "whole");
  EXPECT_FALSE(zygote.Begin(plan, Sha256Hex(text), text).has_value());
  EXPECT_EQ(zygote.pid(), -1) << "Begin started no zygote";
  ASSERT_TRUE(zygote.Start(plan, Sha256Hex(text), std::nullopt).ok());
  EXPECT_EQ(ProofAfterExit(), "whole");
}

// Launches on several threads at once (the launch pool): each gets its own shim's answer.
TEST_F(ShimZygoteTest, LaunchesAtOnceEachGetTheirOwnAnswer) {
  ShimZygote zygote(BuiltShimPath());
  ASSERT_TRUE(zygote.Ready());
  constexpr int kLaunches = 6;
  std::vector<Status> said(kLaunches);
  std::vector<std::string> files(kLaunches), shas(kLaunches);
  for (int i = 0; i < kLaunches; i++) {
    const std::string n = std::to_string(i);
    fs::create_directories(dir_ + "/run" + n);
    files[i] = dir_ + "/plan" + n + ".json";
    shas[i] = Sha256Hex(WritePlan(files[i], "launch" + n, n));
    if (i % 3 == 2) WritePlan(files[i], "tampered", n);  // these are refused
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < kLaunches; i++)
    threads.emplace_back([&, i] { said[i] = zygote.Start(files[i], shas[i]); });
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kLaunches; i++) {
    const std::string n = std::to_string(i);
    if (i % 3 == 2) {
      EXPECT_EQ(said[i].code(), Code::kInvalid) << i << ": " << said[i].message();
      EXPECT_NE(said[i].message().find(files[i]), std::string::npos) << said[i].message();
      EXPECT_FALSE(fs::exists(dir_ + "/proof" + n));
    } else {
      EXPECT_TRUE(said[i].ok()) << i << ": " << said[i].message();
      EXPECT_EQ(ProofAfterExit(n), "launch" + n);
    }
  }
  EXPECT_EQ(zygote.taken(), size_t(kLaunches));
}

// A zygote that died is started anew by the next launch, and the dead one is reaped.
TEST_F(ShimZygoteTest, AZygoteThatDiedIsStartedAnew) {
  ShimZygote zygote(BuiltShimPath());
  ASSERT_TRUE(zygote.Ready());
  const pid_t dead = zygote.pid();
  ASSERT_EQ(kill(dead, SIGKILL), 0);
  const auto until = steady_clock::now() + std::chrono::seconds(10);
  while (Slurp("/proc/" + std::to_string(dead) + "/stat").find(") Z ") == std::string::npos &&
         steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const std::string plan = dir_ + "/plan.json";
  ASSERT_TRUE(zygote.Start(plan, Sha256Hex(WritePlan(plan, "anew"))).ok());
  EXPECT_EQ(ProofAfterExit(), "anew");
  EXPECT_NE(zygote.pid(), dead);
  EXPECT_EQ(zygote.taken(), 1u);
  EXPECT_EQ(waitpid(dead, nullptr, WNOHANG), -1) << "the dead one was reaped";
}

// A shim that is no zygote (it ends at once): every launch starts cold and none fails.
TEST_F(ShimZygoteTest, WithoutAZygoteALaunchStartsCold) {
  const std::string stand_in = dir_ + "/no-zygote";
  std::ofstream(stand_in) << "#!/bin/sh\n[ \"$1\" = --zygote ] && exit 1\nexec " << BuiltShimPath()
                          << " \"$@\"\n";
  ASSERT_EQ(chmod(stand_in.c_str(), 0755), 0);
  ShimZygote zygote(stand_in);
  const std::string plan = dir_ + "/plan.json";
  ASSERT_TRUE(zygote.Start(plan, Sha256Hex(WritePlan(plan, "cold"))).ok());
  EXPECT_EQ(ProofAfterExit(), "cold");
  EXPECT_EQ(zygote.taken(), 0u);
}

TEST_F(ShimZygoteTest, AZygoteLetGoRunsNothingAndIsReaped) {
  pid_t pid = -1;
  {
    ShimZygote zygote(BuiltShimPath());
    ASSERT_TRUE(zygote.Ready());
    pid = zygote.pid();
    zygote.Release();
    EXPECT_EQ(zygote.pid(), -1);
    EXPECT_TRUE(Gone(pid));
    ASSERT_TRUE(zygote.Ready()) << "a later launch starts one anew";
    pid = zygote.pid();
  }  // its destructor lets it go
  EXPECT_TRUE(Gone(pid)) << pid;
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1) << "reaped already";
  EXPECT_TRUE(fs::is_empty(dir_ + "/run"));
}

// Two launches in flight; the first ends while the second is still starting: the zygote reaps
// the one that ended, takes the next request at once, and lets the second finish (judging each
// child by its own events: one judged by another's would be waited for, or killed).
TEST_F(ShimZygoteTest, AShimThatEndsWhileAnotherIsStartingStallsNothing) {
  ShimZygote zygote(BuiltShimPath());
  ASSERT_TRUE(zygote.Ready());
  for (const char* r : {"/runA", "/runB", "/runC"}) fs::create_directories(dir_ + r);
  const std::string a = dir_ + "/a.json", b = dir_ + "/b.json", c = dir_ + "/c.json";
  const std::string sha_a = Sha256Hex(WritePlan(a, "a", "A", dir_ + "/fifoA"));
  const std::string sha_b = Sha256Hex(WritePlan(b, "b", "B", dir_ + "/fifoB"));
  const std::string sha_c = Sha256Hex(WritePlan(c, "c", "C"));
  Status said_a, said_b;
  std::thread ta([&] { said_a = zygote.Start(a, sha_a); });
  ASSERT_TRUE(Appears(dir_ + "/runA/lock")) << "A's supervisor did not start";
  std::thread tb([&] { said_b = zygote.Start(b, sha_b); });
  ASSERT_TRUE(Appears(dir_ + "/runB/lock")) << "B's supervisor did not start";
  Open(dir_ + "/fifoA");  // A ends; B still waits for its stdin
  ta.join();
  EXPECT_TRUE(said_a.ok()) << said_a.message();
  EXPECT_TRUE(zygote.Start(c, sha_c).ok());
  EXPECT_EQ(zygote.taken(), 3u) << "C started cold: the zygote was stalled";
  Open(dir_ + "/fifoB");
  tb.join();
  EXPECT_TRUE(said_b.ok()) << "B was killed for A's end: " << said_b.message();
  EXPECT_EQ(ProofAfterExit("B"), "b");
  EXPECT_EQ(ProofAfterExit("C"), "c");
}

// The zygote dies after its child took the launch: no status will come. The launch is not
// called failed (its drone may run): Unavailable, once the child has ended, when the run
// directory's lock tells the truth.
TEST_F(ShimZygoteTest, AZygoteThatDiesAfterItsChildTookTheLaunchLeavesItUnknownNotFailed) {
  ShimZygote zygote(BuiltShimPath());
  ASSERT_TRUE(zygote.Ready());
  const std::string plan = dir_ + "/plan.json";
  const std::string sha = Sha256Hex(WritePlan(plan, "ran", "", dir_ + "/fifo", 30));
  Status said;
  std::atomic<bool> returned = false;
  std::thread t([&] {
    said = zygote.Start(plan, sha);
    returned = true;
  });
  ASSERT_TRUE(Appears(dir_ + "/run/lock")) << "the supervisor did not start";
  ASSERT_EQ(kill(zygote.pid(), SIGKILL), 0);
  // The zygote's end reaches hangard's side at once; its child has not ended (its supervisor
  // waits for its stdin), so nothing can be said yet.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(returned) << "decided before the shim ended: " << said.message();
  Open(dir_ + "/fifo");
  t.join();
  EXPECT_EQ(said.code(), Code::kUnavailable) << said.message();
  EXPECT_NE(said.message().find("did not say how the shim it forked ended"), std::string::npos)
      << said.message();
  EXPECT_TRUE(SupervisorAlive(dir_ + "/run")) << "the drone runs, as the lock says";
  EXPECT_TRUE(Appears(dir_ + "/proof"));
}

// A shim that does not end within its 10 s (its supervisor waits for its stdin) is killed and
// the launch is Unavailable, as a cold one's would be; the zygote, which did nothing wrong, stays.
TEST_F(ShimZygoteTest, ASlowShimIsEndedButTheZygoteStays) {
  ShimZygote zygote(BuiltShimPath());
  ASSERT_TRUE(zygote.Ready());
  const pid_t pid = zygote.pid();
  const std::string plan = dir_ + "/plan.json";
  Status said = zygote.Start(plan, Sha256Hex(WritePlan(plan, "slow", "", dir_ + "/fifo")));
  EXPECT_EQ(said.code(), Code::kUnavailable) << said.message();
  EXPECT_EQ(zygote.pid(), pid) << "a healthy zygote was ended for a slow shim";
  EXPECT_FALSE(Gone(pid));
  EXPECT_EQ(zygote.taken(), 1u);
  // The supervisor the ended shim had forked still waits for its stdin, before its lock and
  // shim.json, where TearDown cannot find it: let it go and see it end, so that it does not
  // outlive the test, blocked for ever (as one did after every run of this test).
  Open(dir_ + "/fifo");
  EXPECT_EQ(ProofAfterExit(), "slow");
}

// ps(1) and pkill(1) tell the zygote from the supervisors it forked.
TEST_F(ShimZygoteTest, TheZygotesChildrenDoNotShowItsCommandLine) {
  ShimZygote zygote(BuiltShimPath());
  const std::string plan = dir_ + "/plan.json";
  ASSERT_TRUE(zygote.Start(plan, Sha256Hex(WritePlan(plan, "ran", "", "", 30))).ok());
  Result<json::Value> shim = json::Parse(Slurp(dir_ + "/run/shim.json"));
  ASSERT_TRUE(shim.ok());
  const std::string supervisor = std::to_string(shim->find("shim_pid")->as_int());
  EXPECT_EQ(Slurp("/proc/" + supervisor + "/cmdline"),
            BuiltShimPath() + std::string("\0--forked\0", 10));
  EXPECT_EQ(Slurp("/proc/" + std::to_string(zygote.pid()) + "/cmdline"),
            BuiltShimPath() + std::string("\0--zygote\0", 10));
}

// A zygote that takes requests but answers none (stopped) is ended and replaced; the launch
// starts cold meanwhile. (Ten seconds: the time a shim has to answer.)
TEST_F(ShimZygoteTest, AStuckZygoteIsReplacedAndTheLaunchStartsCold) {
  ShimZygote zygote(BuiltShimPath());
  ASSERT_TRUE(zygote.Ready());
  const pid_t stuck = zygote.pid();
  ASSERT_EQ(kill(stuck, SIGSTOP), 0);
  const std::string plan = dir_ + "/plan.json";
  ASSERT_TRUE(zygote.Start(plan, Sha256Hex(WritePlan(plan, "cold"))).ok());
  EXPECT_EQ(ProofAfterExit(), "cold");
  EXPECT_EQ(zygote.taken(), 0u);
  EXPECT_TRUE(Gone(stuck)) << "the stuck zygote was not ended";
  ASSERT_TRUE(zygote.Ready());
  EXPECT_NE(zygote.pid(), stuck);
}

// The protocol itself: a request that is not a plan's file and sha256 with two descriptors is
// refused (its answer closed unanswered, why on stderr), and the zygote goes on with the next.
TEST_F(ShimZygoteTest, ARequestThatIsNotAPlanIsRefusedAndTheZygoteGoesOn) {
  int control[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, control), 0);
  Result<ShimChild> z = SpawnShim(BuiltShimPath(), {"--zygote"}, control[0]);
  close(control[0]);
  ASSERT_TRUE(z.ok()) << z.status().message();
  // One request: TEXT with a fresh report memfd and answer socket; what comes back on the answer.
  auto ask = [&](const std::string& text) {
    int report = memfd_create("report", MFD_CLOEXEC), answer[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, answer), 0);
    EXPECT_EQ(SendRequest(control[1], text, report, answer[1]), ssize_t(text.size()));
    close(report);
    close(answer[1]);
    std::string got;
    char m[64];
    for (ssize_t n; (n = recv(answer[0], m, sizeof m, 0)) > 0;)
      got += std::string(m, size_t(n)) + "|";
    close(answer[0]);
    return got;
  };
  EXPECT_EQ(ask("one line only\n"), "") << "refused: its answer ends unanswered";
  const std::string plan = dir_ + "/plan.json";
  const std::string sha = Sha256Hex(WritePlan(plan, "next"));
  EXPECT_EQ(ask(plan + "\n" + sha + "\n"), "y|s 0|") << "taken, then its first process's status";
  EXPECT_EQ(ProofAfterExit(), "next");
  close(control[1]);  // the end of its stdin: it ends
  Status s = AwaitShim(*z, "zygote");
  EXPECT_TRUE(s.ok()) << s.message();
}

// Hostile: a process of the zygote's own user (not root, who may do anything to it) tries to hand
// it a plan of its own, by opening the zygote's stdin through /proc, and by taking a copy of the
// descriptor (pidfd_getfd). Either would run its drone, outside any sandbox, and leave the proof
// file. The zygote's stdin is a socket: /proc cannot open it, and what is sent into a copy of the
// zygote's end reaches hangard's end, not the zygote.
TEST_F(ShimZygoteTest, ASameUserProcessCannotHandTheZygoteAPlan) {
  const std::string evil = dir_ + "/evil.json";
  const std::string line = evil + "\n" + Sha256Hex(WritePlan(evil, "pwned")) + "\n";
  ASSERT_EQ(chmod(evil.c_str(), 0644), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
                           setresuid(65534, 65534, 65534) != 0))
      _exit(10);
    int code = 0;
    {
      ShimZygote zygote(BuiltShimPath());  // hangard's part, run as the same user
      if (!zygote.Ready()) _exit(11);
      const pid_t z = zygote.pid();
      const std::string in = "/proc/" + std::to_string(z) + "/fd/0";
      if (int fd = open(in.c_str(), O_WRONLY | O_CLOEXEC); fd >= 0) {
        code |= 1;
        (void)!write(fd, line.data(), line.size());
        close(fd);
      }
      int pidfd = int(syscall(SYS_pidfd_open, z, 0));
      int copy = pidfd >= 0 ? int(syscall(SYS_pidfd_getfd, pidfd, 0, 0)) : -1;
      if (copy >= 0) {
        code |= 2;
        // A request as hangard makes it, with a report file and an answer socket.
        int report = memfd_create("report", MFD_CLOEXEC), answer[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, answer) == 0 && report >= 0) {
          (void)SendRequest(copy, line, report, answer[1]);
        }
        close(copy);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }  // let go
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_LT(WEXITSTATUS(status), 10) << "the test could not set itself up";
  EXPECT_EQ(WEXITSTATUS(status) & 1, 0) << "its stdin opened through /proc";
  // Had the zygote been handed the plan, its shim would have taken run/lock before the zygote was
  // let go (it ends only once its children have), and its drone would leave the proof.
  EXPECT_FALSE(fs::exists(dir_ + "/run/lock")) << "the zygote ran a plan not from hangard";
  if (fs::exists(dir_ + "/run/lock")) {
    EXPECT_EQ(ProofAfterExit(), "");
  }
}

}  // namespace
}  // namespace hangar
