// The kernel's state table (kernel.h, hangard(8)), row by row: each test is named after its row's
// label and drives the kernel from that row's state with that row's signal, asserting the next
// state and the actions the row names, in order. kernel_table_test.cc checks that every row has
// its test here and its mark in the code. Pure: no disk.
#include <gtest/gtest.h>

#include "base/sha256.h"
#include "kernel/kernel.h"
#include "kernel/kernel_testutil.h"
#include "kernel/requester_memory.h"

namespace hangar {
namespace {

constexpr TimeMs kT = 1'000'000;

std::string Bytes(const std::string& id, const std::string& extra = "") {
  return ScriptMissionBytes(id, extra);
}

// The actions' kinds in order: a Record by its kind, every other action but Log by its type's
// name (a new action type fails to compile here until it is named).
std::vector<std::string> Kinds(const std::vector<Action>& acts) {
  std::vector<std::string> out;
  for (const Action& a : acts) {
    std::visit(
        [&out](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, Record>)
            out.push_back(x.kind);
          else if constexpr (std::is_same_v<T, Intake>)
            out.push_back("Intake");
          else if constexpr (std::is_same_v<T, Launch>)
            out.push_back("Launch");
          else if constexpr (std::is_same_v<T, Observe>)
            out.push_back("Observe");
          else if constexpr (std::is_same_v<T, Kill>)
            out.push_back("Kill");
          else if constexpr (std::is_same_v<T, Move>)
            out.push_back("Move");
          else if constexpr (std::is_same_v<T, ConsumeControl>)
            out.push_back("ConsumeControl");
          else if constexpr (std::is_same_v<T, RunOp>)
            out.push_back("RunOp");
          else if constexpr (std::is_same_v<T, AnswerOp>)
            out.push_back("AnswerOp");
          else if constexpr (std::is_same_v<T, Retry>)
            out.push_back("Retry");
          else if constexpr (std::is_same_v<T, WriteMemory>)
            out.push_back("WriteMemory");
          else if constexpr (std::is_same_v<T, Purge>)
            out.push_back("Purge");
          else if constexpr (std::is_same_v<T, Warm>)
            out.push_back("Warm");
          else if constexpr (std::is_same_v<T, Log>)
            return;  // lines for people: not asserted
          else
            static_assert(sizeof(T) == 0, "an action type Kinds does not name");
        },
        a);
  }
  return out;
}
using K = std::vector<std::string>;

std::string Outcome(const std::vector<Action>& acts) {
  for (const Move& m : Only<Move>(acts))
    if (m.to == Phase::kReturned) return Json(m.files.at("return.json"))["outcome"].as_string();
  return "(no return)";
}

ControlDropped Control(const std::string& body, TimeMs now = kT) {
  return ControlDropped{"req", "{\"hangar\":1," + body + "}", "", now, kRoot};
}

// A kernel with one script profile; the policy holds variable SECRET at stage 2, which the
// profile passes when `secret`.
class KernelRow : public ::testing::Test {
 protected:
  void Pass(bool secret) {
    if (secret) s_.config.profiles["script"].env["SECRET"] = "x";
    Policy pol = DefaultPolicy();
    pol.env_hold = {"SECRET"};
    s_.policy = pol;
    s_.policy_sha256 = PolicyDigest(pol);
    s_.text_rules = TextRules(pol);
  }
  std::vector<Action> Decide(const Signal& sig) { return hangar::Decide(s_, &st_, sig); }
  std::vector<Action> Drop(const std::string& id, const std::string& extra = "", TimeMs now = kT) {
    return Decide(Dropped{id + ".json", Bytes(id, extra), "", now, {}, kRoot});
  }
  Phase PhaseOf(const std::string& id) { return st_.missions.at(id).phase; }
  // ID dropped and launched (slot 1): its drone runs.
  void Running(const std::string& id) {
    ASSERT_EQ(Only<Launch>(Drop(id)).size(), 1u);
    Decide(LaunchDone{id, true, false, true, "", kT + 10});
  }
  // ID found in hold/ at start, taken in as these bytes.
  void Held(const std::string& id) {
    Recovered r;
    r.id = id;
    r.phase = Phase::kHold;
    r.mission_bytes = Bytes(id);
    r.intake_sha256 = Sha256Hex(Bytes(id));
    r.accepted = kT - 1000;
    r.now = kT - 1000;
    Decide(r);
  }
  // ID launched, its supervisor gone and its room observed: returned lost.
  void ReturnedLost(const std::string& id) {
    Running(id);
    Decide(SupervisorGone{id, kT + 20});
    Decide(Observed{id, Observation{}, kT + 30});
    ASSERT_EQ(PhaseOf(id), Phase::kReturned);
  }
  RetryFacts Facts(const std::string& id, const std::string& outcome, bool ran) {
    RetryFacts f;
    f.outcome = outcome;
    f.ran = ran;
    f.attempt = 1;
    f.mission_bytes = Bytes(id);
    f.intake_sha256 = Sha256Hex(Bytes(id));
    f.accepted = kT;
    return f;
  }

