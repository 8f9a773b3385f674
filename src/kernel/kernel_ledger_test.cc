// The kernel and its ledger: every decision is a Record placed before the action it backs, seqs
// run on from State::ledger_seq, mission files carry their entry's seq, and a failed-closed
// kernel launches nothing and grants nothing until a reanchor. Pure: no disk.
#include <gtest/gtest.h>

#include "base/sha256.h"
#include "kernel/kernel.h"
#include "kernel/kernel_testutil.h"

namespace hangar {
namespace {

KernelSetup LedgerSetup(int slots = 1) {
  return ScriptSetup(slots);
}

std::string Mission(const std::string& id) {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1}";
}

int64_t SeqIn(const std::string& text) {
  Result<json::Value> v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << text;
  const json::Value* s = v.ok() ? v->find("ledger_seq") : nullptr;
  return s && s->is_int() ? s->as_int() : -1;
}

// A mission found in hold/ at start, taken in as these very bytes.
Recovered Held(const std::string& id, const std::string& bytes = "") {
  Recovered r;
  r.id = id;
  r.phase = Phase::kHold;
  r.mission_bytes = bytes.empty() ? Mission(id) : bytes;
  r.accepted = 500;
  r.now = 1000;
  r.intake_sha256 = Sha256Hex(Mission(id));
  return r;
}

ControlDropped Control(const std::string& body, TimeMs now = 5000) {
  return ControlDropped{"req", "{\"hangar\":1," + body + "}", "", now, kRoot};
}

TEST(KernelLedger, RecordsComeBeforeTheActsTheyBackAndFilesNameTheirSeq) {
  KernelSetup s = LedgerSetup();
  State st;
  st.ledger_seq = 41;  // the ledger already holds 41 entries
  auto acts = Decide(s, &st, Dropped{"a", Mission("M1"), "", 1000, {}});
  ASSERT_GE(acts.size(), 4u);
  auto recs = Only<Record>(acts);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].seq, 42);
  EXPECT_EQ(recs[0].kind, "mission.accepted");
  EXPECT_EQ(recs[1].seq, 43);
  EXPECT_EQ(recs[1].kind, "mission.launched");
  EXPECT_EQ(recs[1].body["key"].as_string(), "launch.M1.1");
  // Order: Record(accepted) before the Intake, Record(launched) before the Launch.
  EXPECT_TRUE(std::holds_alternative<Record>(acts[0]));
  EXPECT_TRUE(std::holds_alternative<Intake>(acts[1]));
  size_t launch_at = 0, launched_at = 0;
  for (size_t i = 0; i < acts.size(); i++) {
    if (std::holds_alternative<Launch>(acts[i])) launch_at = i;
    if (auto* r = std::get_if<Record>(&acts[i]); r && r->kind == "mission.launched")
      launched_at = i;
  }
  EXPECT_LT(launched_at, launch_at);
  auto in = Only<Intake>(acts)[0];
  EXPECT_EQ(SeqIn(in.files["intake.json"]), 42);
  EXPECT_EQ(SeqIn(in.files["gate1.json"]), 42);
  auto l = Only<Launch>(acts)[0];
  EXPECT_EQ(SeqIn(l.gate2_text), 43);
  EXPECT_EQ(recs[1].body["plan_sha256"].as_string(), Sha256Hex(l.plan_text));
  EXPECT_EQ(st.ledger_seq, 43);

  ExitInfo e;
  e.rc = 0;
  Decide(s, &st, DroneExited{"M1", e, 2000});
  acts = Decide(s, &st, Observed{"M1", Observation{}, 3000});
  recs = Only<Record>(acts);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].kind, "mission.returned");
  EXPECT_EQ(recs[0].seq, 44);
  const std::string ret = Only<Move>(acts)[0].files["return.json"];
  EXPECT_EQ(SeqIn(ret), 44);
  EXPECT_EQ(recs[0].body["sha256"].as_string(), Sha256Hex(ret));
}

