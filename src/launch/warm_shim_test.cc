#include "launch/warm_shim.h"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
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

bool Gone(pid_t pid) {
  return kill(pid, 0) != 0 && errno == ESRCH;
}

// A scratch directory every user may write (the hostile test runs as nobody), with a room and a
// run directory, and plans whose drone leaves a proof file in it.
class WarmShimTest : public ::testing::Test {
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
    if (SupervisorAlive(dir_ + "/run")) (void)SignalSupervisor(dir_ + "/run", SIGKILL);
  }  // scratch_ goes with everything in it

  // A plan whose drone writes WORD into proof; its file written, its text returned.
  std::string WritePlan(const std::string& file, const std::string& word) {
    Plan p;
    p.id = "M";
    p.argv = {"sh", "-c", "echo " + word + " > " + dir_ + "/proof"};
    p.env = {{"PATH", "/usr/bin:/bin"}};
    p.room = dir_ + "/room";
    p.run = dir_ + "/run";
    p.deadline_ms = 60000;
    p.grace_ms = 1000;
    p.sandbox.engine = "none";
    p.sandbox.write = {p.room};
    const std::string text = json::WritePretty(p.ToJson());
    std::ofstream(file) << text;
    return text;
  }

  // The proof's text once exit.json is written (the drone's end), or "" when no drone ran.
  std::string ProofAfterExit() {
    const auto until = steady_clock::now() + std::chrono::seconds(30);
    while (!ReadExit(RealEnv(), dir_ + "/run").ok() && steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream f(dir_ + "/proof");
    std::string s;
    std::getline(f, s);
    return s;
  }

  ScratchDir scratch_{"warm-test"};
  std::string dir_;
};

TEST_F(WarmShimTest, ALaunchGoesThroughAShimStartedAheadAndStartsColdWithoutOne) {
  WarmShims warm(BuiltShimPath());
  const std::string plan = dir_ + "/plan.json";
  ASSERT_TRUE(warm.Start(plan, Sha256Hex(WritePlan(plan, "cold"))).ok());  // none waited
  EXPECT_EQ(ProofAfterExit(), "cold");
  EXPECT_TRUE(warm.waiting().empty()) << "a launch leaves no shim behind";
  fs::remove(dir_ + "/run/exit.json");
  warm.Warm();
  std::vector<pid_t> before = warm.waiting();
  ASSERT_EQ(before.size(), 1u);
  ASSERT_TRUE(warm.Start(plan, Sha256Hex(WritePlan(plan, "warm"))).ok());
  EXPECT_EQ(ProofAfterExit(), "warm");
  EXPECT_TRUE(Gone(before[0])) << "the shim that waited was used and reaped";
  EXPECT_TRUE(warm.waiting().empty());
}

// The plan the gate passed is the plan run, through a waiting shim as through a cold one.
TEST_F(WarmShimTest, APlanChangedAfterTheGateIsNeverRunByAWaitingShim) {
  WarmShims warm(BuiltShimPath());
  warm.Warm();
  const std::string plan = dir_ + "/plan.json";
  const std::string passed = WritePlan(plan, "passed");
  WritePlan(plan, "tampered");
  Status s = warm.Start(plan, Sha256Hex(passed));
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("changed after the gate"), std::string::npos) << s.message();
  EXPECT_TRUE(fs::is_empty(dir_ + "/run"));
  EXPECT_FALSE(fs::exists(dir_ + "/proof"));
}

TEST_F(WarmShimTest, ShimsLetGoRunNothingAndAreReaped) {
  std::vector<pid_t> pids;
  {
    WarmShims warm(BuiltShimPath());
    warm.Warm();
    warm.Warm();
    pids = warm.waiting();
    ASSERT_EQ(pids.size(), 2u);
    for (size_t i = 0; i < 2 * WarmShims::kMaxWaiting; i++) warm.Warm();
    EXPECT_EQ(warm.waiting().size(), WarmShims::kMaxWaiting);
  }  // its destructor lets them go
  for (pid_t pid : pids) {
    EXPECT_TRUE(Gone(pid)) << pid;
    EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1) << "reaped already";
  }
  EXPECT_TRUE(fs::is_empty(dir_ + "/run"));
}

