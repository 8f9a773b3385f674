// The shell's spool transitions on a scratch spool: raw bytes move, never copy; an intake cut short
// by a crash is put back; an existing launch key stops a launch before anything moves.
#include "shell/transitions.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/scratch_dir_testutil.h"
#include "env/fault_env.h"

namespace hangar {
namespace {

// No return.json left in running/ is backed by the ledger (none of these tests has a ledger).
const ReturnBacked kBacksNone = [](const std::string&, const std::string&) { return false; };

// A launch of mission ID with a plan and a prompt of its own, nothing more.
Launch TwoStepLaunch(const Layout& l, const std::string& id) {
  Launch x;
  x.id = id;
  x.attempt = 1;
  x.plan.room = l.Room(id);
  x.plan_text = "{" + id + "}";
  x.prompt = "go " + id + "\n";
  return x;
}

class TransitionsTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"transitions"};
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    root_ = scratch_.path();
    l_ = Layout::Make(root_, "");
    for (const std::string& d : l_.AllDirs()) std::filesystem::create_directories(d);
  }

  void Drop(const std::string& name, const std::string& bytes) {
    std::ofstream(l_.IncomingNew() + "/" + name) << bytes;
  }
  // For each ID: the drop ID.json holding "{ID}", and its intake into queued/ (rejected/ for the
  // id "R") with an intake.json naming the drop, as the kernel's does (RecoverIntakes reads it).
  void DropAll(std::initializer_list<const char*> ids, std::vector<Intake>* ins) {
    for (const char* id : ids) {
      const std::string name = std::string(id) + ".json";
      Drop(name, "{" + std::string(id) + "}");
      ins->push_back(Intake{name,
                            id,
                            *id == 'R' ? Phase::kRejected : Phase::kQueued,
                            {{"intake.json", "{\"name\":\"" + name + "\"}\n"}},
                            std::nullopt});
    }
  }
  std::string Read(const std::string& path) {
    Result<std::string> r = RealEnv()->ReadFile(path, 1 << 20);
    return r.ok() ? r.value() : "<" + r.status().message() + ">";
  }

  std::string root_;
  Layout l_;
};

TEST_F(TransitionsTest, IntakeMovesTheRawBytesAndWritesTheKernelFiles) {
  Drop("m.json", "{raw bytes}");
  Intake in{"m.json",
            "M",
            Phase::kQueued,
            {{"intake.json", "{}\n"}, {"gate1.json", "{\"v\":1}\n"}},
            std::nullopt};
  ASSERT_TRUE(PerformIntake(RealEnv(), l_, in).ok());
  EXPECT_EQ(Read(l_.MissionDir(Phase::kQueued, "M") + "/mission.json"), "{raw bytes}");
  EXPECT_EQ(Read(l_.MissionDir(Phase::kQueued, "M") + "/gate1.json"), "{\"v\":1}\n");
  EXPECT_FALSE(RealEnv()->Exists(l_.IncomingNew() + "/m.json"));
  EXPECT_FALSE(RealEnv()->Exists(l_.StateDir(Phase::kQueued) + "/.M.tmp"));
}

// BeginIntakes alone (hangard's, alongside the decision's records) leaves no mission: each drop
// is in its .ID.tmp with the kernel's files, which a start puts back (RecoverIntakes) and
// FinishIntakes makes missions of.
TEST_F(TransitionsTest, BegunIntakesAreNoMissionsUntilFinished) {
  std::vector<Intake> ins;
  DropAll({"A", "B"}, &ins);
  std::vector<Status> full;
  ASSERT_TRUE(BeginIntakes(RealEnv(), l_, {&ins[0], &ins[1]}, &full).ok());
  for (const char* id : {"A", "B"}) {
    SCOPED_TRACE(id);
    const std::string tmp = l_.StateDir(Phase::kQueued) + "/." + id + ".tmp";
    EXPECT_EQ(Read(tmp + "/mission.json"), "{" + std::string(id) + "}");
    EXPECT_TRUE(RealEnv()->Exists(tmp + "/intake.json"));
    EXPECT_FALSE(RealEnv()->Exists(l_.MissionDir(Phase::kQueued, id)));
    EXPECT_FALSE(RealEnv()->Exists(l_.IncomingNew() + "/" + id + ".json"));
  }
  // A start now: both drops back, as dropped.
  Result<std::vector<std::string>> done = RecoverIntakes(RealEnv(), l_, kBacksNone);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_EQ(done->size(), 2u);
  EXPECT_EQ(Read(l_.IncomingNew() + "/A.json"), "{A}");
  EXPECT_EQ(Read(l_.IncomingNew() + "/B.json"), "{B}");
  // Begun again and finished: missions in queued/, no .ID.tmp left.
  ASSERT_TRUE(BeginIntakes(RealEnv(), l_, {&ins[0], &ins[1]}, &full).ok());
  ASSERT_TRUE(FinishIntakes(RealEnv(), l_, {&ins[0], &ins[1]}, &full).ok());
  for (const char* id : {"A", "B"}) {
    EXPECT_EQ(Read(l_.MissionDir(Phase::kQueued, id) + "/mission.json"),
              "{" + std::string(id) + "}");
    EXPECT_FALSE(RealEnv()->Exists(l_.StateDir(Phase::kQueued) + "/." + id + ".tmp"));
  }
}

