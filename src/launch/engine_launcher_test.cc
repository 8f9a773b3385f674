// The engine launchers' logic — at most once, observation, cancel, what an end becomes — driven
// through a fake CommandRunner that records every command line and answers as the engine would.
#include "launch/engine_launcher.h"

#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>

#include "base/json.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;
using Argv = std::vector<std::string>;
using State = EngineReport::State;

// Answers each command with the first queued answer whose program (and, if given, subcommand)
// matches; records every command line.
struct FakeEngine {
  struct Answer {
    std::string program, word;  // word: an argument the command line must hold ("" any)
    CommandResult result;
  };
  std::deque<Answer> answers;
  std::vector<Argv> calls;

  void Say(std::string program, std::string word, int rc, std::string out, std::string err = "") {
    CommandResult r;
    r.started = true;
    r.rc = rc;
    r.out = std::move(out);
    r.err = std::move(err);
    answers.push_back({std::move(program), std::move(word), std::move(r)});
  }

  CommandRunner Runner() {
    return [this](const Argv& argv) {
      calls.push_back(argv);
      for (auto it = answers.begin(); it != answers.end(); ++it) {
        if (it->program != argv[0]) continue;
        if (!it->word.empty() && std::find(argv.begin(), argv.end(), it->word) == argv.end())
          continue;
        CommandResult r = it->result;
        answers.erase(it);
        return r;
      }
      CommandResult none;
      none.error = "no answer queued for " + argv[0];
      return none;
    };
  }
};

std::string Show(const std::string& unit, const std::string& load, const std::string& active,
                 int code = 0, int status = 0, const std::string& result = "success") {
  return "Id=" + unit + "\nLoadState=" + load + "\nActiveState=" + active +
         "\nSubState=x\nResult=" + result + "\nExecMainCode=" + std::to_string(code) +
         "\nExecMainStatus=" + std::to_string(status) +
         "\nExecMainStartTimestamp=\nExecMainExitTimestamp=\n";
}

class EngineLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hangar-engine-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = fs::canonical(tmpl);
    fs::create_directories(dir_ + "/run");
    plan_.id = "W-1";
    plan_.attempt = 1;
    plan_.room = dir_ + "/room";
    plan_.run = dir_ + "/run";
    plan_.deadline_ms = plan_.enforced_deadline_ms = 60000;
    plan_.argv = {"/bin/true"};
  }
  void TearDown() override { fs::remove_all(dir_); }

  bool Has(const std::string& name) { return fs::exists(plan_.run + "/" + name); }

  // Plans of missions A, B and C run by LAUNCHER, each with its own run directory.
  std::vector<Plan> ThreePlans(const std::string& launcher) {
    std::vector<Plan> plans;
    for (const char* id : {"A", "B", "C"}) {
      Plan p = plan_;
      p.launcher = launcher;
      p.id = id;
      p.run = dir_ + "/run-" + id;
      fs::create_directories(p.run);
      plans.push_back(p);
    }
    return plans;
  }

  std::string dir_;
  Plan plan_;
  FakeEngine engine_;
  const std::string shim_ = "/opt/hangar/bin/hangar-shim";
};

TEST_F(EngineLauncherTest, SystemdStartsTheUnitOnlyWhenNoUnitOfThatNameExists) {
  plan_.launcher = "systemd";
  auto l = MakeSystemdLauncher(RealEnv(), shim_, engine_.Runner(), SystemdOptions{});
  engine_.Say("systemctl", "show", 0, Show("hangar-W-1-1.service", "not-found", "inactive"));
  engine_.Say("systemd-run", "", 0, "");
  ASSERT_TRUE(l->Start(plan_, "/s/plan.json", "abc").ok());
  ASSERT_EQ(engine_.calls.size(), 2u);
  EXPECT_EQ(engine_.calls[1], SystemdRunArgv(plan_, shim_, "/s/plan.json", "abc", {}));
  EXPECT_TRUE(Has("engine-start.json")) << "written before systemd was asked";
  Result<std::string> id = ReadEngineId(RealEnv(), plan_);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "hangar-W-1-1.service");

  // The same name again (a second hangard, a key lost): never a second start.
  engine_.calls.clear();
  engine_.Say("systemctl", "show", 0, Show("hangar-W-1-1.service", "loaded", "active"));
  fs::remove(plan_.run + "/engine-start.json");
  Status again = l->Start(plan_, "/s/plan.json", "abc");
  EXPECT_EQ(again.code(), Code::kExists);
  EXPECT_FALSE(Has("engine-start.json")) << "written although systemd was not asked to start";
  EXPECT_EQ(engine_.calls.size(), 1u) << "systemd-run was called";
}