TEST(KernelLedger, RejectionsAndRefusedControlsAreRecordedToo) {
  KernelSetup s = LedgerSetup();
  State st;
  auto acts = Decide(s, &st, Dropped{"bad.json", "{not json", "", 1000, {}});
  auto recs = Only<Record>(acts);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].kind, "mission.rejected");
  EXPECT_EQ(SeqIn(Only<Intake>(acts)[0].files["why.json"]), 1);
  acts = Decide(s, &st, Control("\"request\":\"launch-everything\""));
  recs = Only<Record>(acts);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].kind, "control.refused");
  EXPECT_TRUE(Only<ConsumeControl>(acts)[0].bad);
}

TEST(KernelLedger, FailedClosedLaunchesNothingGrantsNothingUntilAReanchor) {
  KernelSetup s = LedgerSetup();
  State st;
  auto acts = Decide(s, &st, LedgerFailed{"hash-mismatch at seq 3", 1000});
  ASSERT_EQ(Only<Record>(acts).size(), 1u);
  EXPECT_EQ(Only<Record>(acts)[0].kind, "ledger.fail-closed");
  EXPECT_FALSE(MayLaunch(s, st));
  // A second failure keeps the first reason and records nothing more.
  EXPECT_TRUE(Only<Record>(Decide(s, &st, LedgerFailed{"again", 1001})).empty());
  EXPECT_EQ(st.fail_closed, "hash-mismatch at seq 3");

  acts = Decide(s, &st, Dropped{"a", Mission("M1"), "", 2000, {}});
  EXPECT_EQ(Only<Intake>(acts).size(), 1u);  // taken in: nothing dropped is lost
  EXPECT_TRUE(Only<Launch>(acts).empty());
  EXPECT_EQ(st.missions["M1"].phase, Phase::kQueued);

  acts = Decide(s, &st, Control("\"request\":\"grant\",\"op\":\"git.push\",\"mission\":\"M1\""));
  ASSERT_EQ(Only<ConsumeControl>(acts).size(), 1u);
  EXPECT_TRUE(Only<ConsumeControl>(acts)[0].bad);
  EXPECT_EQ(Only<Record>(acts)[0].kind, "control.refused");
  // A revocation only takes power away: it is recorded even now.
  acts = Decide(s, &st, Control("\"request\":\"revoke\",\"op\":\"git.push\",\"mission\":\"M1\""));
  EXPECT_EQ(Only<Record>(acts)[0].kind, "revoke");

  acts = Decide(s, &st, Control("\"request\":\"reanchor\",\"why\":\"reviewed\""));
  auto recs = Only<Record>(acts);
  ASSERT_GE(recs.size(), 2u);
  EXPECT_EQ(recs[0].kind, "ledger.reanchor");
  EXPECT_TRUE(recs[0].new_epoch);
  EXPECT_EQ(recs[0].body["failure"].as_string(), "hash-mismatch at seq 3");
  EXPECT_EQ(Only<Launch>(acts).size(), 1u);  // launches resume
  EXPECT_TRUE(st.fail_closed.empty());
  // Reanchoring a ledger that is not failed closed is refused.
  acts = Decide(s, &st, Control("\"request\":\"reanchor\",\"why\":\"why not\""));
  EXPECT_TRUE(Only<ConsumeControl>(acts)[0].bad);
}

