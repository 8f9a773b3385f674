// hangar retry in the kernel: a returned mission whose attempt did not end normally goes back to
// queued and is launched as attempt N+1 under a new key, the mission.retry entry before the act;
// everything else (done, cancelled before it ran, attempt N maybe alive, not returned...) is
// refused as a bad control, and nothing moves. Pure: no disk.
#include <gtest/gtest.h>

#include "base/sha256.h"
#include "kernel/control.h"
#include "kernel/kernel.h"
#include "kernel/kernel_testutil.h"

namespace hangar {
namespace {

std::string Bytes(const std::string& id) {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1}";
}

// What the shell would read of returned/ID after attempt `attempt` ended with `outcome`.
RetryFacts Facts(const std::string& id, const std::string& outcome, bool ran = true,
                 int attempt = 1) {
  RetryFacts f;
  f.outcome = outcome;
  f.ran = ran;
  f.attempt = attempt;
  f.mission_bytes = Bytes(id);
  f.intake_sha256 = Sha256Hex(Bytes(id));
  f.accepted = 500;
  return f;
}

ControlDropped RetryOf(const std::string& id, std::optional<RetryFacts> f, TimeMs now = 9000) {
  ControlDropped c{"retry." + id,
                   R"({"hangar":1,"request":"retry","id":")" + id + R"(","by":"ann"})",
                   "",
                   now,
                   kRoot,
                   std::move(f)};
  return c;
}

// Mission ID taken in, launched as attempt 1, and returned: lost (its supervisor vanished) or,
// with exit, ended as that exit says.
void ReturnedMission(const KernelSetup& s, State* st, const std::string& id,
                     std::optional<ExitInfo> exit = std::nullopt) {
  Decide(s, st, Dropped{id + ".json", Bytes(id), "", 1000, {}});
  Decide(s, st, LaunchDone{id, true, false, true, "", 1100});
  if (exit)
    Decide(s, st, DroneExited{id, *exit, 2000});
  else
    Decide(s, st, SupervisorGone{id, 2000});
  Decide(s, st, Observed{id, Observation{}, 2100});
  ASSERT_EQ(st->missions[id].phase, Phase::kReturned);
}

TEST(KernelRetry, LostMissionIsRecordedThenRelaunchedAsTheNextAttemptUnderANewKey) {
  KernelSetup s = ScriptSetup();
  State st;
  ReturnedMission(s, &st, "M1");
  const int64_t before = st.ledger_seq;
  auto acts = Decide(s, &st, RetryOf("M1", Facts("M1", "lost", false)));

  // The entry comes before the act it backs, and the act before the launch of attempt 2.
  ASSERT_GE(acts.size(), 3u);
  auto* rec = std::get_if<Record>(&acts[0]);
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->kind, "mission.retry");
  EXPECT_EQ(rec->seq, before + 1);
  EXPECT_EQ(rec->body.find("id")->as_string(), "M1");
  EXPECT_EQ(rec->body.find("by")->as_string(), "root");  // the dropper, as the OS said
  EXPECT_EQ(rec->body.find("claimed_by")->as_string(), "ann");
  EXPECT_EQ(rec->body.find("previous")->as_int(), 1);
  EXPECT_EQ(rec->body.find("previous_outcome")->as_string(), "lost");
  EXPECT_EQ(rec->body.find("attempt")->as_int(), 2);
  EXPECT_EQ(rec->body.find("key")->as_string(), "launch.M1.2");
  auto rt = Only<Retry>(acts);
  ASSERT_EQ(rt.size(), 1u);
  EXPECT_EQ(rt[0].id, "M1");
  EXPECT_EQ(rt[0].previous, 1);
  json::Value rj = Json(rt[0].files["retry.json"]);
  EXPECT_EQ(rj.find("attempt")->as_int(), 2);
  EXPECT_EQ(rj.find("previous")->as_int(), 1);
  EXPECT_EQ(rj.find("ledger_seq")->as_int(), before + 1);
  auto l = Only<Launch>(acts);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 2);
  EXPECT_EQ(l[0].plan.attempt, 2);
  auto records = Only<Record>(acts);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].kind, "mission.launched");
  EXPECT_EQ(records[1].body.find("key")->as_string(), "launch.M1.2");
  auto cc = Only<ConsumeControl>(acts);
  ASSERT_EQ(cc.size(), 1u);
  EXPECT_FALSE(cc[0].bad);
  EXPECT_EQ(st.missions["M1"].phase, Phase::kRunning);
  EXPECT_EQ(st.missions["M1"].attempt, 2);
  EXPECT_FALSE(st.missions["M1"].lost);
  EXPECT_FALSE(st.missions["M1"].exited);

  // Attempt 2 ends normally: its return says attempt 2 and done.
  ExitInfo ok;
  ok.rc = 0;
  Decide(s, &st, DroneExited{"M1", ok, 12000});
  auto done = Only<Move>(Decide(s, &st, Observed{"M1", Observation{}, 12100}));
  ASSERT_EQ(done.size(), 1u);
  json::Value ret = Json(done[0].files["return.json"]);
  EXPECT_EQ(ret.find("attempt")->as_int(), 2);
  EXPECT_EQ(ret.find("outcome")->as_string(), "done");
}