// BeginReturns (hangard's, alongside the decision's records) writes each return.json into
// running/ID, durable, and returns no mission: a start finishes such a move only when the ledger
// backs its return.json, and removes it otherwise (the ended drone is observed again);
// PerformMove(WRITTEN) then only renames.
TEST_F(TransitionsTest, BegunReturnsAreReturnedOnlyByTheRenameOrABackedStart) {
  Move a{"A", Phase::kRunning, Phase::kReturned, {{"return.json", "{A}"}}, std::nullopt};
  Move b{"B", Phase::kRunning, Phase::kReturned, {{"return.json", "{B}"}}, std::nullopt};
  ASSERT_TRUE(BeginsEarly(a));
  EXPECT_FALSE(BeginsEarly(Move{"Q",
                                Phase::kQueued,
                                Phase::kReturned,
                                {{"return.json", "{}"}},
                                std::nullopt}));  // a queued mission's return.json: no
  for (const Move* mv : {&a, &b})
    std::filesystem::create_directories(l_.MissionDir(Phase::kRunning, mv->id));
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/begin.log").ok());
  std::vector<Status> written = BeginReturns(&env, l_, {&a, &b});
  ASSERT_EQ(written.size(), 2u);
  EXPECT_TRUE(written[0].ok() && written[1].ok());
  const std::string r = l_.StateDir(Phase::kRunning);
  EXPECT_EQ(Read(root_ + "/begin.log"), "1 write-files-dir-later " + r +
                                            "/A/return.json return.json\n"
                                            "2 write-files-dir-later " +
                                            r +
                                            "/B/return.json return.json\n"
                                            "3 sync-dirs " +
                                            r + "/A " + r + "/B\n");
  EXPECT_EQ(Read(r + "/A/return.json"), "{A}");
  EXPECT_FALSE(RealEnv()->Exists(l_.MissionDir(Phase::kReturned, "A")));

  // A start: the ledger backs B's (asked with B's id and bytes), not A's.
  std::vector<std::string> asked;
  Result<std::vector<std::string>> done =
      RecoverIntakes(RealEnv(), l_, [&](const std::string& id, const std::string& text) {
        asked.push_back(id + "=" + text);
        return id == "B";
      });
  ASSERT_TRUE(done.ok()) << done.status().message();
  std::sort(asked.begin(), asked.end());
  EXPECT_EQ(asked, (std::vector<std::string>{"A={A}", "B={B}"}));
  EXPECT_TRUE(RealEnv()->Exists(l_.MissionDir(Phase::kRunning, "A")));
  EXPECT_FALSE(RealEnv()->Exists(r + "/A/return.json"));
  EXPECT_FALSE(RealEnv()->Exists(l_.MissionDir(Phase::kReturned, "A")));
  EXPECT_EQ(Read(l_.MissionDir(Phase::kReturned, "B") + "/return.json"), "{B}");
  EXPECT_FALSE(RealEnv()->Exists(l_.MissionDir(Phase::kRunning, "B")));

  // Begun again, then the rename alone.
  ASSERT_TRUE(BeginReturns(RealEnv(), l_, {&a}).front().ok());
  FaultEnv rename(RealEnv(), FaultPlan{});
  ASSERT_TRUE(rename.OpenLog(root_ + "/rename.log").ok());
  ASSERT_TRUE(PerformMove(&rename, l_, a, true).ok());
  EXPECT_EQ(rename.calls(), 1u) << Read(root_ + "/rename.log");
  EXPECT_EQ(Read(l_.MissionDir(Phase::kReturned, "A") + "/return.json"), "{A}");
}

TEST_F(TransitionsTest, RejectedKeepsANonRegularDropAsItIs) {
  ASSERT_EQ(mkfifo((l_.IncomingNew() + "/pipe").c_str(), 0644), 0);
  Intake in{"pipe",
            "pipe",
            Phase::kRejected,
            {{"why.json", "{}\n"}, {"intake.json", "{}\n"}},
            std::nullopt};
  ASSERT_TRUE(PerformIntake(RealEnv(), l_, in).ok());
  struct stat st {};
  ASSERT_EQ(lstat((l_.MissionDir(Phase::kRejected, "pipe") + "/mission.raw").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(TransitionsTest, IntakeCutShortIsPutBackIntoIncoming) {
  // A crash after the raw file moved into the dot-directory, before the directory was renamed.
  const std::string tmp = l_.StateDir(Phase::kQueued) + "/.M.tmp";
  std::filesystem::create_directories(tmp);
  std::ofstream(tmp + "/intake.json") << R"({"hangar":1,"id":"M","name":"drop-1"})";
  std::ofstream(tmp + "/mission.json") << "{the bytes}";
  // And one cut before the raw file moved: only the kernel's files are there.
  const std::string tmp2 = l_.StateDir(Phase::kRejected) + "/.N.tmp";
  std::filesystem::create_directories(tmp2);
  std::ofstream(tmp2 + "/why.json") << "{}";
  Result<std::vector<std::string>> r = RecoverIntakes(RealEnv(), l_, kBacksNone);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->size(), 1u);
  EXPECT_EQ(Read(l_.IncomingNew() + "/drop-1"), "{the bytes}");
  EXPECT_FALSE(RealEnv()->Exists(tmp));
  EXPECT_FALSE(RealEnv()->Exists(tmp2));
}

TEST_F(TransitionsTest, ExistingLaunchKeyStopsTheLaunchBeforeAnythingMoves) {
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "K"));
  std::ofstream(l_.Keys() + "/" + LaunchKeyName("K", 1)) << "{}";
  Launch launch;
  launch.id = "K";
  launch.attempt = 1;
  launch.plan.room = l_.Room("K");
  launch.plan_text = "{}";
  LaunchPrep r = PrepareLaunch(RealEnv(), l_, launch, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.key_existed);
  EXPECT_FALSE(r.in_running);
  EXPECT_TRUE(RealEnv()->Exists(l_.MissionDir(Phase::kQueued, "K")));
  EXPECT_FALSE(RealEnv()->Exists(l_.MissionDir(Phase::kRunning, "K")));
  // Written with the plan, launch.json is written only for a launch that takes its key: this one
  // launched nothing.
  EXPECT_TRUE(RealEnv()->Exists(l_.MissionDir(Phase::kQueued, "K") + "/plan.json"));
  EXPECT_FALSE(RealEnv()->Exists(l_.MissionDir(Phase::kQueued, "K") + "/launch.json"));
}

TEST_F(TransitionsTest, ARoomThatCannotBeMadeFailsTheLaunchWithoutTakingAKey) {
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "P"));
  std::ofstream(l_.Room("P")) << "a file where the room should be";
  Launch launch;
  launch.id = "P";
  launch.attempt = 1;
  launch.plan.room = l_.Room("P");
  launch.plan.prompt_in_room = true;
  LaunchPrep r = PrepareLaunch(RealEnv(), l_, launch, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.key_existed);
  EXPECT_FALSE(r.in_running);
  EXPECT_NE(r.error.find(l_.Room("P")), std::string::npos) << r.error;
  EXPECT_FALSE(RealEnv()->Exists(l_.LaunchKey("P", 1)));  // a later attempt is not "lost"
}