TEST(KernelLedger, ApproveQueuesAHeldMissionAndDenyEndsIt) {
  KernelSetup s = LedgerSetup(2);
  State st;
  for (const char* id : {"H1", "H2"}) Decide(s, &st, Held(id));
  auto acts = Decide(s, &st, Control("\"request\":\"approve\",\"id\":\"H1\",\"by\":\"ana\""));
  auto recs = Only<Record>(acts);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].kind, "person.approved");
  EXPECT_EQ(recs[0].body["by"].as_string(), "root") << "who decided: the uid that dropped it";
  EXPECT_EQ(recs[0].body["claimed_by"].as_string(), "ana") << "the request's own by, a claim";
  auto mv = Only<Move>(acts);
  ASSERT_EQ(mv.size(), 1u);
  EXPECT_EQ(mv[0].to, Phase::kQueued);
  EXPECT_EQ(SeqIn(mv[0].files["approve.json"]), recs[0].seq);
  EXPECT_EQ(Only<Launch>(acts).size(), 1u);

  acts = Decide(s, &st, Control("\"request\":\"deny\",\"id\":\"H2\",\"why\":\"no\""));
  EXPECT_EQ(Only<Record>(acts)[0].kind, "person.denied");
  EXPECT_EQ(Only<Move>(acts)[0].to, Phase::kDenied);
  EXPECT_EQ(st.missions["H2"].phase, Phase::kDenied);
  // Approving what is no longer held is refused, on record.
  acts = Decide(s, &st, Control("\"request\":\"approve\",\"id\":\"H2\""));
  EXPECT_TRUE(Only<ConsumeControl>(acts)[0].bad);
  EXPECT_EQ(Only<Record>(acts)[0].kind, "control.refused");
}

TEST(KernelLedger, AGrantWhoseUntilIsPastIsRefused) {
  KernelSetup s = LedgerSetup();
  State st;
  auto acts = Decide(s, &st,
                     Control("\"request\":\"grant\",\"op\":\"web.post\",\"requester\":\"al\","
                             "\"until\":\"1970-01-01T00:00:01Z\"",
                             5000));
  EXPECT_TRUE(Only<ConsumeControl>(acts)[0].bad);
  acts = Decide(s, &st,
                Control("\"request\":\"grant\",\"op\":\"web.post\",\"requester\":\"al\","
                        "\"until\":\"2999-01-01T09:00:00+09:00\""));
  auto recs = Only<Record>(acts);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].kind, "grant");
  EXPECT_EQ(recs[0].body["until"].as_string(), "2999-01-01T00:00:00.000Z");
}

// Regression (issue 4): a mission edited in the spool after its approval is not launched on the old
// approval: at recovery its bytes no longer hash to what was taken in and approved, so it waits in
// hold for a person again, and the record says why.
TEST(KernelLedger, AMissionEditedAfterApprovalIsNotLaunchedOnTheOldApproval) {
  KernelSetup s = LedgerSetup();
  State st;
  Recovered r = Held("E1");
  r.phase = Phase::kQueued;  // approved before the restart, waiting for a slot
  r.approved_sha256 = r.intake_sha256;
  r.mission_bytes = Mission("E1") + " ";  // edited by hand while hangard was down
  st.ready = false;
  auto acts = Decide(s, &st, r);
  EXPECT_EQ(st.missions["E1"].phase, Phase::kHold);
  ASSERT_EQ(Only<Move>(acts).size(), 1u);
  EXPECT_EQ(Only<Move>(acts)[0].to, Phase::kHold);
  auto recs = Only<Record>(acts);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].kind, "mission.held");
  EXPECT_EQ(recs[0].body["rules"].as_array()[0].as_string(), "mission.changed");
  acts = Decide(s, &st, Ready{2000});
  EXPECT_TRUE(Only<Launch>(acts).empty());
  // A new approval binds to the bytes as they are now.
  acts = Decide(s, &st, Control("\"request\":\"approve\",\"id\":\"E1\""));
  ASSERT_EQ(Only<Launch>(acts).size(), 1u);
  EXPECT_EQ(Only<Record>(acts)[0].body["mission_sha256"].as_string(),
            Sha256Hex(Mission("E1") + " "));
}

// The same bytes recovered after an approval launch without asking again.
TEST(KernelLedger, AnUneditedApprovedMissionLaunchesAfterARestart) {
  KernelSetup s = LedgerSetup();
  State st;
  Recovered r = Held("E2");
  r.phase = Phase::kQueued;
  r.approved_sha256 = r.intake_sha256;
  st.ready = false;
  EXPECT_TRUE(Only<Move>(Decide(s, &st, r)).empty());
  EXPECT_EQ(Only<Launch>(Decide(s, &st, Ready{2000})).size(), 1u);
}