  KernelSetup s_ = ScriptSetup(1);
  State st_;
};

TEST_F(KernelRow, RecoveredAsFound) {
  st_.ready = false;
  Recovered r;
  r.id = "Q1";
  r.phase = Phase::kQueued;
  r.mission_bytes = Bytes("Q1");
  r.intake_sha256 = Sha256Hex(Bytes("Q1"));
  r.now = kT;
  EXPECT_EQ(Kinds(Decide(r)), K{});  // no launch before Ready
  EXPECT_EQ(PhaseOf("Q1"), Phase::kQueued);
}

TEST_F(KernelRow, RecoveredTwice) {
  Held("H1");
  Recovered again;
  again.id = "H1";
  again.phase = Phase::kQueued;
  again.mission_bytes = Bytes("H1");
  again.now = kT;
  auto acts = Decide(again);
  EXPECT_TRUE(Only<Move>(acts).empty() && Only<Launch>(acts).empty());
  EXPECT_EQ(PhaseOf("H1"), Phase::kHold);  // the one found first stands
  EXPECT_TRUE(st_.queue.empty());
}

TEST_F(KernelRow, Ready) {
  st_.ready = false;
  Drop("Q1");
  EXPECT_EQ(PhaseOf("Q1"), Phase::kQueued);
  EXPECT_EQ(Kinds(Decide(Ready{kT})), (K{"mission.launched", "Launch"}));
  EXPECT_EQ(PhaseOf("Q1"), Phase::kRunning);
}

TEST_F(KernelRow, DroppedInvalid) {
  auto acts = Drop("R1", ",\"bogus\":1");
  EXPECT_EQ(Kinds(acts), (K{"mission.rejected", "Intake"}));
  EXPECT_EQ(Only<Intake>(acts)[0].to, Phase::kRejected);
  EXPECT_EQ(Json(Only<Intake>(acts)[0].files.at("why.json"))["field"].as_string(), "bogus");
  EXPECT_EQ(PhaseOf("R1"), Phase::kRejected);
}

TEST_F(KernelRow, DroppedDuplicateId) {
  Drop("D1");
  auto acts = Drop("D1");
  ASSERT_EQ(Kinds(acts), (K{"mission.rejected", "Intake"}));
  const Intake in = Only<Intake>(acts)[0];
  EXPECT_EQ(in.to, Phase::kRejected);
  EXPECT_NE(in.id, "D1");  // under a fresh id: D1 stays the first mission's
  EXPECT_EQ(PhaseOf("D1"), Phase::kRunning);
}

TEST_F(KernelRow, DroppedAllowed) {
  s_.config.slots = 1;
  Running("A0");  // the one slot is taken: the next stays queued
  auto acts = Drop("A1");
  EXPECT_EQ(Kinds(acts), (K{"mission.accepted", "Intake"}));
  EXPECT_EQ(Only<Intake>(acts)[0].to, Phase::kQueued);
  EXPECT_EQ(PhaseOf("A1"), Phase::kQueued);
}

TEST_F(KernelRow, DroppedHeldOrDenied) {
  auto held = Drop("H1", ",\"network\":\"host\"");
  EXPECT_EQ(Kinds(held), (K{"mission.held", "Intake"}));
  EXPECT_EQ(PhaseOf("H1"), Phase::kHold);
  s_.policy.max_minutes = 0.5;  // below the mission's 1
  auto denied = Drop("N1");
  EXPECT_EQ(Kinds(denied), (K{"mission.denied", "Intake"}));
  EXPECT_EQ(PhaseOf("N1"), Phase::kDenied);
  EXPECT_TRUE(Only<Intake>(denied)[0].files.count("why.json"));
}

TEST_F(KernelRow, IntakeFailed) {
  Drop("F1");  // taken in and launched by the same decision
  ASSERT_EQ(st_.running, 1);
  EXPECT_EQ(Kinds(Decide(IntakeFailed{"F1.json", "F1", "No space left on device", kT})),
            K{"mission.intake-failed"});
  EXPECT_FALSE(st_.missions.count("F1"));
  EXPECT_EQ(st_.running, 0);
}

TEST_F(KernelRow, QueuedLaunched) {
  auto acts = Drop("L1");
  EXPECT_EQ(Kinds(acts), (K{"mission.accepted", "Intake", "mission.launched", "Launch"}));
  const Launch l = Only<Launch>(acts)[0];
  EXPECT_EQ(l.attempt, 1);
  EXPECT_EQ(l.plan_sha256, Sha256Hex(l.plan_text));
  EXPECT_EQ(PhaseOf("L1"), Phase::kRunning);
}

TEST_F(KernelRow, QueuedHeldOrDenied) {
  Pass(true);
  auto held = Drop("H2");
  EXPECT_EQ(Kinds(held), (K{"mission.accepted", "Intake", "mission.held", "Move"}));
  EXPECT_TRUE(Only<Move>(held)[0].files.count("gate2.json"));
  EXPECT_EQ(PhaseOf("H2"), Phase::kHold);
  EXPECT_FALSE(st_.missions.at("H2").approval.get().held_plan_sha256.empty());
  s_.config.profiles["script"].env = {{"SECRET", "x"}};
  s_.policy.env_deny = {"SECRET"};
  s_.policy.env_hold.clear();
  auto denied = Drop("N2");
  EXPECT_EQ(Kinds(denied), (K{"mission.accepted", "Intake", "mission.denied", "Move"}));
  EXPECT_TRUE(Only<Move>(denied)[0].files.count("why.json"));
  EXPECT_EQ(PhaseOf("N2"), Phase::kDenied);
}

TEST_F(KernelRow, QueuedProfileGone) {
  st_.ready = false;
  Drop("Z1");
  s_.config.profiles.erase("script");  // the config changed while it waited
  s_.config.profiles["other"] = Profile{};
  auto acts = Decide(Ready{kT});
  EXPECT_EQ(Kinds(acts), (K{"mission.denied", "Move"}));
  const Move mv = Only<Move>(acts)[0];
  EXPECT_EQ(mv.to, Phase::kDenied);
  EXPECT_EQ(Json(mv.files.at("why.json"))["field"].as_string(), "drone");
  EXPECT_EQ(PhaseOf("Z1"), Phase::kDenied);
}

TEST_F(KernelRow, LaunchKeyExisted) {
  Drop("K1");
  auto acts = Decide(LaunchDone{"K1", false, true, false, "launch.K1.1", kT + 10});
  EXPECT_EQ(Kinds(acts), (K{"mission.returned", "Move"}));
  EXPECT_EQ(Only<Move>(acts)[0].from, Phase::kQueued);
  EXPECT_EQ(Outcome(acts), "lost");
}

TEST_F(KernelRow, LaunchFailedBeforeKey) {
  Drop("K2");
  auto acts = Decide(LaunchDone{"K2", false, false, false, "mkdir room: EACCES", kT + 10});
  EXPECT_EQ(Kinds(acts), (K{"mission.returned", "Move"}));
  EXPECT_EQ(Only<Move>(acts)[0].from, Phase::kQueued);
  EXPECT_EQ(Outcome(acts), "failed");
  EXPECT_EQ(st_.running, 0);
}

TEST_F(KernelRow, LaunchFailedRunning) {
  Drop("K3");
  auto acts = Decide(LaunchDone{"K3", false, false, true, "supervisor: fork failed", kT + 10});
  EXPECT_EQ(Kinds(acts), (K{"mission.returned", "Move"}));
  EXPECT_EQ(Only<Move>(acts)[0].from, Phase::kRunning);
  EXPECT_EQ(Outcome(acts), "failed");
}

// A launch finished off the loop can report after its drone's end was seen: the end stands (no
// second return, no slot freed twice), and the observation returns the mission as it ran.
TEST_F(KernelRow, LaunchFailedAfterEnd) {
  Drop("K4");
  ExitInfo e;
  e.rc = 0;
  EXPECT_EQ(Kinds(Decide(DroneExited{"K4", e, kT + 20})), K{"Observe"});
  EXPECT_EQ(Kinds(Decide(LaunchDone{"K4", false, false, true, "no report in 10 s", kT + 25})), K{});
  EXPECT_EQ(PhaseOf("K4"), Phase::kRunning);
  EXPECT_EQ(st_.running, 0);
  EXPECT_EQ(Outcome(Decide(Observed{"K4", Observation{}, kT + 30})), "done");
}

TEST_F(KernelRow, DroneExited) {
  Running("E1");
  ExitInfo e;
  e.rc = 0;
  EXPECT_EQ(Kinds(Decide(DroneExited{"E1", e, kT + 20})), K{"Observe"});
  EXPECT_EQ(PhaseOf("E1"), Phase::kRunning);
  EXPECT_EQ(st_.running, 0);  // the slot is free while the room is looked at
}

TEST_F(KernelRow, SupervisorGone) {
  Running("G1");
  EXPECT_EQ(Kinds(Decide(SupervisorGone{"G1", kT + 20})), K{"Observe"});
  EXPECT_EQ(PhaseOf("G1"), Phase::kRunning);
  EXPECT_EQ(Outcome(Decide(Observed{"G1", Observation{}, kT + 30})), "lost");
}

TEST_F(KernelRow, Observed) {
  Running("O1");
  ExitInfo e;
  e.rc = 0;
  Decide(DroneExited{"O1", e, kT + 20});
  auto acts = Decide(Observed{"O1", Observation{}, kT + 30});
  EXPECT_EQ(Kinds(acts), (K{"mission.returned", "Move"}));
  EXPECT_EQ(Outcome(acts), "done");
  EXPECT_EQ(PhaseOf("O1"), Phase::kReturned);
}

TEST_F(KernelRow, CancelUnrun) {
  Held("C1");
  auto acts = Decide(Control(R"("request":"cancel","id":"C1")"));
  EXPECT_EQ(Kinds(acts), (K{"mission.cancel", "mission.returned", "Move", "ConsumeControl"}));
  EXPECT_EQ(Outcome(acts), "cancelled");
  EXPECT_EQ(PhaseOf("C1"), Phase::kReturned);
}

TEST_F(KernelRow, CancelRunning) {
  Running("C2");
  auto acts = Decide(Control(R"("request":"cancel","id":"C2")"));
  EXPECT_EQ(Kinds(acts), (K{"mission.cancel", "Kill", "ConsumeControl"}));
  EXPECT_EQ(PhaseOf("C2"), Phase::kRunning);
}

TEST_F(KernelRow, RetryAllowed) {
  ReturnedLost("T1");
  ControlDropped c = Control(R"("request":"retry","id":"T1")");
  c.retry = Facts("T1", "lost", true);
  auto acts = Decide(c);
  EXPECT_EQ(Kinds(acts),
            (K{"mission.retry", "Retry", "mission.launched", "Launch", "ConsumeControl"}));
  EXPECT_EQ(Only<Launch>(acts)[0].attempt, 2);
  EXPECT_EQ(PhaseOf("T1"), Phase::kRunning);
}

TEST_F(KernelRow, RetryRefused) {
  ReturnedLost("T2");
  ControlDropped c = Control(R"("request":"retry","id":"T2")");
  c.retry = Facts("T2", "done", true);
  auto acts = Decide(c);
  EXPECT_EQ(Kinds(acts), (K{"control.refused", "ConsumeControl"}));
  EXPECT_TRUE(Only<ConsumeControl>(acts)[0].bad);
  EXPECT_EQ(PhaseOf("T2"), Phase::kReturned);
}

TEST_F(KernelRow, Approved) {
  Held("P1");
  st_.running = 1;  // no slot: the approval queues it
  auto acts = Decide(Control(R"("request":"approve","id":"P1","why":"ok")"));
  EXPECT_EQ(Kinds(acts), (K{"person.approved", "Move", "ConsumeControl"}));
  const Move mv = Only<Move>(acts)[0];
  EXPECT_EQ(mv.to, Phase::kQueued);
  EXPECT_EQ(Json(mv.files.at("approve.json"))["mission_sha256"].as_string(),
            Sha256Hex(Bytes("P1")));
  EXPECT_EQ(PhaseOf("P1"), Phase::kQueued);
}

TEST_F(KernelRow, QueuedApprovedPlan) {
  Pass(true);
  Drop("P2");
  ASSERT_EQ(PhaseOf("P2"), Phase::kHold);  // held at stage 2 for SECRET
  auto acts = Decide(Control(R"("request":"approve","id":"P2","why":"ok")"));
  EXPECT_EQ(Kinds(acts),
            (K{"person.approved", "Move", "mission.launched", "Launch", "ConsumeControl"}));
  EXPECT_EQ(PhaseOf("P2"), Phase::kRunning);
}

TEST_F(KernelRow, RecoveredChanged) {
  Recovered r;
  r.id = "X1";
  r.phase = Phase::kQueued;
  r.mission_bytes = Bytes("X1");
  r.mission_bytes.replace(r.mission_bytes.find("\"f\""), 3, "\"edited\"");  // its future
  r.intake_sha256 = Sha256Hex(Bytes("X1"));
  r.approved_sha256 = Sha256Hex(Bytes("X1"));
  r.now = kT;
  auto acts = Decide(r);
  EXPECT_EQ(Kinds(acts), (K{"mission.held", "Move"}));
  EXPECT_EQ(PhaseOf("X1"), Phase::kHold);
  EXPECT_TRUE(
      st_.missions.at("X1").approval.get().approved_sha256.empty());  // no approval carries over
}

TEST_F(KernelRow, Denied) {
  Held("P3");
  auto acts = Decide(Control(R"("request":"deny","id":"P3","why":"no")"));
  EXPECT_EQ(Kinds(acts), (K{"person.denied", "Move", "ConsumeControl"}));
  EXPECT_EQ(Only<Move>(acts)[0].to, Phase::kDenied);
  EXPECT_EQ(PhaseOf("P3"), Phase::kDenied);
}

TEST_F(KernelRow, GrantOrRevoke) {
  EXPECT_EQ(Kinds(Decide(Control(R"("request":"grant","op":"git.push","requester":"t")"))),
            (K{"grant", "ConsumeControl"}));
  EXPECT_EQ(Kinds(Decide(Control(R"("request":"revoke","op":"git.push","requester":"t")"))),
            (K{"revoke", "ConsumeControl"}));
  Decide(LedgerFailed{"anchor missing", kT});
  EXPECT_EQ(Kinds(Decide(Control(R"("request":"grant","op":"git.push","requester":"t")"))),
            (K{"control.refused", "ConsumeControl"}));
}

TEST_F(KernelRow, LedgerFailed) {
  st_.ready = false;
  Drop("Q2");
  EXPECT_EQ(Kinds(Decide(LedgerFailed{"head differs from anchor", kT})), K{"ledger.fail-closed"});
  EXPECT_EQ(Kinds(Decide(Ready{kT})), K{});  // no launch while failed closed
  EXPECT_EQ(PhaseOf("Q2"), Phase::kQueued);
}

TEST_F(KernelRow, Reanchor) {
  st_.ready = false;
  Drop("Q3");
  Decide(LedgerFailed{"anchor missing", kT});
  Decide(Ready{kT});
  auto acts = Decide(Control(R"("request":"reanchor","why":"restored")"));
  EXPECT_EQ(Kinds(acts), (K{"ledger.reanchor", "mission.launched", "Launch", "ConsumeControl"}));
  EXPECT_TRUE(Only<Record>(acts)[0].new_epoch);
  EXPECT_TRUE(st_.fail_closed.empty());
}

TEST_F(KernelRow, ReanchorReturnsUnproven) {
  st_.ready = false;
  Decide(LedgerFailed{"the ledger is behind its anchor", kT, /*rolled_back=*/true});
  Held("U1");
  Decide(Ready{kT});
  auto acts = Decide(Control(R"("request":"reanchor","why":"restored")"));
  EXPECT_EQ(Kinds(acts), (K{"ledger.reanchor", "mission.returned", "Move", "ConsumeControl"}));
  EXPECT_EQ(Outcome(acts), "lost");
  EXPECT_TRUE(Only<Launch>(acts).empty());  // never launched by itself
}

TEST_F(KernelRow, ControlRefused) {
  auto bad = Decide(Control(R"("request":"cancel","id":"nope")"));
  EXPECT_EQ(Kinds(bad), (K{"control.refused", "ConsumeControl"}));
  EXPECT_TRUE(Only<ConsumeControl>(bad)[0].bad);
  Held("W1");
  ControlDropped stranger = Control(R"("request":"approve","id":"W1","why":"me")");
  stranger.by = Dropper{4242, "mallory"};
  EXPECT_EQ(Kinds(Decide(stranger)), (K{"control.refused", "ConsumeControl"}));
  EXPECT_EQ(PhaseOf("W1"), Phase::kHold);
}

// A work state of requester "t" (the missions' requester in these tests) whose goal is GOAL.
std::string MemoryRequest(const std::string& goal) {
  std::string m = R"("request":"memory","memory":{"hangar_memory":1,"requester":"t")";
  for (const char* s : kMemorySections)
    m += std::string(",\"") + s + "\":\"" + (std::string(s) == "goal" ? goal : "") + "\"";
  return m + "}";
}

TEST_F(KernelRow, MemoryStored) {
  const Dropper alice{1001, "alice"};
  Decide(Dropped{"M1.json", Bytes("M1"), "", kT, {}, alice});  // "t" is alice's from now on
  ControlDropped put = Control(MemoryRequest("first"));
  put.by = alice;
  auto acts = Decide(put);
  ASSERT_EQ(Kinds(acts), (K{"memory.stored", "WriteMemory", "ConsumeControl"}));
  const WriteMemory w = Only<WriteMemory>(acts)[0];
  EXPECT_EQ(w.requester, "t");
  EXPECT_EQ(w.version, 1);
  const Record rec = Only<Record>(acts)[0];
  EXPECT_EQ(rec.body.find("sha256")->as_string(), Sha256Hex(w.text));
  EXPECT_EQ(rec.body.find("uid")->as_int(), 1001);
  put.name = "req2";
  put.bytes = "{\"hangar\":1," + MemoryRequest("second") + "}";
  EXPECT_EQ(Only<WriteMemory>(Decide(put))[0].version, 2);
  // Another uid, not an approver, may not write "t"'s memory, even having dropped a mission as
  // "t" (that mission is denied: the name is alice's).
  const Dropper mallory{4242, "mallory"};
  auto taken = Decide(Dropped{"M2.json", Bytes("M2"), "", kT, {}, mallory});
  EXPECT_EQ(PhaseOf("M2"), Phase::kDenied);
  ControlDropped forged = Control(MemoryRequest("poisoned"));
  forged.name = "req3";
  forged.by = mallory;
  auto refused = Decide(forged);
  EXPECT_EQ(Kinds(refused), (K{"control.refused", "ConsumeControl"}));
  EXPECT_EQ(Json(Only<ConsumeControl>(refused)[0].why)["rule"].as_string(), "memory.not-requester");
  EXPECT_EQ(st_.requesters.Find("t")->versions, 2);
}

TEST_F(KernelRow, MemoryStoredBefore) {
  Drop("M1");
  ControlDropped put = Control(MemoryRequest("goal"));
  const int64_t v1 = Only<WriteMemory>(Decide(put))[0].version;
  // Another request of the same requester stored after it, before the stop.
  ControlDropped other = Control(MemoryRequest("other"));
  other.name = "req-b";
  EXPECT_EQ(Only<WriteMemory>(Decide(other))[0].version, v1 + 1);
  const int64_t head = st_.ledger_seq;
  // The stop came before either answer: the requests are taken again at the next start, in any
  // order; each is written under the version it was stored as.
  auto again = Decide(put);
  EXPECT_EQ(Kinds(again), (K{"WriteMemory", "ConsumeControl"}));
  EXPECT_EQ(Only<WriteMemory>(again)[0].version, v1);
  EXPECT_EQ(Only<WriteMemory>(Decide(other))[0].version, v1 + 1);
  EXPECT_EQ(st_.ledger_seq, head);  // nothing recorded anew
}

// While failed closed the book may stop short of the ledger (a start that could not fold it all):
// no mission binds a name then, so nobody takes one over on a partial book.
TEST(KernelMemory, NoNameIsBoundWhileFailedClosed) {
  KernelSetup s = ScriptSetup(1);
  State st;
  Decide(s, &st, LedgerFailed{"anchor missing", kT});
  Decide(s, &st, Dropped{"M1.json", Bytes("M1"), "", kT, {}, Dropper{1001, "alice"}});
  EXPECT_EQ(st.requesters.Find("t"), nullptr);
  Decide(s, &st, Dropped{"M2.json", Bytes("M2"), "", kT, {}, Dropper{1002, "bob"}});
  EXPECT_EQ(st.requesters.Find("t"), nullptr);
  EXPECT_NE(st.missions.at("M2").phase, Phase::kDenied);
}

TEST_F(KernelRow, DroppedRequesterTaken) {
  Drop("R0");  // an approver's mission under the name binds nothing: approvers may use any name
  auto bound = Decide(Dropped{"A1.json", Bytes("A1"), "", kT, {}, Dropper{1001, "alice"}});
  EXPECT_NE(PhaseOf("A1"), Phase::kDenied);
  // The entry that binds is one a start's fold reads (its canonical text carries the mark).
  const Record owner_entry = Only<Record>(bound)[0];
  EXPECT_TRUE(RequesterBook::Folds(owner_entry.kind, json::Write(owner_entry.body)));
  auto acts = Decide(Dropped{"B1.json", Bytes("B1"), "", kT, {}, Dropper{1002, "bob"}});
  ASSERT_EQ(Kinds(acts), (K{"mission.denied", "Intake"}));
  EXPECT_EQ(Json(Only<Intake>(acts)[0].files.at("gate1.json"))["rules"].as_array()[0].as_string(),
            "requester.owner");
  // An approver (root here) may submit as any requester.
  Drop("R1");
  EXPECT_NE(PhaseOf("R1"), Phase::kDenied);
}

// The window's rows: a drone running with op post.message allowed by the policy.
class KernelRowWindow : public KernelRow {
 protected:
  void SetUp() override {
    s_.config.ops["post.message"] = OpHandler{"post.message", {"/h/post"}, {{"PATH", "/bin"}}, 30};
    s_.policy.ops["post.message"] = OpAccess::kAllow;
    s_.policy_sha256 = PolicyDigest(s_.policy);
    ASSERT_EQ(Only<Launch>(Drop("W", ",\"ops\":[\"post.message\"]")).size(), 1u);
  }
  OpRequested Req(const std::string& name, OpKeyState key = OpKeyState::kFree) {
    OpRequested q;
    q.id = "W";
    q.name = name;
    q.bytes = R"({"op":"post.message","args":{"text":"hi"},"key":"k1"})";
    q.declaration = json::Object{{"present", true},
                                 {"valid", true},
                                 {"content", json::Object{{"will", json::Array{}},
                                                          {"will_not", json::Array{}},
                                                          {"ops", json::Array{"post.message"}},
                                                          {"external_acts", json::Array{}}}}};
    q.key = key;
    q.now = kT + 100;
    return q;
  }
};

TEST_F(KernelRowWindow, OpRefused) {
  OpRequested q = Req("r1");
  q.bytes = R"({"op":"git.push","args":{},"key":"k9"})";
  EXPECT_EQ(Kinds(Decide(q)), (K{"op.refused", "AnswerOp"}));
}

TEST_F(KernelRowWindow, OpAllowed) {
  auto acts = Decide(Req("r1"));
  EXPECT_EQ(Kinds(acts), (K{"op.allowed", "RunOp"}));
  EXPECT_EQ(Only<RunOp>(acts)[0].key, "k1");
}

TEST_F(KernelRowWindow, OpRepeated) {
  OpRequested q = Req("r2", OpKeyState::kDone);
  q.stored_result = R"({"request":"r1","status":"executed","rc":0})";
  auto acts = Decide(q);
  EXPECT_EQ(Kinds(acts), (K{"op.repeated", "AnswerOp"}));
  EXPECT_TRUE(Only<RunOp>(acts).empty());  // nothing runs
}

TEST_F(KernelRowWindow, OpFinished) {
  Decide(Req("r1"));
  ExitInfo e;
  e.rc = 0;
  EXPECT_EQ(Kinds(Decide(DroneExited{"W", e, kT + 200})), K{});  // waits for its op
  const OpFinished f = OpRan("W", "r1", "post.message", "k1", 0, kT + 300);
  EXPECT_EQ(Kinds(Decide(f)), (K{"op.result", "AnswerOp", "Observe"}));
}

}  // namespace
}  // namespace hangar
