#include "launch/direct_launcher.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/sha256.h"
#include "env/env.h"
#include "launch/shim_path_testutil.h"
#include "shell/proc.h"
#include "shell/scan.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

class DirectLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hangar-launcher-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    run_ = tmpl;
  }
  void TearDown() override {
    if (child_ > 0) {
      kill(child_, SIGKILL);
      waitpid(child_, nullptr, 0);
    }
    fs::remove_all(run_);
  }

  // A process of our own to stand in for a supervisor: its identity goes into shim.json.
  pid_t SpawnSleeper() {
    child_ = fork();
    if (child_ == 0) {
      execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
      _exit(127);
    }
    return child_;
  }

  void WriteShimJson(pid_t pid, uint64_t start) {
    std::ofstream(run_ + "/shim.json")
        << "{\"hangar\":1,\"shim_pid\":" << pid << ",\"shim_start\":" << start
        << ",\"drone_pid\":1,\"drone_start\":1,\"started\":\"x\"}";
  }

  std::string Shim() const { return BuiltShimPath(); }

  std::string run_;
  pid_t child_ = -1;
};

TEST_F(DirectLauncherTest, BadPlanIsRefusedAndNothingIsWritten) {
  // A plan without a deadline; its run directory is this test's directory.
  const std::string plan = run_ + "/../" + fs::path(run_).filename().string() + ".plan.json";
  const std::string text =
      R"({"hangar":1,"id":"M","attempt":1,"launcher":"direct","argv":["true"],"env":{},"room":")" +
      run_ + R"(","run":")" + run_ + R"(","stdin":"","prompt_in_room":false,
      "last_message":"","network":"none","deadline_ms":0,"grace_ms":0,
      "sandbox":{"engine":"none","bwrap":"","hide":[],"landlock_abi":0,"write":[")" +
      run_ + R"("]}})";
  std::ofstream(plan) << text;
  Status s = StartShim(Shim(), plan, Sha256Hex(text));
  fs::remove(plan);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_EQ(s.message(), "cannot read plan " + plan +
                             ": plan.json: deadline_ms: a plan without a deadline is never run");
  EXPECT_TRUE(fs::is_empty(run_));
}

TEST_F(DirectLauncherTest, PlanThatIsNotJsonIsRefused) {
  std::ofstream(run_ + "/plan.json") << "{not json";
  EXPECT_EQ(StartShim(Shim(), run_ + "/plan.json", Sha256Hex("{not json")).code(), Code::kInvalid);
  EXPECT_EQ(StartShim(Shim(), run_ + "/absent.json", Sha256Hex("")).code(), Code::kInvalid);
}

// Regression (the plan the gate passed is the plan run): a plan.json changed after the gate hashed
// it is refused by the shim, and nothing is started or written.
TEST_F(DirectLauncherTest, PlanChangedAfterTheGateIsNeverRun) {
  const std::string plan = run_ + "/../" + fs::path(run_).filename().string() + ".tampered.json";
  const std::string passed =
      R"({"hangar":1,"id":"M","attempt":1,"launcher":"direct","argv":["true"],"env":{},"room":")" +
      run_ + R"(","run":")" + run_ + R"(","stdin":"","prompt_in_room":false,
      "last_message":"","network":"none","deadline_ms":60000,"grace_ms":1000})";
  std::string tampered = passed;
  tampered.replace(tampered.find("[\"true\"]"), 8, "[\"/bin/sh\",\"-c\",\"touch x\"]");
  std::ofstream(plan) << tampered;
  Status s = StartShim(Shim(), plan, Sha256Hex(passed));
  fs::remove(plan);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("changed after the gate"), std::string::npos) << s.message();
  EXPECT_TRUE(fs::is_empty(run_));
}

TEST_F(DirectLauncherTest, MissingShimBinaryIsAnError) {
  Status s = StartShim(run_ + "/no-such-shim", run_ + "/plan.json", Sha256Hex(""));
  EXPECT_EQ(s.code(), Code::kIo);
  EXPECT_NE(s.message().find("no-such-shim"), std::string::npos) << s.message();
}

TEST_F(DirectLauncherTest, AliveWhileSomeoneHoldsTheLock) {
  EXPECT_FALSE(SupervisorAlive(run_));       // no lock file
  EXPECT_FALSE(fs::exists(run_ + "/lock"));  // and the probe created none
  int fd = open((run_ + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  EXPECT_FALSE(SupervisorAlive(run_));  // a lock file nobody locks
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  EXPECT_TRUE(SupervisorAlive(run_));
  EXPECT_TRUE(SupervisorAlive(run_));  // the probe let go of nothing it did not take
  close(fd);
  EXPECT_FALSE(SupervisorAlive(run_));
}

TEST_F(DirectLauncherTest, SignalNeedsShimJson) {
  EXPECT_EQ(SignalSupervisor(run_, SIGTERM).code(), Code::kNotFound);
  std::ofstream(run_ + "/shim.json") << "{\"hangar\":1,\"shim_pid\":\"12\"}";
  EXPECT_EQ(SignalSupervisor(run_, SIGTERM).code(), Code::kInvalid);
  std::ofstream(run_ + "/shim.json") << "{\"hangar\":2,\"shim_pid\":12,\"shim_start\":5}";
  EXPECT_EQ(SignalSupervisor(run_, SIGTERM).code(), Code::kInvalid);
}

TEST_F(DirectLauncherTest, SignalReachesExactlyTheNamedProcess) {
  pid_t pid = SpawnSleeper();
  std::optional<uint64_t> start;
  for (int i = 0; i < 500 && !start; i++) start = ProcStartTime(pid);
  ASSERT_TRUE(start);

  // Same pid, another start time: a reused pid. It must not be touched.
  WriteShimJson(pid, *start + 1);
  EXPECT_EQ(SignalSupervisor(run_, SIGTERM).code(), Code::kUnavailable);
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), 0);

  WriteShimJson(pid, *start);
  ASSERT_TRUE(SignalSupervisor(run_, SIGTERM).ok());
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  child_ = -1;
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(SignalSupervisor(run_, SIGTERM).code(), Code::kUnavailable);  // gone now
}

TEST_F(DirectLauncherTest, ExitInfoIsNotFoundUntilWritten) {
  EXPECT_EQ(ReadExit(RealEnv(), run_).status().code(), Code::kNotFound);
  std::ofstream(run_ + "/exit.json") << "{\"hangar\":1}";
  EXPECT_EQ(ReadExit(RealEnv(), run_).status().code(), Code::kInvalid);
}

}  // namespace
}  // namespace hangar