TEST(KernelRetry, WaitsInQueuedWhileNoSlotIsFree) {
  KernelSetup s = ScriptSetup(1);
  State st;
  ReturnedMission(s, &st, "M1");
  Decide(s, &st, Dropped{"B.json", Bytes("B"), "", 3000, {}});  // takes the one slot
  auto acts = Decide(s, &st, RetryOf("M1", Facts("M1", "lost", false)));
  EXPECT_EQ(Only<Retry>(acts).size(), 1u);
  EXPECT_TRUE(Only<Launch>(acts).empty());
  EXPECT_EQ(st.missions["M1"].phase, Phase::kQueued);
}

TEST(KernelRetry, EveryEndThatWasNotNormalIsRetried) {
  for (const char* outcome : {"lost", "failed", "timed_out", "killed", "cancelled"}) {
    KernelSetup s = ScriptSetup();
    State st;
    ReturnedMission(s, &st, "M1");
    auto acts = Decide(s, &st, RetryOf("M1", Facts("M1", outcome, true)));
    EXPECT_EQ(Only<Retry>(acts).size(), 1u) << outcome;
    EXPECT_EQ(st.missions["M1"].attempt, 2) << outcome;
  }
}

TEST(KernelRetry, ItsAttemptIsTheLargestKnownPlusOne) {
  KernelSetup s = ScriptSetup();
  State st;
  ReturnedMission(s, &st, "M1");
  auto acts = Decide(s, &st, RetryOf("M1", Facts("M1", "failed", true, 4)));
  ASSERT_EQ(Only<Launch>(acts).size(), 1u);
  EXPECT_EQ(Only<Launch>(acts)[0].attempt, 5);
}

// Refused: a control.refused entry, the request kept in control/bad with why, nothing moved.
void ExpectRefused(const KernelSetup& s, State* st, const ControlDropped& c,
                   const std::string& reason_part) {
  const Phase before = st->missions.count("M1") ? st->missions["M1"].phase : Phase::kRejected;
  auto acts = Decide(s, st, c);
  auto records = Only<Record>(acts);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].kind, "control.refused");
  const std::string reason = records[0].body.find("reason")->as_string();
  EXPECT_NE(reason.find(reason_part), std::string::npos) << reason;
  auto cc = Only<ConsumeControl>(acts);
  ASSERT_EQ(cc.size(), 1u);
  EXPECT_TRUE(cc[0].bad);
  EXPECT_TRUE(Only<Retry>(acts).empty());
  EXPECT_TRUE(Only<Launch>(acts).empty());
  EXPECT_TRUE(Only<Move>(acts).empty());
  if (st->missions.count("M1")) {
    EXPECT_EQ(st->missions["M1"].phase, before);
  }
}

TEST(KernelRetry, DoneIsRefused) {
  KernelSetup s = ScriptSetup();
  State st;
  ExitInfo ok;
  ok.rc = 0;
  ReturnedMission(s, &st, "M1", ok);
  ExpectRefused(s, &st, RetryOf("M1", Facts("M1", "done")), "attempt 1 is done");
}

TEST(KernelRetry, CancelledBeforeItRanIsRefused) {
  KernelSetup s = ScriptSetup(0);
  State st;
  Decide(s, &st, Dropped{"M1.json", Bytes("M1"), "", 1000, {}});
  Decide(s, &st,
         ControlDropped{"c", R"({"hangar":1,"request":"cancel","id":"M1"})", "", 1500, kRoot});
  ASSERT_EQ(st.missions["M1"].phase, Phase::kReturned);
  ExpectRefused(s, &st, RetryOf("M1", Facts("M1", "cancelled", false, 0)),
                "cancelled before it ran");
}