// Restore from a backup (man/hangar-spool.5, BACKUP AND RESTORE): what waited in the restored
// spool may have launched after the backup was taken. The reanchor returns it lost and launches
// nothing of it; a mission dropped after the start launches as usual.
TEST(KernelLedger, AReanchorAfterARollbackReturnsWhatTheBackupHeldLost) {
  KernelSetup s = LedgerSetup(4);
  State st;
  st.ready = false;
  Decide(s, &st, LedgerFailed{"rollback at seq 40", 1000, /*rolled_back=*/true});
  Recovered q = Held("Q1");
  q.phase = Phase::kQueued;
  Decide(s, &st, q);
  Decide(s, &st, Held("H1"));
  Decide(s, &st, Ready{1000});
  Dropped waited{"w.json", Mission("W1"), "", 1100, {}};
  waited.found_at_start = true;
  Decide(s, &st, waited);
  auto acts = Decide(s, &st, Dropped{"n.json", Mission("N1"), "", 2000, {}});  // after the start
  EXPECT_TRUE(Only<Launch>(acts).empty());                                     // failed closed

  acts = Decide(s, &st, Control("\"request\":\"reanchor\",\"why\":\"restored\""));
  auto recs = Only<Record>(acts);
  ASSERT_GE(recs.size(), 4u);
  EXPECT_EQ(recs[0].kind, "ledger.reanchor");
  EXPECT_EQ(json::Write(recs[0].body["returned_lost"]), "[\"H1\",\"Q1\",\"W1\"]");
  std::vector<std::string> launched;
  for (const Launch& l : Only<Launch>(acts)) launched.push_back(l.id);
  EXPECT_EQ(launched, std::vector<std::string>{"N1"});
  for (const char* id : {"H1", "Q1", "W1"}) {
    EXPECT_EQ(st.missions[id].phase, Phase::kReturned) << id;
    bool returned_lost = false;
    for (const Move& m : Only<Move>(acts))
      if (m.id == id && m.to == Phase::kReturned)
        returned_lost = Json(m.files.at("return.json"))["outcome"].as_string() == "lost";
    EXPECT_TRUE(returned_lost) << id;
  }
  EXPECT_FALSE(st.rolled_back);
}

// A grant in a tail the anchor never vouched for (folded at start like every grant) is void once
// the person reanchors: the reanchor never brings a forged grant to life.
TEST(KernelLedger, AReanchorVoidsTheUnvouchedGrants) {
  KernelSetup s = LedgerSetup();
  State st;
  ASSERT_TRUE(
      st.grants
          .Apply(GrantRecord{7, "grant", json::Object{{"op", "wire.funds"}, {"mission", "M1"}}})
          .ok());
  st.ledger_seq = 7;
  LedgerFailed f{"anchor-behind at seq 7: ... holds a grant entry (seq 7)", 1000};
  f.unvouched_grants = {7};
  Decide(s, &st, f);
  auto acts = Decide(s, &st, Control("\"request\":\"reanchor\",\"why\":\"not ours\""));
  auto recs = Only<Record>(acts);
  ASSERT_GE(recs.size(), 1u);
  EXPECT_EQ(json::Write(recs[0].body["void"]), "[7]");
  EXPECT_FALSE(st.grants.Allows("wire.funds", "M1", "", 2000));
}

// A failure that is not a rollback (an edited entry) leaves what waited to launch after the
// reanchor, as before.
TEST(KernelLedger, AReanchorAfterAnEditLaunchesWhatWaited) {
  KernelSetup s = LedgerSetup();
  State st;
  st.ready = false;
  Decide(s, &st, LedgerFailed{"hash-mismatch at seq 3", 1000});
  Recovered q = Held("Q1");
  q.phase = Phase::kQueued;
  Decide(s, &st, q);
  Decide(s, &st, Ready{1000});
  auto acts = Decide(s, &st, Control("\"request\":\"reanchor\",\"why\":\"reviewed\""));
  ASSERT_EQ(Only<Launch>(acts).size(), 1u);
  EXPECT_EQ(Only<Launch>(acts)[0].id, "Q1");
}

}  // namespace
}  // namespace hangar