TEST_F(EngineLauncherTest, SystemdRefusesAShimPathTheManagerWouldExpand) {
  plan_.launcher = "systemd";
  auto l = MakeSystemdLauncher(RealEnv(), "/opt/$HOME/hangar-shim", engine_.Runner(), {});
  EXPECT_EQ(l->Start(plan_, "/s/plan.json", "abc").code(), Code::kInvalid);
  EXPECT_TRUE(engine_.calls.empty());
}

TEST_F(EngineLauncherTest, SystemdRefusesAProgramThatCannotBeExecutedWithTheDirectReason) {
  plan_.launcher = "systemd";
  auto l = MakeSystemdLauncher(RealEnv(), shim_, engine_.Runner(), {});
  plan_.argv = {dir_ + "/no-such-drone"};
  Status s = l->Start(plan_, "/s/plan.json", "abc");
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_EQ(s.message(), "cannot execute " + dir_ + "/no-such-drone: No such file or directory");
  std::ofstream(dir_ + "/not-exec") << "#!/bin/sh\n";
  fs::permissions(dir_ + "/not-exec", fs::perms::owner_read | fs::perms::owner_write);
  plan_.argv = {dir_ + "/not-exec"};
  s = l->Start(plan_, "/s/plan.json", "abc");
  EXPECT_EQ(s.message(),
            "cannot execute " + dir_ + "/not-exec: Permission denied (not executable)");
  EXPECT_TRUE(engine_.calls.empty()) << "systemd was asked to start it";
  EXPECT_FALSE(Has("engine-start.json"));
}

TEST_F(EngineLauncherTest, SystemdObservesTheUnitThenItsExecStopPostRecord) {
  plan_.launcher = "systemd";
  auto l = MakeSystemdLauncher(RealEnv(), shim_, engine_.Runner(), {});
  ASSERT_TRUE(
      WriteEngineRecord(RealEnv(), plan_, "systemd", "hangar-W-1-1.service", "hangar-W-1-1.service")
          .ok());
  engine_.Say("systemctl", "show", 0, Show("hangar-W-1-1.service", "loaded", "active"));
  Result<EngineReport> r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kRunning);

  // The unit ended and systemd forgot it (--collect): ExecStopPost's record says how.
  json::Value rec = UnitEndedRecord({{"SERVICE_RESULT", "timeout"},
                                     {"EXIT_CODE", "killed"},
                                     {"EXIT_STATUS", "TERM"},
                                     {"HANGAR_UNIT", "hangar-W-1-1.service"}},
                                    1'800'000'000'000);
  std::ofstream(plan_.run + "/unit-ended.json") << json::WritePretty(rec);
  engine_.calls.clear();
  r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(engine_.calls.empty()) << "asked systemd although the end was recorded";
  EXPECT_EQ(r->state, State::kEnded);
  EXPECT_TRUE(r->exit.timed_out);
  EXPECT_FALSE(r->exit.cancelled);
  EXPECT_EQ(r->exit.signal, 15);
  EXPECT_EQ(r->exit.ended, 1'800'000'000'000);
  EXPECT_GT(r->exit.started, 0) << "started is the submission time when systemd gave none";
}

