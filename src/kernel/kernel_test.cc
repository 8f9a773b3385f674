// Unit tests of the pure kernel: no disk, no clock, no processes.
#include "kernel/kernel.h"

#include <gtest/gtest.h>

#include "kernel/kernel_testutil.h"

namespace hangar {
namespace {

KernelSetup TestSetup(int slots = 1) {
  KernelSetup s = ScriptSetup(slots);
  Profile& p = s.config.profiles["script"];
  p.argv = {"{bindir}/drone", "{room}"};
  p.last_message = "{run}/last.txt";
  return s;
}

std::string MissionText(const std::string& id_field, const std::string& extra = "") {
  return "{\"hangar\":1," + id_field +
         "\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":0.5" +
         extra + "}";
}

Dropped Drop(const std::string& name, const std::string& bytes, TimeMs now = 1000) {
  return Dropped{name, bytes, "", now, {}};
}

TEST(Kernel, ValidDropIsQueuedThenLaunchedWithDeadlineAndKeyAttempt) {
  KernelSetup s = TestSetup();
  State st;
  auto acts = Decide(s, &st, Drop("a.json", MissionText("\"id\":\"M1\",")));
  auto in = Only<Intake>(acts);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].id, "M1");
  EXPECT_EQ(in[0].to, Phase::kQueued);
  json::Value intake = Json(in[0].files["intake.json"]);
  EXPECT_EQ(intake.find("drone")->as_string(), "script");  // as taken in, for hangar ls
  EXPECT_EQ(intake.find("requester")->as_string(), "t");
  EXPECT_EQ(Json(in[0].files["gate1.json"]).find("verdict")->as_string(), "allow");
  auto l = Only<Launch>(acts);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 1);
  EXPECT_EQ(l[0].plan.deadline_ms, 30000);
  EXPECT_EQ(l[0].plan.argv, (std::vector<std::string>{"/b/drone", "/s/rooms/M1"}));
  EXPECT_EQ(l[0].plan.run, "/s/running/M1/run");
  EXPECT_EQ(Json(l[0].gate2_text).find("verdict")->as_string(), "allow");
  EXPECT_EQ(st.missions["M1"].phase, Phase::kRunning);
  EXPECT_EQ(st.running, 1);
}

TEST(Kernel, SlotsBoundConcurrentDrones) {
  KernelSetup s = TestSetup(1);
  State st;
  Decide(s, &st, Drop("a", MissionText("\"id\":\"A\",")));
  auto acts = Decide(s, &st, Drop("b", MissionText("\"id\":\"B\",")));
  EXPECT_TRUE(Only<Launch>(acts).empty());
  EXPECT_EQ(st.missions["B"].phase, Phase::kQueued);
  ExitInfo e;
  e.rc = 0;
  acts = Decide(s, &st, DroneExited{"A", e, 2000});
  ASSERT_EQ(Only<Observe>(acts).size(), 1u);
  auto l = Only<Launch>(acts);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].id, "B");
}

TEST(Kernel, InvalidMissionIsRejectedWithFieldAndReason) {
  KernelSetup s = TestSetup();
  State st;
  auto acts = Decide(s, &st, Drop("x.json", MissionText("\"id\":\"R1\",", ",\"bogus\":1")));
  auto in = Only<Intake>(acts);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].to, Phase::kRejected);
  EXPECT_EQ(in[0].id, "R1");
  json::Value why = Json(in[0].files["why.json"]);
  EXPECT_EQ(why.find("field")->as_string(), "bogus");
  EXPECT_EQ(why.find("reason")->as_string(),
            "unknown field (a mission has hangar, id, requester, drone, future, now, constraints, "
            "acts, ops, writes, done_when, network, egress, max_minutes, notify, workspace)");
  EXPECT_TRUE(Only<Launch>(acts).empty());
  // Not a mission: its intake record names no drone or requester (readers go to mission.raw).
  json::Value intake = Json(in[0].files["intake.json"]);
  EXPECT_FALSE(intake.find("drone"));
  EXPECT_FALSE(intake.find("requester"));
}

TEST(Kernel, UnreadableDropIsRejectedUnderItsName) {
  KernelSetup s = TestSetup();
  State st;
  auto acts = Decide(s, &st, Dropped{"fifo1", "", "not a regular file", 5, {}});
  auto in = Only<Intake>(acts);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].id, "fifo1");
  EXPECT_EQ(Json(in[0].files["why.json"]).find("reason")->as_string(), "not a regular file");
}