TEST_F(TransitionsTest, RecoveryKeepsANewerDropOfTheSameNameAndFinishesCutMoves) {
  const std::string tmp = l_.StateDir(Phase::kQueued) + "/.M.tmp";
  std::filesystem::create_directories(tmp);
  std::ofstream(tmp + "/intake.json") << R"({"hangar":1,"id":"M","name":"drop-1"})";
  std::ofstream(tmp + "/mission.json") << "{old}";
  Drop("drop-1", "{newer}");
  // A cancel whose return.json was written into queued/C before the crash, not yet moved.
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "C"));
  std::ofstream(l_.MissionDir(Phase::kQueued, "C") + "/return.json") << "{}";
  Result<std::vector<std::string>> r = RecoverIntakes(RealEnv(), l_, kBacksNone);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Read(l_.IncomingNew() + "/drop-1"), "{newer}");
  EXPECT_EQ(Read(l_.IncomingNew() + "/drop-1.recovered.1"), "{old}");
  EXPECT_TRUE(RealEnv()->Exists(l_.MissionDir(Phase::kReturned, "C") + "/return.json"));
  EXPECT_FALSE(RealEnv()->Exists(l_.MissionDir(Phase::kQueued, "C")));
}

TEST_F(TransitionsTest, LaunchCreatesKeyRoomRunAndMovesToRunning) {
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "L"));
  Launch launch;
  launch.id = "L";
  launch.attempt = 1;
  launch.plan.room = l_.Room("L");
  launch.plan.prompt_in_room = true;
  launch.plan_text = "{\"plan\":1}";
  launch.prompt = "do it\n";
  LaunchPrep r = PrepareLaunch(RealEnv(), l_, launch, 0);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.in_running);
  EXPECT_EQ(r.dir, l_.MissionDir(Phase::kRunning, "L"));
  EXPECT_TRUE(RealEnv()->Exists(l_.LaunchKey("L", 1)));
  EXPECT_EQ(Read(r.dir + "/plan.json"), "{\"plan\":1}");
  EXPECT_EQ(Read(r.dir + "/run/prompt.md"), "do it\n");
  EXPECT_EQ(Read(l_.Room("L") + "/MISSION.md"), "do it\n");
  EXPECT_TRUE(RealEnv()->Exists(r.dir + "/launch.json"));
  // A second attempt with the same number is refused by the key.
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "L"));
  r = PrepareLaunch(RealEnv(), l_, launch, 0);
  EXPECT_TRUE(r.key_existed);
}

// An intake's calls, as the fault log names them: its directory durable before the drop moves
// into it (else a power loss could take the drop with it), the kernel's files' names made
// durable by that move, which fsyncs the directory.
TEST_F(TransitionsTest, AnIntakeMakesItsDirectoryDurableBeforeTheDropMovesIn) {
  Drop("x.json", "{}");
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  Intake in;
  in.id = "I";
  in.name = "x.json";
  in.to = Phase::kQueued;
  in.files = {{"gate1.json", "{}"}, {"intake.json", "{}"}};
  ASSERT_TRUE(PerformIntake(&env, l_, in).ok());
  const std::string q = l_.StateDir(Phase::kQueued), tmp = q + "/.I.tmp";
  EXPECT_EQ(Read(root_ + "/fault.log"),
            "1 mkdir-visible " + tmp + "\n" +  //
                "2 sync-dirs " + q + "\n" +    //
                "3 write-files-dir-later " + tmp + "/gate1.json gate1.json,intake.json\n" +
                "4 rename-later " + l_.IncomingNew() + "/x.json " + tmp + "/mission.json\n" +
                "5 sync-dirs " + tmp + " " + l_.IncomingNew() + "\n" +  //
                "6 rename-later " + tmp + " " + q + "/I\n" +            //
                "7 sync-dirs " + q + "\n");
  EXPECT_EQ(Read(q + "/I/mission.json"), "{}");
}

// A batch that launches too (hangard's Commit) leaves the intakes' last fsync of queued/ to its
// first launch, whose first wait fsyncs queued/ with the plan's data and the key: one wait less
// from a drop to its drone. Every other state directory is synced as before, and the launch finds
// its mission where the intake put it.
TEST_F(TransitionsTest, AnIntakeLaunchedInItsBatchLeavesQueuedsLastSyncToTheLaunch) {
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  std::vector<Intake> ins;
  DropAll({"A", "R"}, &ins);
  const std::string q = l_.StateDir(Phase::kQueued), r = l_.StateDir(Phase::kRejected);
  std::vector<Status> full;
  std::vector<std::string> unsynced;
  ASSERT_TRUE(PerformIntakes(&env, l_, {&ins[0], &ins[1]}, &full, q, &unsynced).ok());
  EXPECT_EQ(unsynced, std::vector<std::string>{q});
  std::string log = Read(root_ + "/fault.log");
  EXPECT_NE(log.find("11 sync-dirs " + r + "\n"), std::string::npos) << log;  // queued/ left out
  EXPECT_EQ(env.calls(), 11u);
  Launch a = TwoStepLaunch(l_, "A");
  LaunchPrep p = PrepareLaunch(&env, l_, a, 0, unsynced);
  ASSERT_TRUE(p.ok) << p.error;
  log = Read(root_ + "/fault.log");
  // The launch's room, ops/, run/ and prompt (12-15), then its first wait: queued/ first in it.
  EXPECT_NE(log.find("16 sync-dirs " + q + "\n17 write-files-dir-later " + q +
                     "/A/plan.json plan.json,gate2.json\n"),
            std::string::npos)
      << log;
  EXPECT_EQ(Read(p.dir + "/mission.json"), "{A}");
}

// When that fsync fails, the intakes are not known to be durable: the launch stops where it is,
// as for any failure of the spool (hangard stops its work; the next start finds the mission in
// queued/, its key taken or not, never launched twice).
TEST_F(TransitionsTest, AFailedSyncOfTheIntakesStopsTheLaunch) {
  std::vector<Intake> ins;
  DropAll({"A"}, &ins);
  const std::string q = l_.StateDir(Phase::kQueued);
  std::vector<Status> full;
  std::vector<std::string> unsynced;
  ASSERT_TRUE(PerformIntakes(RealEnv(), l_, {&ins[0]}, &full, q, &unsynced).ok());
  // Calls: the room, ops/, run/, prompt.md, then the sync of queued/ (5).
  FaultEnv env(RealEnv(), FaultPlan{FaultPlan::Kind::kFail, 5, EIO, false});
  Launch a = TwoStepLaunch(l_, "A");
  LaunchPrep p = PrepareLaunch(&env, l_, a, 0, unsynced);
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.storage.sys_errno(), EIO) << p.storage.message();
  EXPECT_FALSE(p.in_running);
  EXPECT_TRUE(std::filesystem::is_directory(l_.MissionDir(Phase::kQueued, "A")));
  EXPECT_FALSE(std::filesystem::exists(l_.MissionDir(Phase::kRunning, "A")));
}

