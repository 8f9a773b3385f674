// A launch begun at its mission's intake (daemon/daemon.h, LAUNCHES BEGUN AT INTAKE): its run/ and
// room made in the intake's .ID.tmp beside the intake's first wait, and removed with that .ID.tmp
// when the intake is undone or cut short by a crash.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "env/fault_env.h"
#include "shell/transitions.h"

namespace hangar {
namespace {

const ReturnBacked kBacksNone = [](const std::string&, const std::string&) { return false; };

class IntakeLaunchTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"intake_launch"};
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    root_ = scratch_.path();
    l_ = Layout::Make(root_, "");
    for (const std::string& d : l_.AllDirs()) std::filesystem::create_directories(d);
    std::ofstream(l_.IncomingNew() + "/m.json") << "{M}";
    in_ = Intake{"m.json",
                 "M",
                 Phase::kQueued,
                 {{"gate1.json", "{}\n"}, {"intake.json", "{\"name\":\"m.json\"}\n"}},
                 std::nullopt};
    x_.id = "M";
    x_.attempt = 1;
    x_.plan.room = l_.Room("M");
    x_.plan.room_dirs = {"out"};
    x_.plan_text = "{M}";
    x_.prompt = "go M\n";
  }
  std::string Tmp() const { return l_.StateDir(Phase::kQueued) + "/.M.tmp"; }
  // BeginIntakes of M through ENV, its launch placed at intake as hangard places it (MADE).
  Status BeginPlaced(Env* env) {
    std::vector<Status> full;
    Status s = BeginIntakes(env, l_, {&in_}, &full, [&](size_t) {
      Result<std::string> run = PlaceLaunchAtIntake(env, l_, in_, x_);
      placed_ = run.ok() ? *run : run.status().message();
    });
    return s.ok() ? full.front() : s;
  }
  // What a begun supervisor makes in run/ before its go.
  void SupervisorFiles(const std::string& run) {
    for (const char* f : {"lock", "stdout", "stderr"}) std::ofstream(run + "/" + f) << f;
  }
  std::string root_;
  Layout l_;
  Intake in_;
  Launch x_;
  std::string placed_;
};

// The run/ and the room are made once .M.tmp is, beside the intake's first wait (FaultEnv runs
// the two one after the other: the wait's calls first): the zygote's begin (which the caller makes
// there) overlaps the intake's waits and the records'.
TEST_F(IntakeLaunchTest, ItsPlacesAreMadeBesideTheIntakesFirstWait) {
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  ASSERT_TRUE(BeginPlaced(&env).ok());
  EXPECT_EQ(placed_, Tmp() + "/run");
  const std::string room = l_.Room("M");
  EXPECT_EQ(ReadText(root_ + "/fault.log"),
            "1 mkdir-visible " + Tmp() + "\n" +                                                //
                "2 sync-dirs " + l_.StateDir(Phase::kQueued) + "\n" +                          //
                "3 write-files-dir-later " + Tmp() + "/gate1.json gate1.json,intake.json\n" +  //
                "4 mkdir-visible " + Tmp() + "/run\n" +                                        //
                "5 write-visible " + Tmp() + "/run/prompt.md\n" +                              //
                "6 mkdir-visible " + room + "\n" +                                             //
                "7 mkdir-visible " + room + "/ops\n" +                                         //
                "8 mkdir-visible " + room + "/out\n" +                                         //
                "9 rename-later " + l_.IncomingNew() + "/m.json " + Tmp() + "/mission.json\n" +
                "10 sync-dirs " + Tmp() + " " + l_.IncomingNew() + "\n");
  // Finished, the mission is in queued/ with its run/, where the launch after the records finds
  // it (BeginLaunches makes only what is not there, and writes the prompt again).
  std::vector<Status> full(1);
  ASSERT_TRUE(FinishIntakes(RealEnv(), l_, {&in_}, &full).ok());
  EXPECT_EQ(ReadText(l_.MissionDir(Phase::kQueued, "M") + "/run/prompt.md"), "go M\n");
  EXPECT_EQ(ReadText(l_.MissionDir(Phase::kQueued, "M") + "/mission.json"), "{M}");
  LaunchPrep p = PrepareLaunch(RealEnv(), l_, x_, 0);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(ReadText(p.dir + "/run/prompt.md"), "go M\n");
}

