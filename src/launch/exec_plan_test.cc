// bin/hangar-shim --exec and --unit-ended, driven as a systemd unit or a Slurm batch script would.
#include "launch/exec_plan.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/json.h"
#include "base/sha256.h"
#include "kernel/plan.h"
#include "launch/command.h"
#include "launch/shim_path_testutil.h"
#include "launch/systemd_unit.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class ExecPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(BuiltShimPath())) << BuiltShimPath() << ": build bin/hangar-shim first";
    char tmpl[] = "/tmp/hangar-exec-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = fs::canonical(tmpl);
    room_ = dir_ + "/room";
    run_ = dir_ + "/run";
    fs::create_directory(room_);
    fs::create_directory(run_);
    std::ofstream(run_ + "/prompt.md") << "reach the future\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  Plan MakePlan(std::vector<std::string> argv, const std::string& launcher = "slurm") {
    Plan p;
    p.id = "M";
    p.launcher = launcher;
    p.argv = std::move(argv);
    p.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", room_}, {"HANGAR_MISSION", "M"}};
    p.room = room_;
    p.run = run_;
    p.stdin_path = run_ + "/prompt.md";
    p.deadline_ms = p.enforced_deadline_ms = 60000;
    p.sandbox.engine = "none";  // the sandbox's own tests cover bubblewrap
    p.sandbox.write = {room_};
    return p;
  }

  // Writes the plan; returns its sha256.
  std::string Write(const Plan& p) {
    const std::string text = json::WritePretty(p.ToJson());
    std::ofstream(dir_ + "/plan.json") << text;
    return Sha256Hex(text);
  }

  CommandResult Exec(const std::string& sha) {
    return RunCommand({BuiltShimPath(), "--exec", dir_ + "/plan.json", sha});
  }

  std::string dir_, room_, run_;
};

TEST_F(ExecPlanTest, BecomesTheDroneInItsRoomWithExactlyThePlansEnvironmentAndStdio) {
  const std::string sha = Write(MakePlan(
      {"sh", "-c", "echo out; echo err >&2; pwd > where; env | sort > env.txt; cat; exit 3"}));
  CommandResult r = Exec(sha);
  ASSERT_TRUE(r.started);
  ASSERT_TRUE(r.rc);
  EXPECT_EQ(*r.rc, 3);   // the drone's own status: the engine reports it
  EXPECT_EQ(r.out, "");  // nothing on the engine's stdout: the drone's went to run/stdout
  EXPECT_EQ(Slurp(run_ + "/stdout"), "out\nreach the future\n");
  EXPECT_EQ(Slurp(run_ + "/stderr"), "err\n");
  EXPECT_EQ(Slurp(room_ + "/where"), room_ + "\n");
  EXPECT_EQ(Slurp(room_ + "/env.txt"),
            "HANGAR_MISSION=M\nHOME=" + room_ + "\nPATH=/usr/bin:/bin\nPWD=" + room_ + "\n");
}

TEST_F(ExecPlanTest, APlanChangedAfterTheGateIsNeverRun) {
  const std::string sha = Write(MakePlan({"sh", "-c", "touch ran"}));
  std::ofstream(dir_ + "/plan.json", std::ios::app) << " ";
  CommandResult r = Exec(sha);
  ASSERT_TRUE(r.rc);
  EXPECT_EQ(*r.rc, kExecBadPlan);
  EXPECT_NE(r.err.find("a plan changed after the gate is never run"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(room_ + "/ran"));
}

TEST_F(ExecPlanTest, ADirectPlanIsTheSupervisorsNotAnEngines) {
  CommandResult r = Exec(Write(MakePlan({"sh", "-c", "touch ran"}, "direct")));
  ASSERT_TRUE(r.rc);
  EXPECT_EQ(*r.rc, kExecBadPlan);
  EXPECT_NE(r.err.find("launcher: \"direct\" is not run by an engine"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(room_ + "/ran"));
}

TEST_F(ExecPlanTest, AProgramThatCannotBeFoundSaysSoOnTheEnginesStderr) {
  CommandResult r = Exec(Write(MakePlan({"hangar-no-such-drone"})));
  ASSERT_TRUE(r.rc);
  EXPECT_EQ(*r.rc, kExecCannotRun);
  EXPECT_NE(r.err.find("cannot start drone for mission M: cannot execute hangar-no-such-drone"),
            std::string::npos)
      << r.err;
}

TEST_F(ExecPlanTest, UnitEndedKeepsWhatSystemdSaidOfTheEnd) {
  CommandResult r = RunCommand({BuiltShimPath(), "--unit-ended", run_}, std::chrono::seconds(10),
                               {"SERVICE_RESULT=exit-code", "EXIT_CODE=exited", "EXIT_STATUS=3",
                                "HANGAR_UNIT=hangar-M-1.service"});
  ASSERT_TRUE(r.ok()) << r.Describe("hangar-shim");
  Result<json::Value> doc = json::Parse(Slurp(run_ + "/unit-ended.json"));
  ASSERT_TRUE(doc.ok());
  Result<EngineReport> e = ReportFromUnitEnded(*doc);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->state, EngineReport::State::kEnded);
  EXPECT_EQ(e->name, "hangar-M-1.service");
  ASSERT_TRUE(e->exit.rc);
  EXPECT_EQ(*e->exit.rc, 3);
  EXPECT_FALSE(e->exit.timed_out);
}

TEST_F(ExecPlanTest, UsageIsRefused) {
  CommandResult r = RunCommand({BuiltShimPath(), "--exec", "only-one-arg"});
  ASSERT_TRUE(r.rc);
  EXPECT_EQ(*r.rc, 64);
  EXPECT_NE(r.err.find("usage: hangar-shim PLAN_FILE SHA256"), std::string::npos);
}

}  // namespace
}  // namespace hangar
