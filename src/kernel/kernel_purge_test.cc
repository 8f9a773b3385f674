// The purge rows of the kernel's state table (kernel.h, hangard(8)): an approver's purge of ended
// missions is recorded on the ledger before any Purge act, each purged id stays taken (a later drop
// of it is a duplicate, before and after a restart), live or unknown ids are skipped by name, and
// nothing is purged by a non-approver or while the ledger is failed closed. Pure: no disk.
#include <gtest/gtest.h>

#include "base/sha256.h"
#include "kernel/decision_digest.h"
#include "kernel/kernel.h"
#include "kernel/kernel_testutil.h"

namespace hangar {
namespace {

constexpr TimeMs kT = 2'000'000;

std::string Bytes(const std::string& id) {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1}";
}

ControlDropped Control(const std::string& body, Dropper by = kRoot) {
  return ControlDropped{"req", "{\"hangar\":1," + body + "}", "", kT + 100, by};
}

std::vector<std::string> RecordKinds(const std::vector<Action>& acts) {
  std::vector<std::string> out;
  for (const Record& r : Only<Record>(acts)) out.push_back(r.kind);
  return out;
}

// A kernel with one script slot; R1, R3 and R4 returned lost after a launch, R2 running in the
// slot, Q1 queued behind it.
class KernelRowPurge : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* id : {"R1", "R3", "R4"}) Returned(id);
    Decide(Dropped{"R2.json", Bytes("R2"), "", kT, {}, kRoot});  // launched: running
    Decide(Dropped{"Q1.json", Bytes("Q1"), "", kT, {}, kRoot});  // no slot: queued
    ASSERT_EQ(Phase("R2"), hangar::Phase::kRunning);
    ASSERT_EQ(Phase("Q1"), hangar::Phase::kQueued);
  }
  std::vector<Action> Decide(const Signal& sig) { return hangar::Decide(s_, &st_, sig); }
  hangar::Phase Phase(const std::string& id) { return st_.missions.at(id).phase; }
  void Returned(const std::string& id) {
    ASSERT_EQ(Only<Launch>(Decide(Dropped{id + ".json", Bytes(id), "", kT, {}, kRoot})).size(), 1u);
    Decide(LaunchDone{id, true, false, true, "", kT + 10});
    Decide(SupervisorGone{id, kT + 20});
    Decide(Observed{id, Observation{}, kT + 30});
    ASSERT_EQ(Phase(id), hangar::Phase::kReturned);
  }

  KernelSetup s_ = ScriptSetup(1);
  State st_;
};

TEST_F(KernelRowPurge, Purged) {
  auto acts = Decide(Control(R"("request":"purge","ids":["R1"],"why":"disk")"));
  ASSERT_EQ(RecordKinds(acts), (std::vector<std::string>{"mission.purged"}));
  const std::vector<Purge> p = Only<Purge>(acts);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].id, "R1");
  EXPECT_EQ(p[0].from, hangar::Phase::kReturned);
  // The record comes before the act it backs; the request is answered done.
  size_t record_at = acts.size(), purge_at = acts.size();
  for (size_t i = 0; i < acts.size(); ++i) {
    if (std::holds_alternative<Record>(acts[i])) record_at = i;
    if (std::holds_alternative<Purge>(acts[i])) purge_at = i;
  }
  EXPECT_LT(record_at, purge_at);
  const std::vector<ConsumeControl> cc = Only<ConsumeControl>(acts);
  ASSERT_EQ(cc.size(), 1u);
  EXPECT_FALSE(cc[0].bad);
  // The tombstone keeps the id, its attempts' launch keys and the ledger entry.
  json::Value t = Json(p[0].tombstone);
  EXPECT_EQ(t["id"].as_string(), "R1");
  EXPECT_EQ(t["state"].as_string(), "returned");
  EXPECT_EQ(t["attempts"].as_int(), 1);
  ASSERT_EQ(t["keys"].as_array().size(), 1u);
  EXPECT_EQ(t["keys"].as_array()[0].as_string(), LaunchKeyName("R1", 1));
  EXPECT_EQ(t["ledger_seq"].as_int(), Only<Record>(acts)[0].seq);
  json::Value body = Only<Record>(acts)[0].body;
  EXPECT_EQ(body["why"].as_string(), "disk");
  EXPECT_EQ(body["ids"].as_array().size(), 1u);
  // The id stays taken: a new drop of it is rejected as a duplicate, and nothing launches.
  EXPECT_TRUE(st_.missions.at("R1").purged);
  auto again = Decide(Dropped{"R1.json", Bytes("R1"), "", kT + 200, {}, kRoot});
  EXPECT_TRUE(Only<Launch>(again).empty());
  EXPECT_TRUE(Only<Intake>(again).empty() || Only<Intake>(again)[0].to == hangar::Phase::kRejected);
  EXPECT_EQ(RecordKinds(again), (std::vector<std::string>{"mission.rejected"}));
  // And a retry of it is refused: its files are gone.
  auto retry = Decide(Control(R"("request":"retry","id":"R1")"));
  ASSERT_EQ(Only<ConsumeControl>(retry).size(), 1u);
  EXPECT_TRUE(Only<ConsumeControl>(retry)[0].bad);
  EXPECT_TRUE(Only<Launch>(retry).empty());
}