// An intake undone (a full disk) after its launch was placed: the drop goes back, and the .M.tmp
// goes with its run/ (the supervisor's files in it) and the room its launch made.
TEST_F(IntakeLaunchTest, AnUndoneIntakeTakesItsRunAndItsRoomAway) {
  for (uint64_t at : {2, 3, 9, 10}) {  // each of the intake's steps beside and after the placing
    FaultPlan fail;
    fail.kind = FaultPlan::Kind::kFail;
    fail.at = at;
    fail.error = ENOSPC;
    FaultEnv env(RealEnv(), fail);
    Status s = BeginPlaced(&env);
    ASSERT_TRUE(NoSpace(s)) << "call " << at << ": " << s.message();
    SupervisorFiles(Tmp() + "/run");
    Status u = UndoIntake(RealEnv(), l_, in_);
    EXPECT_TRUE(u.ok()) << "call " << at << ": " << u.message();
    EXPECT_EQ(ReadText(l_.IncomingNew() + "/m.json"), "{M}") << "call " << at;
    EXPECT_FALSE(RealEnv()->Exists(Tmp())) << "call " << at;
    EXPECT_FALSE(RealEnv()->Exists(l_.Room("M"))) << "call " << at;
  }
}

// An intake cut anywhere (the spool failing there, as a crash would leave it): the next start
// puts the drop back and removes the .M.tmp, its run/ and the room its launch made; nothing of the
// launch is left for a later intake of the drop to trip on (its .M.tmp made anew). The crash
// sweep cuts the real hangard so at every call.
TEST_F(IntakeLaunchTest, RecoveryTakesTheRunAndTheRoomOfACutIntakeAway) {
  for (uint64_t at = 2; at <= 10; ++at) {
    FaultPlan cut;
    cut.kind = FaultPlan::Kind::kFail;
    cut.at = at;
    cut.error = EIO;
    FaultEnv env(RealEnv(), cut);
    (void)BeginPlaced(&env);  // a placing that fails leaves the intake to go on (calls 4-8)
    if (RealEnv()->Exists(Tmp() + "/run")) SupervisorFiles(Tmp() + "/run");
    Result<std::vector<std::string>> done = RecoverIntakes(RealEnv(), l_, kBacksNone);
    ASSERT_TRUE(done.ok()) << "call " << at << ": " << done.status().message();
    EXPECT_EQ(ReadText(l_.IncomingNew() + "/m.json"), "{M}") << "call " << at;
    EXPECT_FALSE(RealEnv()->Exists(Tmp())) << "call " << at;
    EXPECT_FALSE(RealEnv()->Exists(l_.Room("M"))) << "call " << at;
  }
}

// A room is removed with a cut intake only when no mission of that id stands: one in a state
// directory is that mission's (its work), whatever an unfinished intake of the same id left.
TEST_F(IntakeLaunchTest, RecoveryKeepsTheRoomOfAMissionThatStands) {
  ASSERT_TRUE(BeginPlaced(RealEnv()).ok());
  std::filesystem::create_directories(l_.MissionDir(Phase::kReturned, "M"));
  std::ofstream(l_.Room("M") + "/work.txt") << "kept";
  ASSERT_TRUE(RecoverIntakes(RealEnv(), l_, kBacksNone).ok());
  EXPECT_FALSE(RealEnv()->Exists(Tmp()));
  EXPECT_EQ(ReadText(l_.Room("M") + "/work.txt"), "kept");
}

}  // namespace
}  // namespace hangar