TEST_F(EngineLauncherTest, SystemdCancelIsRecordedFirstAndTheEndIsACancel) {
  plan_.launcher = "systemd";
  auto l = MakeSystemdLauncher(RealEnv(), shim_, engine_.Runner(), {});
  engine_.Say("systemctl", "stop", 0, "");
  ASSERT_TRUE(l->Cancel(plan_).ok());
  EXPECT_TRUE(Has("cancel.json"));
  ASSERT_EQ(engine_.calls.size(), 1u);
  EXPECT_EQ(engine_.calls[0], SystemctlStopArgv("hangar-W-1-1.service", {}));
  json::Value rec = UnitEndedRecord({{"SERVICE_RESULT", "success"},
                                     {"EXIT_CODE", "killed"},
                                     {"EXIT_STATUS", "TERM"},
                                     {"HANGAR_UNIT", "hangar-W-1-1.service"}},
                                    1'800'000'000'000);
  std::ofstream(plan_.run + "/unit-ended.json") << json::WritePretty(rec);
  Result<EngineReport> r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kEnded);
  EXPECT_TRUE(r->exit.cancelled);
  // A record of another unit (another attempt) is never taken for this one's.
  rec = UnitEndedRecord({{"SERVICE_RESULT", "success"},
                         {"EXIT_CODE", "exited"},
                         {"EXIT_STATUS", "0"},
                         {"HANGAR_UNIT", "hangar-W-1-2.service"}},
                        1'800'000'000'000);
  std::ofstream(plan_.run + "/unit-ended.json") << json::WritePretty(rec);
  r = l->Observe(plan_);
  EXPECT_EQ(r.status().code(), Code::kInvalid);
}

TEST_F(EngineLauncherTest, SystemdUnknownUnitIsGoneButANoAnswerIsNot) {
  plan_.launcher = "systemd";
  auto l = MakeSystemdLauncher(RealEnv(), shim_, engine_.Runner(), {});
  engine_.Say("systemctl", "show", 0, Show("hangar-W-1-1.service", "not-found", "inactive"));
  Result<EngineReport> r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kUnknown);
  engine_.Say("systemctl", "show", 1, "", "Failed to connect to bus: No such file or directory");
  r = l->Observe(plan_);
  EXPECT_EQ(r.status().code(), Code::kUnavailable);
  EXPECT_NE(r.status().message().find("Failed to connect to bus"), std::string::npos);
  // A show for another unit is never taken for ours.
  engine_.Say("systemctl", "show", 0, Show("hangar-W-1-other-1.service", "loaded", "active"));
  EXPECT_FALSE(l->Observe(plan_).ok());
}

// ---- Slurm: the answers are lines recorded from Slurm 22.05 (testdata/slurm), job names adjusted.

TEST_F(EngineLauncherTest, SlurmSubmitsOnlyWhenNoJobOfThatExactNameExists) {
  plan_.launcher = "slurm";
  auto l = MakeSlurmLauncher(RealEnv(), shim_, engine_.Runner(), SlurmOptions{});
  // squeue -n lists a job of a longer name too on some versions: only the exact name counts.
  engine_.Say("squeue", "", 0,
              "8|hangar-W-1-10|RUNNING|0|None|2026-11-30T11:51:42|2026-11-30T11:52:42|vm\n");
  engine_.Say("sbatch", "", 0, "15\n");
  ASSERT_TRUE(l->Start(plan_, "/s/plan.json", "abc").ok());
  ASSERT_EQ(engine_.calls.size(), 2u);
  EXPECT_EQ(engine_.calls[0], SqueueByNameArgv("hangar-W-1-1", {}));
  EXPECT_EQ(engine_.calls[1], SbatchArgv(plan_, plan_.run + "/job.sh", {}));
  std::ifstream script(plan_.run + "/job.sh");
  std::string text((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, BatchScript(shim_, "/s/plan.json", "abc"));
  Result<std::string> id = ReadEngineId(RealEnv(), plan_);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "15");

  engine_.calls.clear();
  engine_.Say("squeue", "", 0,
              "15|hangar-W-1-1|RUNNING|0|None|2026-11-30T11:51:42|2026-11-30T11:52:42|vm\n");
  EXPECT_EQ(l->Start(plan_, "/s/plan.json", "abc").code(), Code::kExists);
  EXPECT_EQ(engine_.calls.size(), 1u) << "sbatch was called again";
}

