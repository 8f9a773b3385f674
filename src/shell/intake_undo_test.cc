// A full disk at intake (issue 6): an intake that fails for lack of space is undone, the drop left
// or put back in incoming/new; and what of a launch is the spool's failure, not the mission's.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "env/fault_env.h"
#include "shell/transitions.h"

namespace hangar {
namespace {

class IntakeUndoTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"intake_undo"};
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    l_ = Layout::Make(scratch_.path(), "");
    for (const std::string& d : l_.AllDirs()) std::filesystem::create_directories(d);
    std::ofstream(l_.IncomingNew() + "/m.json") << "{raw}";
  }
  static FaultPlan Fail(uint64_t at, int error) {
    FaultPlan p;
    p.kind = FaultPlan::Kind::kFail;
    p.at = at;
    p.error = error;
    return p;
  }
  Intake In() const {
    return Intake{"m.json",
                  "M",
                  Phase::kQueued,
                  {{"gate1.json", "{}\n"}, {"intake.json", "{}\n"}},
                  std::nullopt};
  }
  std::string Tmp() const { return l_.StateDir(Phase::kQueued) + "/.M.tmp"; }
  Layout l_;
};

TEST(NoSpace, OnlyAFullDiskOrQuota) {
  EXPECT_TRUE(NoSpace(Status::Errno("write x", ENOSPC)));
  EXPECT_TRUE(NoSpace(Status::Errno("write x", EDQUOT)));
  EXPECT_FALSE(NoSpace(Status::Errno("write x", EIO)));
  EXPECT_FALSE(NoSpace(Status::Io("cannot write x: No space left on device")));
  EXPECT_FALSE(NoSpace(Status::Ok()));
}

// Calls of an intake (shell/transitions.h PerformIntakes): 1 mkdir .M.tmp, 2 sync queued/, 3 its
// files (one write-files call), 4 rename of the drop into it, 5 sync .M.tmp and incoming/new,
// 6 rename into place, 7 sync queued/. Whichever of 1-6 fails, the undo leaves the drop in
// incoming/new and no .M.tmp; after 7 the mission is in place, not known durable, and not undone.
TEST_F(IntakeUndoTest, EveryStepUndoneLeavesTheDropInIncoming) {
  {
    FaultEnv env(RealEnv(), Fail(7, ENOSPC));
    Status s = PerformIntake(&env, l_, In());
    EXPECT_TRUE(NoSpace(s)) << s.message();
    EXPECT_EQ(UndoIntake(RealEnv(), l_, In()).code(), Code::kNotFound);
    EXPECT_TRUE(RealEnv()->Exists(l_.MissionDir(Phase::kQueued, "M") + "/mission.json"));
    std::filesystem::rename(l_.MissionDir(Phase::kQueued, "M") + "/mission.json",
                            l_.IncomingNew() + "/m.json");
    std::filesystem::remove_all(l_.MissionDir(Phase::kQueued, "M"));
  }
  for (uint64_t at = 1; at <= 6; ++at) {
    FaultEnv env(RealEnv(), Fail(at, ENOSPC));
    Status s = PerformIntake(&env, l_, In());
    ASSERT_FALSE(s.ok()) << "call " << at;
    EXPECT_TRUE(NoSpace(s)) << s.message();
    Status u = UndoIntake(RealEnv(), l_, In());
    EXPECT_TRUE(u.ok()) << "call " << at << ": " << u.message();
    EXPECT_TRUE(RealEnv()->Exists(l_.IncomingNew() + "/m.json")) << "call " << at;
    EXPECT_FALSE(RealEnv()->Exists(Tmp())) << "call " << at;
    EXPECT_FALSE(RealEnv()->Exists(l_.MissionDir(Phase::kQueued, "M"))) << "call " << at;
  }
}

TEST_F(IntakeUndoTest, ANewerDropOfTheSameNameIsKept) {
  FaultEnv env(RealEnv(), Fail(5, ENOSPC));  // the drop is inside .M.tmp
  ASSERT_FALSE(PerformIntake(&env, l_, In()).ok());
  std::ofstream(l_.IncomingNew() + "/m.json") << "{newer}";
  ASSERT_TRUE(UndoIntake(RealEnv(), l_, In()).ok());
  Result<std::string> back = RealEnv()->ReadFile(l_.IncomingNew() + "/m.json.recovered.1", 100);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, "{raw}");
}

TEST_F(IntakeUndoTest, AnIntakeInPlaceIsNotUndone) {
  ASSERT_TRUE(PerformIntake(RealEnv(), l_, In()).ok());
  Status u = UndoIntake(RealEnv(), l_, In());
  EXPECT_EQ(u.code(), Code::kNotFound) << u.message();
  EXPECT_TRUE(RealEnv()->Exists(l_.MissionDir(Phase::kQueued, "M") + "/mission.json"));
}

TEST_F(IntakeUndoTest, ALaunchWhoseSpoolWriteFailsIsAStorageFailure) {
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "L"));
  Launch launch;
  launch.id = "L";
  launch.attempt = 1;
  launch.plan.room = l_.Room("L");
  // plan.json, after the room, its ops/, run/ and the prompt: no key is taken after it.
  FaultEnv env(RealEnv(), Fail(5, EIO));
  LaunchPrep r = PrepareLaunch(&env, l_, launch, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.storage.ok());
  EXPECT_EQ(r.storage.sys_errno(), EIO);
  EXPECT_FALSE(RealEnv()->Exists(l_.LaunchKey("L", 1)));

  // A room that cannot be made is the mission's failure, not the spool's.
  std::ofstream(l_.Room("P")) << "a file where the room should be";
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "P"));
  launch.id = "P";
  launch.plan.room = l_.Room("P");
  launch.plan_text = "{P}";
  r = PrepareLaunch(RealEnv(), l_, launch, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.storage.ok()) << r.storage.message();
  // It takes no key, and its plan.json says what was tried.
  EXPECT_FALSE(RealEnv()->Exists(l_.LaunchKey("P", 1)));
  Result<std::string> plan =
      RealEnv()->ReadFile(l_.MissionDir(Phase::kQueued, "P") + "/plan.json", 100);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(*plan, "{P}");

  // So is a MISSION.md that cannot be written into the room (a directory there, in a retry's
  // room the drone before could write).
  std::filesystem::create_directories(l_.Room("Q") + "/MISSION.md/inside");
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "Q"));
  launch.id = "Q";
  launch.plan.room = l_.Room("Q");
  launch.plan.prompt_in_room = true;
  launch.plan_text = "{Q}";
  r = PrepareLaunch(RealEnv(), l_, launch, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.storage.ok()) << r.storage.message();
  EXPECT_NE(r.error.find("MISSION.md"), std::string::npos) << r.error;
  EXPECT_FALSE(RealEnv()->Exists(l_.LaunchKey("Q", 1)));
  EXPECT_TRUE(RealEnv()->Exists(l_.MissionDir(Phase::kQueued, "Q") + "/plan.json"));
}

}  // namespace
}  // namespace hangar