// A batch's intakes share their fsyncs: three drops into queued/ and one into rejected/ make one
// sync of the two state directories before any drop moves, one of every .ID.tmp and incoming/new
// after the drops moved in, one of the state directories after the renames into place.
TEST_F(TransitionsTest, ABatchsIntakesShareTheirDirectoryFsyncs) {
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  std::vector<Intake> ins;
  DropAll({"A", "B", "C", "R"}, &ins);
  std::vector<Status> full;
  ASSERT_TRUE(PerformIntakes(&env, l_, {&ins[0], &ins[1], &ins[2], &ins[3]}, &full).ok());
  const std::string q = l_.StateDir(Phase::kQueued), r = l_.StateDir(Phase::kRejected);
  std::string want;
  int n = 0;
  auto call = [&](const std::string& line) { want += std::to_string(++n) + " " + line + "\n"; };
  auto tmp = [&](const Intake& in) { return l_.StateDir(in.to) + "/." + in.id + ".tmp"; };
  for (const Intake& in : ins) call("mkdir-visible " + tmp(in));
  call("sync-dirs " + q + " " + r);
  for (const Intake& in : ins)
    call("write-files-dir-later " + tmp(in) + "/intake.json intake.json");
  for (const Intake& in : ins)
    call("rename-later " + l_.IncomingNew() + "/" + in.name + " " + tmp(in) +
         (in.to == Phase::kRejected ? "/mission.raw" : "/mission.json"));
  call("sync-dirs " + tmp(ins[0]) + " " + tmp(ins[1]) + " " + tmp(ins[2]) + " " + tmp(ins[3]) +
       " " + l_.IncomingNew());
  for (const Intake& in : ins)
    call("rename-later " + tmp(in) + " " + l_.StateDir(in.to) + "/" + in.id);
  call("sync-dirs " + q + " " + r);
  EXPECT_EQ(Read(root_ + "/fault.log"), want);
  EXPECT_EQ(env.calls(), 3 + 4 * 4u);  // the syncs, and mkdir, files and two renames each
  for (size_t i = 0; i < ins.size(); ++i) {
    EXPECT_TRUE(full[i].ok()) << full[i].message();
    const std::string dir = l_.MissionDir(ins[i].to, ins[i].id);
    EXPECT_EQ(Read(dir + (ins[i].to == Phase::kRejected ? "/mission.raw" : "/mission.json")),
              "{" + ins[i].id + "}");
    EXPECT_EQ(Read(dir + "/intake.json"), ins[i].files.at("intake.json"));
  }
  EXPECT_FALSE(std::filesystem::exists(l_.IncomingNew() + "/A.json"));
  EXPECT_FALSE(std::filesystem::exists(q + "/.A.tmp"));
}

// A full disk for one intake of a batch takes it out of the steps after; the others go on into
// place, and its undo puts its drop back.
TEST_F(TransitionsTest, ABatchsIntakeWithoutSpaceIsLeftOutAndTheOthersGoOn) {
  std::vector<Intake> ins;
  DropAll({"A", "B", "C"}, &ins);
  // Calls 1-3 make the three .ID.tmp, 4 syncs queued/, 5-7 write their files: 6 is B's.
  FaultPlan p;
  p.kind = FaultPlan::Kind::kFail;
  p.at = 6;
  p.error = ENOSPC;
  FaultEnv env(RealEnv(), p);
  std::vector<Status> full;
  ASSERT_TRUE(PerformIntakes(&env, l_, {&ins[0], &ins[1], &ins[2]}, &full).ok());
  EXPECT_TRUE(full[0].ok());
  EXPECT_TRUE(NoSpace(full[1])) << full[1].message();
  EXPECT_TRUE(full[2].ok());
  EXPECT_EQ(Read(l_.MissionDir(Phase::kQueued, "A") + "/mission.json"), "{A}");
  EXPECT_EQ(Read(l_.MissionDir(Phase::kQueued, "C") + "/mission.json"), "{C}");
  EXPECT_TRUE(UndoIntake(RealEnv(), l_, ins[1]).ok());
  EXPECT_EQ(Read(l_.IncomingNew() + "/B.json"), "{B}");
  EXPECT_FALSE(std::filesystem::exists(l_.StateDir(Phase::kQueued) + "/.B.tmp"));
  EXPECT_FALSE(std::filesystem::exists(l_.MissionDir(Phase::kQueued, "B")));

  // Any other failure stops every step, and is the batch's answer.
  DropAll({"D", "E"}, &ins);
  p.at = 3;  // the sync of queued/
  p.error = EIO;
  FaultEnv eio(RealEnv(), p);
  Status s = PerformIntakes(&eio, l_, {&ins[3], &ins[4]}, &full);
  EXPECT_EQ(s.sys_errno(), EIO) << s.message();
  EXPECT_TRUE(std::filesystem::exists(l_.IncomingNew() + "/D.json"));
  EXPECT_TRUE(std::filesystem::exists(l_.IncomingNew() + "/E.json"));
}

// A failed sync after the drops moved in ends the batch, whatever its errno (undoing one intake
// would fsync incoming/new under the others' unsynced moves); the drops already moved are synced
// where they are, best effort, and the next start's recovery syncs every .ID.tmp before it moves
// any drop back, and puts every one back.
TEST_F(TransitionsTest, AFailedSyncEndsTheBatchAndRecoveryPutsEveryDropBack) {
  std::vector<Intake> ins;
  DropAll({"A", "B"}, &ins);
  FaultPlan p;
  p.kind = FaultPlan::Kind::kFail;
  p.at = 8;  // 1-2 mkdir, 3 sync, 4-5 files, 6-7 the moves, 8 their sync
  p.error = ENOSPC;
  FaultEnv env(RealEnv(), p);
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  std::vector<Status> full;
  Status s = PerformIntakes(&env, l_, {&ins[0], &ins[1]}, &full);
  EXPECT_EQ(s.sys_errno(), ENOSPC) << s.message();
  EXPECT_TRUE(full[0].ok() && full[1].ok());
  const std::string q = l_.StateDir(Phase::kQueued);
  const std::string log = Read(root_ + "/fault.log");
  EXPECT_NE(log.find("9 sync-dirs " + q + "/.A.tmp " + q + "/.B.tmp " + l_.IncomingNew() + "\n"),
            std::string::npos)
      << log;
  EXPECT_EQ(env.calls(), 9u);

  FaultEnv again(RealEnv(), FaultPlan{});
  ASSERT_TRUE(again.OpenLog(root_ + "/recover.log").ok());
  Result<std::vector<std::string>> done = RecoverIntakes(&again, l_, kBacksNone);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_EQ(done->size(), 2u);
  const std::string rlog = Read(root_ + "/recover.log");
  EXPECT_EQ(rlog.substr(0, rlog.find('\n')), "1 sync-dirs " + q + "/.A.tmp " + q + "/.B.tmp");
  EXPECT_EQ(Read(l_.IncomingNew() + "/A.json"), "{A}");
  EXPECT_EQ(Read(l_.IncomingNew() + "/B.json"), "{B}");
  EXPECT_FALSE(std::filesystem::exists(q + "/.A.tmp"));
  EXPECT_FALSE(std::filesystem::exists(q + "/.B.tmp"));
}