TEST_F(EngineLauncherTest, SlurmFollowsTheJobFromSqueueToScontrolToTheCompletionLog) {
  plan_.launcher = "slurm";
  auto l = MakeSlurmLauncher(RealEnv(), shim_, engine_.Runner(), {});
  ASSERT_TRUE(WriteEngineRecord(RealEnv(), plan_, "slurm", "hangar-W-1-1", "3").ok());
  engine_.Say("squeue", "", 0,
              "3|hangar-W-1-1|RUNNING|0|None|2026-11-30T11:50:25|2026-11-30T11:51:25|vm\n");
  Result<EngineReport> r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kRunning);
  EXPECT_EQ(engine_.calls.back(), SqueueArgv({"3"}, {}));

  // Retained: squeue has the end. TIMEOUT is the deadline.
  engine_.Say("squeue", "", 0,
              "3|hangar-W-1-1|TIMEOUT|15|TimeLimit|2026-11-30T11:50:25|2026-11-30T11:51:28|vm\n");
  r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kEnded);
  EXPECT_TRUE(r->exit.timed_out);

  // Purged: squeue and scontrol know no such id; the completion log still does.
  engine_.calls.clear();
  engine_.Say("squeue", "", 1, "", "slurm_load_jobs error: Invalid job id specified\n");
  engine_.Say("scontrol", "", 1, "", "slurm_load_jobs error: Invalid job id specified\n");
  engine_.Say("sacct", "", 0,
              "3|hangar-W-1-1|TIMEOUT|0:0|2026-11-30T11:50:25|2026-11-30T11:51:28|vm\n");
  r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kEnded);
  EXPECT_TRUE(r->exit.timed_out);
  ASSERT_EQ(engine_.calls.size(), 3u);
  EXPECT_EQ(engine_.calls[1], ScontrolShowArgv("3", {}));
  EXPECT_EQ(engine_.calls[2], SacctCompletionArgv("3", {}));

  // Known nowhere: gone. The controller down: no answer, never "gone".
  engine_.Say("squeue", "", 1, "", "slurm_load_jobs error: Invalid job id specified\n");
  engine_.Say("scontrol", "", 1, "", "slurm_load_jobs error: Invalid job id specified\n");
  engine_.Say("sacct", "", 0, "");
  r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kUnknown);
  engine_.Say("squeue", "", 1, "",
              "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n");
  engine_.Say("scontrol", "", 1, "",
              "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n");
  r = l->Observe(plan_);
  EXPECT_EQ(r.status().code(), Code::kUnavailable) << r.status().message();
}

TEST_F(EngineLauncherTest, SlurmFindsAJobWhoseIdWasNotKeptByItsExactName) {
  plan_.launcher = "slurm";
  auto l = MakeSlurmLauncher(RealEnv(), shim_, engine_.Runner(), {});
  engine_.Say("squeue", "-n", 0,
              "21|hangar-W-1-1|RUNNING|0|None|2026-11-30T11:50:25|2026-11-30T11:51:25|vm\n");
  engine_.Say("squeue", "-j", 0,
              "21|hangar-W-1-1|RUNNING|0|None|2026-11-30T11:50:25|2026-11-30T11:51:25|vm\n");
  Result<EngineReport> r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kRunning);
  EXPECT_EQ(r->id, "21");
  Result<std::string> kept = ReadEngineId(RealEnv(), plan_);
  ASSERT_TRUE(kept.ok()) << "the id found by name is kept";
  EXPECT_EQ(*kept, "21");
  EXPECT_EQ(engine_.calls[0], SqueueByNameArgv("hangar-W-1-1", {}));
  // No job of the name at all: never submitted (a crash before sbatch) or long forgotten.
  fs::remove(plan_.run + "/engine.json");
  engine_.Say("squeue", "-n", 0, "");
  r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kUnknown);
}