TEST_F(WarmShimTest, WarmSoonStartsAShimOnItsOwnThreadUntilReleased) {
  WarmShims warm(BuiltShimPath());
  warm.WarmSoon();
  warm.WarmSoon();
  const auto until = steady_clock::now() + std::chrono::seconds(30);
  while (warm.waiting().size() < 2 && steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::vector<pid_t> pids = warm.waiting();
  ASSERT_EQ(pids.size(), 2u);
  warm.Release();
  for (pid_t pid : pids) EXPECT_TRUE(Gone(pid)) << pid;
  warm.WarmSoon();  // released: nothing more is started
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(warm.waiting().empty());
}

TEST_F(WarmShimTest, AShimGoneBeforeItsPlanCameGivesWayToAColdStart) {
  WarmShims warm(BuiltShimPath());
  warm.Warm();
  const pid_t waiting = warm.waiting().at(0);
  ASSERT_EQ(kill(waiting, SIGKILL), 0);
  const std::string plan = dir_ + "/plan.json";
  ASSERT_TRUE(warm.Start(plan, Sha256Hex(WritePlan(plan, "cold"))).ok());
  EXPECT_EQ(ProofAfterExit(), "cold");
  EXPECT_EQ(waitpid(waiting, nullptr, WNOHANG), -1) << "the dead one was reaped";
}

TEST_F(WarmShimTest, AnythingButAPlanAndItsSha256OnStdinIsRefused) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  Result<ShimChild> child = SpawnShim(BuiltShimPath(), {"--warm"}, p[0]);
  close(p[0]);
  ASSERT_TRUE(child.ok()) << child.status().message();
  ASSERT_EQ(write(p[1], "one line only\n", 14), 14);
  close(p[1]);
  Status s = AwaitShim(*child, "stdin");
  EXPECT_EQ(s.code(), Code::kInvalid);  // exit 64, as a refused plan
  EXPECT_NE(s.message().find("expected PLAN_FILE and SHA256"), std::string::npos) << s.message();
}

// Hostile: a process of the waiting shim's own user (not root, who may do anything to it) tries to
// hand it a plan of its own, by opening the shim's stdin through /proc, and by taking a copy of
// the descriptor (pidfd_getfd). Either would run its drone, outside any sandbox, and leave the
// proof file. The shim's stdin is a socket: /proc cannot open it, and what is written into a copy
// of the shim's end reaches hangard's end, not the shim.
TEST_F(WarmShimTest, ASameUserProcessCannotHandAWaitingShimAPlan) {
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
      WarmShims warm(BuiltShimPath());  // hangard's part, run as the same user
      warm.Warm();
      std::vector<pid_t> w = warm.waiting();
      if (w.size() != 1) _exit(11);
      // Its stdin is what it waits on from its exec on (the spawn sets it): one try tells.
      const std::string in = "/proc/" + std::to_string(w[0]) + "/fd/0";
      if (int fd = open(in.c_str(), O_WRONLY | O_CLOEXEC); fd >= 0) {
        code |= 1;
        (void)!write(fd, line.data(), line.size());
        close(fd);
      }
      int pidfd = int(syscall(SYS_pidfd_open, w[0], 0));
      int copy = pidfd >= 0 ? int(syscall(SYS_pidfd_getfd, pidfd, 0, 0)) : -1;
      if (copy >= 0) {
        code |= 2;
        (void)!write(copy, line.data(), line.size());
        close(copy);
      }
    }  // let go: a shim that was handed the evil plan runs it now
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_LT(WEXITSTATUS(status), 10) << "the test could not set itself up";
  EXPECT_EQ(WEXITSTATUS(status) & 1, 0) << "its stdin opened through /proc";
  // The shim let go was reaped: had it been handed the plan, its supervisor would have taken
  // run/lock before the shim's first process ended, and its drone would leave the proof.
  EXPECT_FALSE(fs::exists(dir_ + "/run/lock")) << "the waiting shim ran a plan not from hangard";
  if (fs::exists(dir_ + "/run/lock")) {
    EXPECT_EQ(ProofAfterExit(), "");
  }
}

}  // namespace
}  // namespace hangar