TEST_F(KernelRowPurge, PurgeSkipped) {
  // The live, the unknown and the purged are skipped by name; the ended one goes.
  Decide(Control(R"("request":"purge","ids":["R1"])"));
  auto acts = Decide(Control(R"("request":"purge","ids":["R2","Q1","NOPE","R1","R3"])"));
  const std::vector<Purge> p = Only<Purge>(acts);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].id, "R3");
  json::Value skipped = Only<Record>(acts)[0].body["skipped"];
  ASSERT_EQ(skipped.as_array().size(), 4u);
  EXPECT_EQ(skipped.as_array()[0]["id"].as_string(), "R2");
  EXPECT_EQ(Phase("R2"), hangar::Phase::kRunning);
  EXPECT_EQ(Phase("Q1"), hangar::Phase::kQueued);
  EXPECT_FALSE(st_.missions.at("R2").purged);
  // None purgeable: refused, nothing recorded as purged.
  auto none = Decide(Control(R"("request":"purge","ids":["R2","Q1"])"));
  EXPECT_TRUE(Only<Purge>(none).empty());
  EXPECT_EQ(RecordKinds(none), (std::vector<std::string>{"control.refused"}));
  // A non-approver is refused before anything is looked at.
  auto stranger = Decide(Control(R"("request":"purge","ids":["R4"])", Dropper{4242, "mallory"}));
  EXPECT_TRUE(Only<Purge>(stranger).empty());
  EXPECT_EQ(RecordKinds(stranger), (std::vector<std::string>{"control.refused"}));
  EXPECT_FALSE(st_.missions.at("R4").purged);
  // Nor while the ledger is failed closed.
  Decide(LedgerFailed{"head differs from anchor", kT + 300});
  auto closed = Decide(Control(R"("request":"purge","ids":["R4"])"));
  EXPECT_TRUE(Only<Purge>(closed).empty());
  EXPECT_FALSE(st_.missions.at("R4").purged);
}

TEST_F(KernelRowPurge, RecoveredPurged) {
  State fresh;
  Recovered r;
  r.id = "OLD1";
  r.phase = hangar::Phase::kReturned;
  r.purged = true;
  r.attempt = 2;
  r.now = kT;
  auto acts = hangar::Decide(s_, &fresh, r);
  EXPECT_TRUE(Only<Move>(acts).empty() && Only<Launch>(acts).empty());
  ASSERT_TRUE(fresh.missions.count("OLD1"));
  EXPECT_TRUE(fresh.missions.at("OLD1").purged);
  EXPECT_EQ(fresh.missions.at("OLD1").attempt, 2);
  hangar::Decide(s_, &fresh, Ready{kT});
  auto drop = hangar::Decide(s_, &fresh, Dropped{"OLD1.json", Bytes("OLD1"), "", kT, {}, kRoot});
  EXPECT_TRUE(Only<Launch>(drop).empty());
  EXPECT_EQ(RecordKinds(drop), (std::vector<std::string>{"mission.rejected"}));
  EXPECT_EQ(fresh.missions.at("OLD1").phase, hangar::Phase::kReturned);  // the tombstone stands
}

// Every ended mission and tombstone a start finds, in one signal: the state is the one the same
// Recovered signals one by one leave (a copy found twice included), and every id stays taken.
TEST_F(KernelRowPurge, RecoveredEnded) {
  const std::vector<EndedFound> found = {
      {"T1", hangar::Phase::kDenied, kT - 5, 1, Dropper{1000, "ann"}, true},
      {"E1", hangar::Phase::kReturned, kT - 4, 2, Dropper{1000, "ann"}, false},
      {"E2", hangar::Phase::kRejected, kT - 3, 0, Dropper{}, false},
      {"E1", hangar::Phase::kDenied, kT - 2, 1, Dropper{}, false}};  // a copied spool's other E1
  State together, one_by_one;
  auto acts = hangar::Decide(s_, &together, RecoveredEnded{found, kT});
  EXPECT_TRUE(Only<Move>(acts).empty() && Only<Record>(acts).empty() && Only<Launch>(acts).empty());
  for (const EndedFound& m : found) {  // the oracle: each spelt out as the Recovered of it
    Recovered r;
    r.id = m.id;
    r.phase = m.phase;
    r.accepted = m.accepted;
    r.attempt = m.attempt;
    r.by = m.by;
    r.purged = m.purged;
    r.now = kT;
    hangar::Decide(s_, &one_by_one, r);
  }
  EXPECT_EQ(StateDigest(together), StateDigest(one_by_one));
  ASSERT_EQ(together.missions.size(), 3u);
  EXPECT_EQ(together.missions.at("E1").phase, hangar::Phase::kReturned);  // the first found
  EXPECT_EQ(together.missions.at("E1").attempt, 2);
  EXPECT_TRUE(together.missions.at("T1").purged);
  hangar::Decide(s_, &together, Ready{kT});
  for (const char* id : {"T1", "E1", "E2"}) {
    auto drop = hangar::Decide(s_, &together,
                               Dropped{std::string(id) + ".json", Bytes(id), "", kT, {}, kRoot});
    EXPECT_TRUE(Only<Launch>(drop).empty()) << id;
    EXPECT_EQ(RecordKinds(drop), (std::vector<std::string>{"mission.rejected"})) << id;
  }
}

}  // namespace
}  // namespace hangar