TEST(Kernel, DuplicateIdIsRejectedUnderAFreshIdAndTheFirstIsUntouched) {
  KernelSetup s = TestSetup();
  State st;
  Decide(s, &st, Drop("a", MissionText("\"id\":\"D\",")));
  auto acts = Decide(s, &st, Drop("b", MissionText("\"id\":\"D\",")));
  auto in = Only<Intake>(acts);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_NE(in[0].id, "D");
  EXPECT_EQ(in[0].to, Phase::kRejected);
  EXPECT_EQ(Json(in[0].files["why.json"]).find("field")->as_string(), "id");
  EXPECT_EQ(st.missions["D"].phase, Phase::kRunning);
  EXPECT_TRUE(Only<Move>(acts).empty());
}

TEST(Kernel, UnknownProfileIsRejectedNamingTheKnownOnes) {
  KernelSetup s = TestSetup();
  State st;
  std::string m = MissionText("\"id\":\"P\",");
  m.replace(m.find("script"), 6, "nope");
  auto in = Only<Intake>(Decide(s, &st, Drop("p", m)));
  ASSERT_EQ(in.size(), 1u);
  json::Value why = Json(in[0].files["why.json"]);
  EXPECT_EQ(why.find("field")->as_string(), "drone");
  EXPECT_NE(why.find("reason")->as_string().find("known: script"), std::string::npos);
}

TEST(Kernel, MissingIdComesFromTheFileNameElseIsGenerated) {
  KernelSetup s = TestSetup(0);
  State st;
  auto in = Only<Intake>(Decide(s, &st, Drop("job-7.json", MissionText(""))));
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].id, "job-7");
  in = Only<Intake>(Decide(s, &st, Drop("job-7.json", MissionText(""), 1732907143123)));
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].id, "20241129T190543.123Z-000001");
  EXPECT_EQ(in[0].to, Phase::kQueued);
}

Signal ExitSig(const std::string& id, std::optional<int> rc, bool timed_out = false) {
  ExitInfo e;
  e.rc = rc;
  if (!rc) e.signal = 15;
  e.timed_out = timed_out;
  e.started = 1000;
  e.ended = 2000;
  return DroneExited{id, e, 2000};
}

json::Value ReturnOf(const std::vector<Action>& acts) {
  auto mv = Only<Move>(acts);
  EXPECT_EQ(mv.size(), 1u);
  if (mv.empty()) return json::Value();
  EXPECT_EQ(mv[0].to, Phase::kReturned);
  return Json(mv[0].files["return.json"]);
}

TEST(Kernel, OutcomeIsDoneOnlyWhenRcZeroAndEveryCheckPassed) {
  struct Case {
    std::optional<int> rc;
    bool timed_out, checks;
    const char* outcome;
  } cases[] = {{0, false, true, "done"},
               {0, false, false, "failed"},
               {3, false, true, "failed"},
               {std::nullopt, true, true, "timed_out"},
               {std::nullopt, false, true, "killed"}};
  for (const Case& c : cases) {
    KernelSetup s = TestSetup();
    State st;
    Decide(s, &st, Drop("a", MissionText("\"id\":\"O\",")));
    Decide(s, &st, ExitSig("O", c.rc, c.timed_out));
    Observation obs;
    obs.checks_passed = c.checks;
    json::Value ret = ReturnOf(Decide(s, &st, Observed{"O", obs, 3000}));
    EXPECT_EQ(ret.find("outcome")->as_string(), c.outcome);
    EXPECT_EQ(st.missions["O"].phase, Phase::kReturned);
  }
}

TEST(Kernel, CancelQueuedReturnsWithoutRunningAndCancelRunningKills) {
  KernelSetup s = TestSetup(1);
  State st;
  Decide(s, &st, Drop("a", MissionText("\"id\":\"RUN\",")));
  Decide(s, &st, Drop("b", MissionText("\"id\":\"Q\",")));
  auto acts = Decide(
      s, &st, ControlDropped{"c1", R"({"hangar":1,"request":"cancel","id":"Q"})", "", 5, kRoot});
  json::Value ret = ReturnOf(acts);
  EXPECT_EQ(ret.find("outcome")->as_string(), "cancelled");
  EXPECT_EQ(Only<Move>(acts)[0].from, Phase::kQueued);
  ASSERT_EQ(Only<ConsumeControl>(acts).size(), 1u);
  EXPECT_FALSE(Only<ConsumeControl>(acts)[0].bad);
  acts = Decide(
      s, &st, ControlDropped{"c2", R"({"hangar":1,"request":"cancel","id":"RUN"})", "", 6, kRoot});
  ASSERT_EQ(Only<Kill>(acts).size(), 1u);
  EXPECT_TRUE(Only<Launch>(acts).empty());  // Q is gone, nothing else to launch
}