// A drop gone before its move (its submitter took it back) ends the batch as before (hangard's
// work stops); the drop moved before it is synced where it is, the one after it never moved.
TEST_F(TransitionsTest, ADropGoneMidBatchLeavesTheMovedOnesSynced) {
  std::vector<Intake> ins;
  DropAll({"A", "B", "C"}, &ins);
  std::filesystem::remove(l_.IncomingNew() + "/B.json");
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  std::vector<Status> full;
  Status s = PerformIntakes(&env, l_, {&ins[0], &ins[1], &ins[2]}, &full);
  EXPECT_EQ(s.sys_errno(), ENOENT) << s.message();
  const std::string q = l_.StateDir(Phase::kQueued);
  const std::string log = Read(root_ + "/fault.log");
  EXPECT_NE(log.find("10 sync-dirs " + q + "/.A.tmp " + l_.IncomingNew() + "\n"), std::string::npos)
      << log;
  EXPECT_EQ(env.calls(), 10u);  // 3 mkdir, 1 sync, 3 files, A's and B's moves, the sync
  EXPECT_EQ(Read(q + "/.A.tmp/mission.json"), "{A}");
  EXPECT_EQ(Read(l_.IncomingNew() + "/C.json"), "{C}");
}

// A launch's calls, as the fault log names them: the only ones left unsynced (which a power loss
// may take back, scripts/spool_invariants.py) are what the drone is given, room/ops, room_dirs,
// the prompt and MISSION.md; the key is durable before the move (launch.json's data with it, and
// with the plan's: written into queued/ID, it costs no wait of its own), and the last call makes
// the room, the move and every name in running/ID (plan.json, gate2.json, launch.json, run/)
// durable before any supervisor starts, queued/ last: the move's new name before its old one's
// removal.
TEST_F(TransitionsTest, ALaunchLeavesUnsyncedOnlyWhatItsDroneIsGiven) {
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "V"));
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  Launch launch;
  launch.id = "V";
  launch.attempt = 1;
  launch.plan.room = l_.Room("V");
  launch.plan.room_dirs = {"out"};
  launch.plan.prompt_in_room = true;
  launch.plan_text = "{}";
  launch.prompt = "go\n";
  LaunchPrep r = PrepareLaunch(&env, l_, launch, 0);
  ASSERT_TRUE(r.ok) << r.error;
  const std::string q = l_.MissionDir(Phase::kQueued, "V"), room = l_.Room("V");
  EXPECT_EQ(Read(root_ + "/fault.log"),
            "1 mkdir-visible " + room + "\n" +                 //
                "2 mkdir-visible " + room + "/ops\n" +         //
                "3 mkdir-visible " + room + "/out\n" +         //
                "4 write-visible " + room + "/MISSION.md\n" +  //
                "5 mkdir-visible " + q + "/run\n" +            //
                "6 write-visible " + q + "/run/prompt.md\n" +  //
                "7 write-files-dir-later " + q + "/plan.json plan.json,gate2.json\n" + "8 create " +
                l_.LaunchKey("V", 1) + "\n" +  //
                "9 write-files-dir-later " + q + "/launch.json launch.json\n" + "10 rename-later " +
                q + " " + r.dir + "\n" +  //
                "11 sync-dirs " + r.dir + " " + l_.StateDir(Phase::kRunning) + " " + l_.rooms +
                " " + q.substr(0, q.rfind('/')) + "\n");
  EXPECT_EQ(Read(r.dir + "/run/prompt.md"), "go\n");
  EXPECT_TRUE(std::filesystem::is_directory(room + "/out"));
}

// A turn's launches, prepared together: each step for every launch before the next step, so the
// plans, the keys and the launch records of all wait for their fsyncs at once, and one closing
// sync makes every move durable. Each launch keeps its own order: its key (a durable call) before
// its move, its move before the closing sync.

TEST_F(TransitionsTest, ATurnsLaunchesArePreparedStepByStepTogether) {
  for (const char* id : {"V", "W"})
    std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, id));
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  const Launch v = TwoStepLaunch(l_, "V"), w = TwoStepLaunch(l_, "W");
  std::vector<LaunchPrep> r = PrepareLaunches(&env, l_, {&v, &w}, 0);
  ASSERT_EQ(r.size(), 2u);
  ASSERT_TRUE(r[0].ok) << r[0].error;
  ASSERT_TRUE(r[1].ok) << r[1].error;
  const std::string qv = l_.MissionDir(Phase::kQueued, "V"),
                    qw = l_.MissionDir(Phase::kQueued, "W");
  const std::string rv = l_.MissionDir(Phase::kRunning, "V"),
                    rw = l_.MissionDir(Phase::kRunning, "W");
  EXPECT_EQ(r[0].dir, rv);
  EXPECT_EQ(r[1].dir, rw);
  EXPECT_EQ(Read(root_ + "/fault.log"),
            "1 mkdir-visible " + l_.Room("V") + "\n" +          //
                "2 mkdir-visible " + l_.Room("V") + "/ops\n" +  //
                "3 mkdir-visible " + qv + "/run\n" +            //
                "4 write-visible " + qv + "/run/prompt.md\n" +  //
                "5 mkdir-visible " + l_.Room("W") + "\n" +      //
                "6 mkdir-visible " + l_.Room("W") + "/ops\n" +  //
                "7 mkdir-visible " + qw + "/run\n" +            //
                "8 write-visible " + qw + "/run/prompt.md\n" +  //
                "9 write-files-dir-later " + qv + "/plan.json plan.json,gate2.json\n" +
                "10 write-files-dir-later " + qw + "/plan.json plan.json,gate2.json\n" +
                "11 create " + l_.LaunchKey("V", 1) + "\n" +  //
                "12 create " + l_.LaunchKey("W", 1) + "\n" +  //
                "13 write-files-dir-later " + qv + "/launch.json launch.json\n" +
                "14 write-files-dir-later " + qw + "/launch.json launch.json\n" +
                "15 rename-later " + qv + " " + rv + "\n" +  //
                "16 rename-later " + qw + " " + rw + "\n" +  //
                "17 sync-dirs " + rv + " " + rw + " " + l_.StateDir(Phase::kRunning) + " " +
                l_.rooms + " " + l_.StateDir(Phase::kQueued) + "\n");
  EXPECT_EQ(Read(rv + "/plan.json") + Read(rw + "/plan.json"), "{V}{W}");
  EXPECT_EQ(Read(rw + "/run/prompt.md"), "go W\n");
  EXPECT_NE(Read(l_.LaunchKey("W", 1)).find("\"id\": \"W\""), std::string::npos);
  EXPECT_NE(Read(rv + "/launch.json").find("\"key\": \"keys/"), std::string::npos);
}

