// The shell's side of hangar retry on a scratch spool: what it reads of a returned mission for the
// kernel (outcome, attempt, whether anything of the attempt lives), and the move back to queued/,
// struck by a crash at each of its durable steps: the mission is then in exactly one state
// directory, and recovery either completes the retry or finds it never happened.
#include "shell/retry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "env/fault_env.h"
#include "shell/proc.h"
#include "shell/scan.h"
#include "shell/transitions.h"

namespace hangar {
namespace {

// No return.json left in running/ is backed by the ledger (none of these tests has a ledger).
const ReturnBacked kBacksNone = [](const std::string&, const std::string&) { return false; };

class RetryShellTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"retry"};
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    l_ = Layout::Make(scratch_.path(), "");
    for (const std::string& d : l_.AllDirs()) std::filesystem::create_directories(d);
  }

  // returned/M as attempt 1 left it: lost, with its run directory and the window's ops/.
  void Returned(const std::string& shim_json = "") {
    const std::string d = l_.MissionDir(Phase::kReturned, "M");
    std::filesystem::create_directories(d + "/run");
    std::filesystem::create_directories(d + "/ops/keys");
    Write(d + "/mission.json", "{mission}");
    Write(d + "/intake.json",
          R"({"hangar":1,"id":"M","sha256":"abc","time":"2027-01-15T08:00:00.000Z"})");
    Write(d + "/launch.json", R"({"hangar":1,"id":"M","attempt":1})");
    Write(d + "/plan.json", "{plan}");
    Write(d + "/gate2.json", "{gate2}");
    Write(d + "/return.json", R"({"hangar":1,"id":"M","attempt":1,"outcome":"lost","exit":null})");
    Write(d + "/run/stdout", "attempt 1 said this");
    Write(d + "/ops/keys/k.json", "{key}");
    if (!shim_json.empty()) Write(d + "/run/shim.json", shim_json);
  }
  void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
  bool Has(Phase p, const std::string& rel) {
    return RealEnv()->Exists(l_.MissionDir(p, "M") + (rel.empty() ? "" : "/" + rel));
  }
  int StatesHolding() {
    int n = 0;
    for (Phase p : kAllPhases) n += Has(p, "") ? 1 : 0;
    return n;
  }
  static bool NoLock(const std::string&) { return false; }

  Retry Action() {
    Retry r;
    r.id = "M";
    r.previous = 1;
    r.files["retry.json"] = R"({"hangar":1,"id":"M","attempt":2,"previous":1,"ledger_seq":9})";
    return r;
  }

  Layout l_;
};

TEST_F(RetryShellTest, FactsSayOutcomeAttemptAndThatNothingLives) {
  Returned(
      R"({"hangar":1,"shim_pid":999999999,"shim_start":1,"drone_pid":999999998,"drone_start":1})");
  RetryFacts f = ReadRetryFacts(RealEnv(), l_, "M", "/", NoLock);
  EXPECT_EQ(f.read_error, "");
  EXPECT_EQ(f.outcome, "lost");
  EXPECT_FALSE(f.ran);
  EXPECT_EQ(f.attempt, 1);
  EXPECT_EQ(f.mission_bytes, "{mission}");
  EXPECT_EQ(f.intake_sha256, "abc");
  EXPECT_NE(f.accepted, 0);
  EXPECT_EQ(f.alive, "");
}

TEST_F(RetryShellTest, AHeldLockOrALiveProcessOfTheAttemptMayBeAlive) {
  // This very process stands for the shim: same pid, same start time.
  const std::string me = std::to_string(getpid());
  const std::string start = std::to_string(*ProcStartTime(getpid()));
  Returned(R"({"hangar":1,"shim_pid":)" + me + R"(,"shim_start":)" + start + "}");
  RetryFacts f = ReadRetryFacts(RealEnv(), l_, "M", "/", NoLock);
  EXPECT_NE(f.alive.find("its shim (pid " + me), std::string::npos) << f.alive;
  // The same pid with another start time is another process: not the attempt's.
  Write(l_.MissionDir(Phase::kReturned, "M") + "/run/shim.json",
        R"({"hangar":1,"drone_pid":)" + me + R"(,"drone_start":1})");
  EXPECT_EQ(ReadRetryFacts(RealEnv(), l_, "M", "/", NoLock).alive, "");
  f = ReadRetryFacts(RealEnv(), l_, "M", "/", [](const std::string&) { return true; });
  EXPECT_NE(f.alive.find("its supervisor holds"), std::string::npos) << f.alive;
  Write(l_.MissionDir(Phase::kReturned, "M") + "/run/shim.json", "{torn");
  EXPECT_NE(ReadRetryFacts(RealEnv(), l_, "M", "/", NoLock).alive.find("cannot be told"),
            std::string::npos);
}