TEST(Kernel, NothingLaunchesBeforeReadySoAWaitingCancelIsReadFirst) {
  KernelSetup s = TestSetup(1);
  State st;
  st.ready = false;  // hangard recovering
  auto acts = Decide(s, &st, [] {
    Recovered r;
    r.id = "Q";
    r.phase = Phase::kQueued;
    r.mission_bytes = MissionText("");
    r.accepted = 1;
    r.now = 2;
    return r;
  }());
  EXPECT_TRUE(Only<Launch>(acts).empty());
  acts = Decide(s, &st,
                ControlDropped{"c", R"({"hangar":1,"request":"cancel","id":"Q"})", "", 3, kRoot});
  EXPECT_EQ(ReturnOf(acts).find("outcome")->as_string(), "cancelled");
  Decide(s, &st, Drop("b", MissionText("\"id\":\"B\",")));
  acts = Decide(s, &st, Ready{4});
  ASSERT_EQ(Only<Launch>(acts).size(), 1u);
  EXPECT_EQ(Only<Launch>(acts)[0].id, "B");
}

TEST(Kernel, CancelOutcomeComesFromTheSupervisorsRecordOnly) {
  KernelSetup s = TestSetup(1);
  State st;
  Decide(s, &st, Drop("a", MissionText("\"id\":\"E\",")));
  Decide(s, &st, ControlDropped{"c", R"({"hangar":1,"request":"cancel","id":"E"})", "", 2, kRoot});
  Decide(s, &st, ExitSig("E", 0));  // it ended on its own before the signal reached it
  json::Value ret = ReturnOf(Decide(s, &st, Observed{"E", Observation{}, 3}));
  EXPECT_EQ(ret.find("outcome")->as_string(), "done");
}

TEST(Kernel, BadControlRequestIsSetAsideWithAReason) {
  KernelSetup s = TestSetup();
  State st;
  auto acts = Decide(
      s, &st, ControlDropped{"c", R"({"hangar":1,"request":"explode","id":"X"})", "", 1, kRoot});
  auto c = Only<ConsumeControl>(acts);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].bad);
  EXPECT_NE(c[0].why.find("unknown request"), std::string::npos);
}

TEST(Kernel, ExistingLaunchKeyMeansLostNeverRelaunched) {
  KernelSetup s = TestSetup();
  State st;
  auto acts = Decide(s, &st, Drop("a", MissionText("\"id\":\"K\",")));
  ASSERT_EQ(Only<Launch>(acts).size(), 1u);
  acts = Decide(s, &st, LaunchDone{"K", false, true, false, "keys/launch.K.1", 10});
  json::Value ret = ReturnOf(acts);
  EXPECT_EQ(ret.find("outcome")->as_string(), "lost");
  EXPECT_EQ(Only<Move>(acts)[0].from, Phase::kQueued);
  EXPECT_TRUE(Only<Launch>(acts).empty());
  EXPECT_EQ(st.running, 0);
}

Recovered Running(const std::string& id, std::optional<ExitInfo> exit, bool alive) {
  Recovered r;
  r.id = id;
  r.phase = Phase::kRunning;
  r.mission_bytes = MissionText("");
  r.accepted = 1;
  r.attempt = 1;
  r.exit = exit;
  r.supervisor_alive = alive;
  r.now = 9;
  return r;
}

TEST(Kernel, RecoveredRunningMissionIsReattachedObservedOrLost) {
  KernelSetup s = TestSetup(2);
  State st;
  Recovered alive = Running("A", std::nullopt, true);
  auto acts = Decide(s, &st, alive);
  EXPECT_TRUE(Only<Observe>(acts).empty());
  EXPECT_EQ(st.running, 1);
  Recovered gone = Running("G", std::nullopt, false);
  acts = Decide(s, &st, gone);
  ASSERT_EQ(Only<Observe>(acts).size(), 1u);
  Observation obs;
  json::Value ret = ReturnOf(Decide(s, &st, Observed{"G", obs, 10}));
  EXPECT_EQ(ret.find("outcome")->as_string(), "lost");
  ExitInfo e;
  e.rc = 0;
  Recovered ended = Running("E", e, false);
  acts = Decide(s, &st, ended);
  ASSERT_EQ(Only<Observe>(acts).size(), 1u);
  EXPECT_EQ(Only<Observe>(acts)[0].last_message, "/s/running/E/run/last.txt");
}

TEST(Kernel, SameSignalsGiveSameActions) {
  auto run = [] {
    KernelSetup s = TestSetup(1);
    State st;
    std::string log;
    std::vector<Signal> sigs = {Drop("a", MissionText("")), Drop("b", MissionText("\"id\":\"B\",")),
                                Drop("c", "{not json"), ExitSig("a", 0)};
    for (const Signal& sig : sigs)
      for (const Action& a : Decide(s, &st, sig)) {
        if (auto* l = std::get_if<Log>(&a)) log += l->line + "\n";
        if (auto* l = std::get_if<Launch>(&a)) log += l->plan_text + l->prompt;
        if (auto* i = std::get_if<Intake>(&a))
          for (auto& [k, v] : i->files) log += k + v;
      }
    return log;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace hangar