// MADE is told of each launch whose room and run/ are made, before the first wait: at that point
// nothing of the launch is durable (no plan, no key, no move), and a launch whose room failed
// is not told of (hangard begins nothing for it).
TEST_F(TransitionsTest, MadeIsToldOfEachLaunchWithItsRoomBeforeAnyRecord) {
  for (const char* id : {"V", "W"})
    std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, id));
  const Launch v = TwoStepLaunch(l_, "V");
  Launch w = TwoStepLaunch(l_, "W");
  std::ofstream(root_ + "/not-a-dir") << "x";
  w.plan.room = root_ + "/not-a-dir/room";  // its room cannot be made
  std::vector<size_t> told;
  std::vector<std::string> seen;  // at each call: what of the launch's records there was
  auto made = [&](size_t i) {
    told.push_back(i);
    const Launch& x = i == 0 ? v : w;
    const std::string q = l_.MissionDir(Phase::kQueued, x.id);
    seen.push_back(std::string(std::filesystem::is_directory(x.plan.room) ? "room" : "") +
                   (std::filesystem::exists(q + "/run/prompt.md") ? ",run" : "") +
                   (std::filesystem::exists(q + "/plan.json") ? ",plan" : "") +
                   (std::filesystem::exists(l_.LaunchKey(x.id, 1)) ? ",key" : ""));
  };
  std::vector<LaunchPrep> r = PrepareLaunches(RealEnv(), l_, {&v, &w}, 0, {}, made);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[0].ok) << r[0].error;
  EXPECT_FALSE(r[1].ok);
  EXPECT_EQ(told, std::vector<size_t>{0});
  EXPECT_EQ(seen, std::vector<std::string>{"room,run"});
}

// launch.json is written only once its key is made: a key that cannot be created (a full disk)
// stops the launch with its plan and gate2 written, and no launch.json that a later move could
// carry into returned/ as a launch that never took its key.
TEST_F(TransitionsTest, ALaunchWhoseKeyFailsLeavesNoLaunchJson) {
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "V"));
  // Calls: the room, ops/, run/, prompt.md (1-4), the plan's files (5), the key (6).
  FaultEnv env(RealEnv(), FaultPlan{FaultPlan::Kind::kFail, 6, ENOSPC, false});
  LaunchPrep r = PrepareLaunch(&env, l_, TwoStepLaunch(l_, "V"), 0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.storage.sys_errno(), ENOSPC) << r.storage.message();
  EXPECT_FALSE(r.in_running);
  const std::string q = l_.MissionDir(Phase::kQueued, "V");
  EXPECT_TRUE(std::filesystem::exists(q + "/plan.json"));
  EXPECT_FALSE(std::filesystem::exists(q + "/launch.json"));
  EXPECT_FALSE(std::filesystem::exists(l_.LaunchKey("V", 1)));
}

// A key already there ends its own launch (not launched again: it may have been) and no other.
TEST_F(TransitionsTest, AKeyAlreadyThereStopsOnlyItsOwnLaunch) {
  for (const char* id : {"V", "W"})
    std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, id));
  std::ofstream(l_.LaunchKey("V", 1)) << "launched before";
  const Launch v = TwoStepLaunch(l_, "V"), w = TwoStepLaunch(l_, "W");
  std::vector<LaunchPrep> r = PrepareLaunches(RealEnv(), l_, {&v, &w}, 0);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].ok);
  EXPECT_TRUE(r[0].key_existed);
  EXPECT_TRUE(r[0].storage.ok()) << r[0].storage.message();
  EXPECT_FALSE(r[0].in_running);
  EXPECT_TRUE(std::filesystem::is_directory(l_.MissionDir(Phase::kQueued, "V")));
  EXPECT_EQ(Read(l_.LaunchKey("V", 1)), "launched before");
  EXPECT_FALSE(std::filesystem::exists(l_.MissionDir(Phase::kQueued, "V") + "/launch.json"));
  ASSERT_TRUE(r[1].ok) << r[1].error;
  EXPECT_TRUE(std::filesystem::exists(l_.MissionDir(Phase::kRunning, "W") + "/launch.json"));
}

// RealEnv finds a plan's failed fsync (or rename) only after the keys of the batch are made, in the
// same wait: that launch and the later ones stop with their keys, never moved (they end lost at the
// next start, never launched twice); the launch before them goes on. An Env that answers as
// RealEnv does then: V's files failed, every key made.
class FsyncFailsAfterTheKeys : public FaultEnv {
 public:
  FsyncFailsAfterTheKeys() : FaultEnv(RealEnv(), FaultPlan{}) {}
  TogetherDone WriteTogether(const Together& t) override {
    TogetherDone r = RealEnv()->WriteTogether(t);
    if (r.files.size() == 3) r.files[1] = Status::Errno("fsync " + t.files[1].dir, EIO);
    return r;
  }
};