TEST_F(RetryShellTest, AMissingReturnIsAReadError) {
  std::filesystem::create_directories(l_.MissionDir(Phase::kReturned, "M"));
  EXPECT_NE(ReadRetryFacts(RealEnv(), l_, "M", "/", NoLock).read_error, "");
}

TEST_F(RetryShellTest, RetryKeepsAttemptOneUnderAttemptsAndQueuesTheMission) {
  Returned();
  ASSERT_TRUE(PerformRetry(RealEnv(), l_, Action()).ok());
  EXPECT_EQ(StatesHolding(), 1);
  ASSERT_TRUE(Has(Phase::kQueued, ""));
  for (const char* f : {"launch.json", "plan.json", "gate2.json", "return.json", "run/stdout"}) {
    EXPECT_TRUE(Has(Phase::kQueued, std::string("attempts/1/") + f)) << f;
    EXPECT_FALSE(Has(Phase::kQueued, f)) << f;
  }
  EXPECT_TRUE(Has(Phase::kQueued, "retry.json"));
  EXPECT_TRUE(Has(Phase::kQueued, "mission.json"));
  EXPECT_TRUE(Has(Phase::kQueued, "ops/keys/k.json"));  // the window's keys stay with the mission
  std::vector<std::string> log;
  Result<std::vector<Recovered>> rec = RecoverMissions(RealEnv(), l_, "/", 0, NoLock, &log);
  ASSERT_TRUE(rec.ok());
  ASSERT_EQ(rec->size(), 1u);
  EXPECT_EQ((*rec)[0].phase, Phase::kQueued);
  EXPECT_EQ((*rec)[0].attempt, 1);  // launched next as attempt 2
  // Cancelled while queued, cut short after its return.json: that is a return, not a retry.
  Write(l_.MissionDir(Phase::kQueued, "M") + "/return.json", R"({"outcome":"cancelled"})");
  ASSERT_TRUE(RecoverIntakes(RealEnv(), l_, kBacksNone).ok());
  EXPECT_TRUE(Has(Phase::kReturned, "return.json"));
  EXPECT_TRUE(Has(Phase::kReturned, "attempts/1/return.json"));
  EXPECT_EQ(StatesHolding(), 1);
}

// A crash just before mutating call N of the retry (every call from N on fails, as if the process
// had ended there), then a restart's recovery on the real Env.
TEST_F(RetryShellTest, ACrashAtAnyStepLeavesOneStateThatRecoveryCompletesOrUndoes) {
  bool completed_once = false, undone_once = false;
  for (uint64_t n = 1;; ++n) {
    std::filesystem::remove_all(l_.MissionDir(Phase::kReturned, "M"));
    std::filesystem::remove_all(l_.MissionDir(Phase::kQueued, "M"));
    Returned();
    FaultPlan plan;
    plan.kind = FaultPlan::Kind::kFail;
    plan.at = n;
    plan.error = EIO;
    plan.sticky = true;
    FaultEnv fault(RealEnv(), plan);
    const bool finished = PerformRetry(&fault, l_, Action()).ok();
    Result<std::vector<std::string>> fixed = RecoverIntakes(RealEnv(), l_, kBacksNone);
    ASSERT_TRUE(fixed.ok()) << fixed.status().message();
    EXPECT_EQ(StatesHolding(), 1) << "crash at call " << n;
    if (Has(Phase::kQueued, "")) {
      // Done: the last return kept, none on top (it would send the mission back to returned/).
      completed_once = true;
      EXPECT_TRUE(Has(Phase::kQueued, "attempts/1/return.json")) << n;
      EXPECT_FALSE(Has(Phase::kQueued, "return.json")) << n;
      EXPECT_TRUE(Has(Phase::kQueued, "retry.json")) << n;
    } else {
      // Never happened: still returned with its return.json; what moved is under attempts/1.
      undone_once = true;
      ASSERT_TRUE(Has(Phase::kReturned, "return.json")) << n;
      EXPECT_FALSE(Has(Phase::kReturned, "retry.json")) << n;
      for (const char* f : {"launch.json", "plan.json", "gate2.json", "run/stdout"})
        EXPECT_TRUE(Has(Phase::kReturned, f) ||
                    Has(Phase::kReturned, std::string("attempts/1/") + f))
            << f << " lost at call " << n;
      // A second retry after the restart completes from there.
      ASSERT_TRUE(PerformRetry(RealEnv(), l_, Action()).ok()) << n;
      EXPECT_TRUE(Has(Phase::kQueued, "attempts/1/return.json")) << n;
      EXPECT_TRUE(Has(Phase::kQueued, "attempts/1/launch.json")) << n;
    }
    if (finished) break;
    ASSERT_LT(n, 50u);
  }
  EXPECT_TRUE(completed_once);
  EXPECT_TRUE(undone_once);
}

}  // namespace
}  // namespace hangar