TEST(KernelRetry, AnAttemptThatMayStillBeAliveIsRefused) {
  KernelSetup s = ScriptSetup();
  State st;
  ReturnedMission(s, &st, "M1");
  RetryFacts f = Facts("M1", "lost", false);
  f.alive = "its drone (pid 42, started at tick 7) still runs";
  ExpectRefused(s, &st, RetryOf("M1", f), "attempt 1 of M1 may still be alive: its drone");
}

TEST(KernelRetry, WhatIsNotReturnedIsRefused) {
  KernelSetup s = ScriptSetup();
  State st;
  Decide(s, &st, Dropped{"M1.json", Bytes("M1"), "", 1000, {}});  // running
  ExpectRefused(s, &st, RetryOf("M1", std::nullopt), "is running, not returned");
  ExpectRefused(s, &st, RetryOf("M9", std::nullopt), "retry: no mission M9");
  Decide(s, &st, Dropped{"bad.json", "{", "", 1000, {}});  // rejected under its name
  ExpectRefused(s, &st, RetryOf("bad", std::nullopt), "is rejected, not returned");
}

TEST(KernelRetry, AMissionChangedAfterIntakeOrAnUnreadableReturnIsRefused) {
  KernelSetup s = ScriptSetup();
  State st;
  ReturnedMission(s, &st, "M1");
  RetryFacts f = Facts("M1", "lost", false);
  f.intake_sha256 = Sha256Hex("something else");
  ExpectRefused(s, &st, RetryOf("M1", f), "changed after intake");
  f = Facts("M1", "lost", false);
  f.read_error = "cannot read /s/returned/M1/return.json: No such file or directory";
  ExpectRefused(s, &st, RetryOf("M1", f), "cannot read /s/returned/M1/return.json");
  ExpectRefused(s, &st, RetryOf("M1", std::nullopt), "nothing was read of returned/M1");
}

TEST(KernelRetry, RefusedWhileFailedClosed) {
  KernelSetup s = ScriptSetup();
  State st;
  ReturnedMission(s, &st, "M1");
  Decide(s, &st, LedgerFailed{"anchor mismatch", 5000});
  ExpectRefused(s, &st, RetryOf("M1", Facts("M1", "lost", false)), "failed closed");
}

TEST(KernelRetry, ARetriedMissionFoundQueuedAtStartLaunchesTheAttemptAfterItsRetryJson) {
  KernelSetup s = ScriptSetup();
  State st;
  st.ready = false;
  Recovered r;
  r.id = "M1";
  r.phase = Phase::kQueued;
  r.mission_bytes = Bytes("M1");
  r.intake_sha256 = Sha256Hex(Bytes("M1"));
  r.attempt = 1;  // retry.json "previous"
  Decide(s, &st, r);
  auto l = Only<Launch>(Decide(s, &st, Ready{3000}));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].attempt, 2);
}

TEST(RetryOutcomeRefusal, NamesWhatIsRetried) {
  for (const char* o : {"lost", "failed", "timed_out", "killed"}) {
    EXPECT_EQ(RetryOutcomeRefusal(o, false, 1), "") << o;
    EXPECT_EQ(RetryOutcomeRefusal(o, true, 1), "") << o;
  }
  EXPECT_EQ(RetryOutcomeRefusal("cancelled", true, 1), "");
  EXPECT_NE(RetryOutcomeRefusal("cancelled", false, 0), "");
  EXPECT_NE(RetryOutcomeRefusal("done", true, 3).find("attempt 3 is done"), std::string::npos);
  EXPECT_NE(RetryOutcomeRefusal("", false, 0), "");
}

TEST(ParseControl, RetryTakesAnIdOnly) {
  auto ok = ParseControl(R"({"hangar":1,"request":"retry","id":"M1","by":"ann"})");
  ASSERT_TRUE(std::holds_alternative<ControlRequest>(ok));
  EXPECT_EQ(std::get<ControlRequest>(ok).kind, ControlKind::kRetry);
  EXPECT_EQ(std::get<ControlRequest>(ok).id, "M1");
  auto bad = ParseControl(R"({"hangar":1,"request":"retry","id":"../x"})");
  ASSERT_TRUE(std::holds_alternative<ParseError>(bad));
  EXPECT_EQ(std::get<ParseError>(bad).field, "id");
  bad = ParseControl(R"({"hangar":1,"request":"retry","id":"M1","why":"x"})");
  ASSERT_TRUE(std::holds_alternative<ParseError>(bad));
  EXPECT_EQ(std::get<ParseError>(bad).field, "why");
}

}  // namespace
}  // namespace hangar