TEST_F(TransitionsTest, APlanFailedAfterTheKeysStopsItsLaunchAndTheLaterOnesWithTheirKeys) {
  for (const char* id : {"U", "V", "W"})
    std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, id));
  FsyncFailsAfterTheKeys env;
  const Launch u = TwoStepLaunch(l_, "U"), v = TwoStepLaunch(l_, "V"), w = TwoStepLaunch(l_, "W");
  std::vector<LaunchPrep> r = PrepareLaunches(&env, l_, {&u, &v, &w}, 0);
  ASSERT_EQ(r.size(), 3u);
  ASSERT_TRUE(r[0].ok) << r[0].error;
  EXPECT_TRUE(std::filesystem::exists(l_.MissionDir(Phase::kRunning, "U") + "/launch.json"));
  for (size_t i : {size_t(1), size_t(2)}) {
    const std::string id = i == 1 ? "V" : "W";
    EXPECT_FALSE(r[i].ok) << id;
    EXPECT_FALSE(r[i].in_running) << id;
    EXPECT_EQ(r[i].storage.code(), Code::kIo) << id << ": " << r[i].storage.message();
    EXPECT_TRUE(std::filesystem::is_directory(l_.MissionDir(Phase::kQueued, id))) << id;
    EXPECT_TRUE(std::filesystem::exists(l_.LaunchKey(id, 1))) << id;
  }
  EXPECT_EQ(r[1].storage.sys_errno(), EIO);
  EXPECT_NE(r[2].error.find("not finished: the spool failed for the launch of V"),
            std::string::npos)
      << r[2].error;
}

// A failure of the spool for one launch stops it and every launch after it where they are, as
// hangard stops its work there; the launches before it are made whole, their closing sync
// without the stopped ones. (The later launch got its key first: at the next start it ends lost,
// never launched twice.)
TEST_F(TransitionsTest, ASpoolFailureStopsItsLaunchAndTheLaterOnes) {
  for (const char* id : {"U", "V", "W"})
    std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, id));
  // Calls: 4 x 3 for the rooms and run/, 3 plans, 3 keys, 3 launch.json, then U's rename (22) and
  // V's (23).
  FaultEnv env(RealEnv(), FaultPlan{FaultPlan::Kind::kFail, 23, EIO, false});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  const Launch u = TwoStepLaunch(l_, "U"), v = TwoStepLaunch(l_, "V"), w = TwoStepLaunch(l_, "W");
  std::vector<LaunchPrep> r = PrepareLaunches(&env, l_, {&u, &v, &w}, 0);
  ASSERT_EQ(r.size(), 3u);
  ASSERT_TRUE(r[0].ok) << r[0].error;
  EXPECT_FALSE(r[1].ok);
  EXPECT_EQ(r[1].storage.code(), Code::kIo) << r[1].storage.message();
  EXPECT_FALSE(r[1].in_running);
  EXPECT_FALSE(r[2].ok);
  EXPECT_FALSE(r[2].in_running);
  EXPECT_EQ(r[2].storage.code(), Code::kIo);
  EXPECT_NE(r[2].error.find("not finished: the spool failed for the launch of V"),
            std::string::npos)
      << r[2].error;
  EXPECT_TRUE(std::filesystem::is_directory(l_.MissionDir(Phase::kQueued, "W")));
  EXPECT_TRUE(std::filesystem::exists(l_.LaunchKey("W", 1)));
  const std::string log = Read(root_ + "/fault.log");
  const std::string ru = l_.MissionDir(Phase::kRunning, "U");
  EXPECT_NE(log.find("23 rename-later " + l_.MissionDir(Phase::kQueued, "V")), std::string::npos)
      << log;
  EXPECT_EQ(log.find("rename-later " + l_.MissionDir(Phase::kQueued, "W")), std::string::npos)
      << log;
  EXPECT_NE(log.find("24 sync-dirs " + ru + " " + l_.StateDir(Phase::kRunning) + " "),
            std::string::npos)
      << log;
}

// MOVED is told of each launch moved into running/ once every move of the batch is made, before
// the closing sync (hangard's go, which then goes beside it): its key durable, its move made; a
// launch the spool stopped before its move (and the later ones) is not told of, so that hangard
// never says go to a drone whose mission is still in queued/.
TEST_F(TransitionsTest, MovedIsToldOfEachMovedLaunchBeforeTheClosingSync) {
  for (const char* id : {"U", "V", "W"})
    std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, id));
  // Calls as in ASpoolFailureStopsItsLaunchAndTheLaterOnes: V's rename (23) fails.
  FaultEnv env(RealEnv(), FaultPlan{FaultPlan::Kind::kFail, 23, EIO, false});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  const Launch u = TwoStepLaunch(l_, "U"), v = TwoStepLaunch(l_, "V"), w = TwoStepLaunch(l_, "W");
  std::vector<size_t> told;
  std::string log_then;  // the calls made when U was told of
  bool u_keyed_and_moved = false;
  auto moved = [&](size_t i) {
    told.push_back(i);
    log_then = Read(root_ + "/fault.log");
    u_keyed_and_moved = std::filesystem::exists(l_.LaunchKey("U", 1)) &&
                        std::filesystem::is_directory(l_.MissionDir(Phase::kRunning, "U"));
  };
  std::vector<LaunchPrep> r = PrepareLaunches(&env, l_, {&u, &v, &w}, 0, {}, nullptr, moved);
  ASSERT_EQ(r.size(), 3u);
  ASSERT_TRUE(r[0].ok) << r[0].error;
  EXPECT_FALSE(r[1].ok);
  EXPECT_FALSE(r[2].ok);
  EXPECT_EQ(told, std::vector<size_t>{0});
  EXPECT_TRUE(u_keyed_and_moved);
  EXPECT_NE(log_then.find("22 rename-later " + l_.MissionDir(Phase::kQueued, "U")),
            std::string::npos)
      << log_then;
  EXPECT_NE(log_then.find("23 rename-later " + l_.MissionDir(Phase::kQueued, "V")),
            std::string::npos)
      << log_then;
  EXPECT_EQ(log_then.find("sync-dirs"), std::string::npos) << log_then;
  EXPECT_NE(Read(root_ + "/fault.log").find("24 sync-dirs " + l_.MissionDir(Phase::kRunning, "U")),
            std::string::npos);
}