TEST_F(EngineLauncherTest, SlurmSbatchThatRanButFailedMayHaveSubmittedTheJob) {
  plan_.launcher = "slurm";
  auto l = MakeSlurmLauncher(RealEnv(), shim_, engine_.Runner(), {});
  engine_.Say("squeue", "", 0, "");
  engine_.Say("sbatch", "", 1, "",
              "sbatch: error: Batch job submission failed: Socket timed out on send/recv "
              "operation\n");
  Status s = l->Start(plan_, "/s/plan.json", "abc");
  EXPECT_EQ(s.code(), Code::kUnavailable) << "taken as failed, the job could run unwatched";
  // And a cancel of a job Slurm does not know yet is asked again, not taken as done.
  engine_.Say("squeue", "-n", 0, "");
  EXPECT_EQ(l->Cancel(plan_).code(), Code::kUnavailable);
}

TEST_F(EngineLauncherTest, ACancelAfterTheDroneEndedByItselfIsNoCancel) {
  plan_.launcher = "slurm";
  auto l = MakeSlurmLauncher(RealEnv(), shim_, engine_.Runner(), {});
  ASSERT_TRUE(WriteEngineRecord(RealEnv(), plan_, "slurm", "hangar-W-1-1", "5").ok());
  ASSERT_TRUE(WriteCancelRecord(RealEnv(), plan_).ok());  // now, in 2026 or later
  engine_.Say("squeue", "", 0,
              "5|hangar-W-1-1|COMPLETED|0|None|2020-01-01T00:00:00|2020-01-01T00:00:05|vm\n");
  Result<EngineReport> r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kEnded);
  EXPECT_FALSE(r->exit.cancelled);
}

TEST_F(EngineLauncherTest, SlurmAsksSqueueOnceForAllItsJobsThenOneByOneForThePurged) {
  auto l = MakeSlurmLauncher(RealEnv(), shim_, engine_.Runner(), {});
  std::vector<Plan> plans = ThreePlans("slurm");
  ASSERT_TRUE(WriteEngineRecord(RealEnv(), plans[0], "slurm", "hangar-A-1", "31").ok());
  ASSERT_TRUE(WriteEngineRecord(RealEnv(), plans[1], "slurm", "hangar-B-1", "32").ok());
  ASSERT_TRUE(WriteEngineRecord(RealEnv(), plans[2], "slurm", "hangar-C-1", "33").ok());
  // squeue leaves out the purged 32.
  engine_.Say("squeue", "-j", 0,
              "33|hangar-C-1|RUNNING|0|None|2026-11-30T11:50:25|2026-11-30T11:51:25|vm\n"
              "31|hangar-A-1|COMPLETED|0|None|2026-11-30T11:50:25|2026-11-30T11:50:40|vm\n");
  engine_.Say("scontrol", "", 1, "", "slurm_load_jobs error: Invalid job id specified\n");
  engine_.Say("sacct", "", 0,
              "32|hangar-B-1|FAILED|3:0|2026-11-30T11:50:25|2026-11-30T11:50:30|vm\n");
  std::vector<Result<EngineReport>> r = l->ObserveAll(plans);
  ASSERT_EQ(r.size(), 3u);
  ASSERT_TRUE(r[0].ok() && r[1].ok() && r[2].ok());
  EXPECT_EQ(r[0]->state, State::kEnded);
  EXPECT_EQ(r[1]->state, State::kEnded);
  EXPECT_EQ(r[1]->exit.rc, 3);
  EXPECT_EQ(r[2]->state, State::kRunning);
  EXPECT_EQ(engine_.calls[0], SqueueArgv({"31", "32", "33"}, {}));
  // One squeue for all; 32, absent from it, is asked of scontrol and sacct only.
  ASSERT_EQ(engine_.calls.size(), 3u);
  EXPECT_EQ(engine_.calls[1], ScontrolShowArgv("32", {}));
  EXPECT_EQ(engine_.calls[2], SacctCompletionArgv("32", {}));

  // The controller down: one failed squeue, and nobody is asked again this round.
  engine_.calls.clear();
  engine_.Say("squeue", "-j", 1, "",
              "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n");
  r = l->ObserveAll(plans);
  ASSERT_EQ(r.size(), 3u);
  for (const auto& x : r) EXPECT_EQ(x.status().code(), Code::kUnavailable);
  EXPECT_EQ(engine_.calls.size(), 1u);
}