// A launch begun beside the records (BeginLaunches, then FinishLaunches) after a return renamed
// without a sync: SYNC_FIRST (the batch's intakes) is durable before the move, CLOSING_FIRST
// (returned/) only after it and after MOVED is told (the drone goes without waiting for it), and
// before the closing sync makes running/ durable: the return's new name before its old one goes.
TEST_F(TransitionsTest, ReturnedIsSyncedAfterTheGoAndBeforeRunning) {
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "U"));
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  const Launch u = TwoStepLaunch(l_, "U");
  const std::string queued = l_.StateDir(Phase::kQueued), returned = l_.StateDir(Phase::kReturned);
  std::string log_then;  // the calls made when U was told of
  LaunchesBegun b = BeginLaunches(&env, l_, {&u}, 0);
  std::vector<LaunchPrep> r =
      FinishLaunches(&env, l_, {&u}, std::move(b), {queued},
                     [&](size_t) { log_then = Read(root_ + "/fault.log"); }, {returned});
  ASSERT_EQ(r.size(), 1u);
  ASSERT_TRUE(r[0].ok) << r[0].error;
  const std::string log = Read(root_ + "/fault.log");
  const size_t intakes = log_then.find(" sync-dirs " + queued + "\n"),
               move = log_then.find(" rename-later " + l_.MissionDir(Phase::kQueued, "U"));
  EXPECT_TRUE(intakes != std::string::npos && move != std::string::npos && intakes < move)
      << "SYNC_FIRST not durable before the move:\n"
      << log_then;
  EXPECT_EQ(log_then.find(returned), std::string::npos) << "returned/ synced before the go:\n"
                                                        << log_then;
  const size_t synced = log.find(" sync-dirs " + returned + "\n"),
               closing = log.find(" sync-dirs " + l_.MissionDir(Phase::kRunning, "U"));
  EXPECT_TRUE(synced != std::string::npos && closing != std::string::npos && synced < closing)
      << "returned/ not synced before running/:\n"
      << log;
}

// A move's calls: its files durable in FROM/ID (each file's data, then the directory) before the
// rename, which is durable too (TO, then FROM). Syncing FROM/ID and TO at once would save a wait,
// but a power loss between the two could leave TO/ID durable without its files: a returned
// mission without its return.json.
TEST_F(TransitionsTest, AMoveIsDurableFileByFileBeforeItsRename) {
  std::filesystem::create_directories(l_.MissionDir(Phase::kRunning, "M"));
  std::filesystem::create_directories(l_.MissionDir(Phase::kHold, "H"));
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  Move mv{"M", Phase::kRunning, Phase::kReturned, {{"return.json", "{r}"}, {"x.json", "{x}"}}, {}};
  ASSERT_TRUE(PerformMove(&env, l_, mv).ok());
  ASSERT_TRUE(PerformMove(&env, l_, Move{"H", Phase::kHold, Phase::kQueued, {}, {}}).ok());
  const std::string run = l_.StateDir(Phase::kRunning), ret = l_.StateDir(Phase::kReturned);
  EXPECT_EQ(Read(root_ + "/fault.log"),
            "1 write-files " + run + "/M/return.json return.json,x.json\n" +  //
                "2 rename " + run + "/M " + ret + "/M\n" +                    //
                "3 rename " + l_.StateDir(Phase::kHold) + "/H " + l_.StateDir(Phase::kQueued) +
                "/H\n");
  EXPECT_EQ(Read(ret + "/M/return.json") + Read(ret + "/M/x.json"), "{r}{x}");
  EXPECT_FALSE(std::filesystem::exists(run + "/M"));
  EXPECT_TRUE(std::filesystem::is_directory(l_.MissionDir(Phase::kQueued, "H")));
}

// A retry's launch finds its room with the attempt before's work in it: the room, ops/ and the
// room_dirs are not made again, so no call is logged that a power loss could take back with that
// work beneath it; what is missing (a room_dir the profile added) is made.
TEST_F(TransitionsTest, ARetrysLaunchMakesOnlyWhatItsRoomLacks) {
  std::filesystem::create_directories(l_.MissionDir(Phase::kQueued, "W"));
  const std::string room = l_.Room("W");
  std::filesystem::create_directories(room + "/ops");
  std::filesystem::create_directories(room + "/out");
  std::ofstream(room + "/out/work.txt") << "attempt 1";
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  Launch launch;
  launch.id = "W";
  launch.attempt = 2;
  launch.plan.room = room;
  launch.plan.room_dirs = {"out", "new"};
  launch.plan_text = "{}";
  launch.prompt = "go\n";
  LaunchPrep r = PrepareLaunch(&env, l_, launch, 0);
  ASSERT_TRUE(r.ok) << r.error;
  const std::string log = Read(root_ + "/fault.log");
  EXPECT_EQ(log.find("mkdir-visible " + room + "\n"), std::string::npos) << log;
  EXPECT_EQ(log.find("mkdir-visible " + room + "/ops\n"), std::string::npos) << log;
  EXPECT_EQ(log.find("mkdir-visible " + room + "/out\n"), std::string::npos) << log;
  EXPECT_NE(log.find("mkdir-visible " + room + "/new\n"), std::string::npos) << log;
  EXPECT_EQ(Read(room + "/out/work.txt"), "attempt 1");
}

// At start, what a cut launch left unsynced is synced as its closing sync would have: returned/
// first (a return renamed before the launch), then every directory in running/ (not a dot-name, a
// file or a link: a stray file there must not stop the start), running/ and rooms/ at once, then
// queued/.
TEST_F(TransitionsTest, AStartSyncsWhatACutLaunchLeftUnsynced) {
  for (const char* id : {"A", "B", ".tmp"})
    std::filesystem::create_directories(l_.StateDir(Phase::kRunning) + "/" + id);
  std::ofstream(l_.StateDir(Phase::kRunning) + "/notes.txt") << "a stray file";  // no directory
  std::filesystem::create_directory_symlink(root_, l_.StateDir(Phase::kRunning) + "/link");
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(root_ + "/fault.log").ok());
  ASSERT_TRUE(SyncCutLaunches(&env, l_).ok());
  const std::string run = l_.StateDir(Phase::kRunning);
  std::string log = Read(root_ + "/fault.log");
  const std::string first = "1 sync-dirs " + l_.StateDir(Phase::kReturned) + "\n";
  ASSERT_EQ(log.rfind(first, 0), 0u) << log;
  log = log.substr(first.size());
  // ListDir's order is the directory's: compare the named directories as a set.
  ASSERT_EQ(log.rfind("2 sync-dirs ", 0), 0u) << log;
  std::istringstream words(log.substr(12));
  std::set<std::string> named;
  for (std::string w; words >> w;) named.insert(w);
  EXPECT_EQ(named, (std::set<std::string>{run + "/A", run + "/B", run, l_.rooms,
                                          l_.StateDir(Phase::kQueued)}))
      << log;
  EXPECT_EQ(log.substr(log.size() - l_.StateDir(Phase::kQueued).size() - 1),
            l_.StateDir(Phase::kQueued) + "\n");  // queued/ last
}

}  // namespace
}  // namespace hangar