TEST_F(EngineLauncherTest, SystemdReadsRecordedEndsThenAsksOneShowForTheRest) {
  auto l = MakeSystemdLauncher(RealEnv(), shim_, engine_.Runner(), {});
  std::vector<Plan> plans = ThreePlans("systemd");
  std::ofstream(plans[1].run + "/unit-ended.json")
      << json::WritePretty(UnitEndedRecord({{"SERVICE_RESULT", "exit-code"},
                                            {"EXIT_CODE", "exited"},
                                            {"EXIT_STATUS", "3"},
                                            {"HANGAR_UNIT", "hangar-B-1.service"}},
                                           1'800'000'000'000));
  engine_.Say("systemctl", "show", 0,
              Show("hangar-A-1.service", "loaded", "active") + "\n" +
                  Show("hangar-C-1.service", "not-found", "inactive"));
  std::vector<Result<EngineReport>> r = l->ObserveAll(plans);
  ASSERT_EQ(r.size(), 3u);
  ASSERT_TRUE(r[0].ok() && r[1].ok() && r[2].ok());
  EXPECT_EQ(r[0]->state, State::kRunning);
  EXPECT_EQ(r[1]->state, State::kEnded);
  EXPECT_EQ(r[1]->exit.rc, 3);
  EXPECT_EQ(r[2]->state, State::kUnknown);
  ASSERT_EQ(engine_.calls.size(), 1u);
  EXPECT_EQ(engine_.calls[0], SystemctlShowArgv({"hangar-A-1.service", "hangar-C-1.service"}, {}));
}

TEST_F(EngineLauncherTest, AnEngineThatDoesNotAnswerIsNotAskedAgainInTheSameLook) {
  auto l = MakeSystemdLauncher(RealEnv(), shim_, engine_.Runner(), {});
  Plan a = plan_, b = plan_;
  a.launcher = b.launcher = "systemd";
  b.id = "W-2";
  engine_.Say("systemctl", "show", 1, "", "Failed to connect to bus: No such file or directory");
  std::vector<Result<EngineReport>> r = l->ObserveAll({a, b});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].status().code(), Code::kUnavailable);
  EXPECT_EQ(r[1].status().code(), Code::kUnavailable);
  EXPECT_EQ(engine_.calls.size(), 1u);
}

TEST_F(EngineLauncherTest, SlurmCancelIsRecordedAndScancelledAndTheEndIsObserved) {
  plan_.launcher = "slurm";
  auto l = MakeSlurmLauncher(RealEnv(), shim_, engine_.Runner(), {});
  ASSERT_TRUE(WriteEngineRecord(RealEnv(), plan_, "slurm", "hangar-W-1-1", "4").ok());
  engine_.Say("squeue", "", 0,
              "4|hangar-W-1-1|RUNNING|0|None|2026-11-30T11:50:25|2026-11-30T11:51:25|vm\n");
  engine_.Say("scancel", "", 0, "");
  ASSERT_TRUE(l->Cancel(plan_).ok());
  EXPECT_TRUE(Has("cancel.json"));
  EXPECT_EQ(engine_.calls.back(), ScancelArgv("4", {}));
  engine_.Say("squeue", "", 0,
              "4|hangar-W-1-1|CANCELLED|15|None|2026-11-30T11:50:25|2026-11-30T11:50:40|vm\n");
  Result<EngineReport> r = l->Observe(plan_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kEnded);
  EXPECT_TRUE(r->exit.cancelled);
  // A job of another name under the recorded id is refused, never taken for ours.
  engine_.Say("squeue", "", 0,
              "4|hangar-W-1-other-1|RUNNING|0|None|2026-11-30T11:50:25|2026-11-30T11:51:25|vm\n");
  EXPECT_EQ(l->Observe(plan_).status().code(), Code::kInvalid);
}

}  // namespace
}  // namespace hangar
