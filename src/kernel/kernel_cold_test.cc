// The cold queue (kernel/decide_cold.cc; kernel.h rows RecoveredCold, WarmAhead, Warmed,
// WarmedChanged, WarmedUnreadable, IntakeCold): queued missions beyond the first queue_warm held
// without their mission, read again (Warm, Warmed) as they near the head, and taken back only as
// the bytes taken in. Pure: no disk.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/sha256.h"
#include "kernel/decision_digest.h"
#include "kernel/kernel.h"
#include "kernel/kernel_testutil.h"

namespace hangar {
namespace {

constexpr TimeMs kT = 3'000'000;

std::string Bytes(const std::string& id, const std::string& extra = "") {
  return ScriptMissionBytes(id, extra);
}

ColdFound Found(const std::string& id, TimeMs accepted) {
  return ColdFound{id, accepted, 0, kRoot, Sha256Hex(Bytes(id)), "", ""};
}

// One slot, two missions held warm at the head of the queue.
class KernelRowCold : public ::testing::Test {
 protected:
  KernelRowCold() { s_.config.queue_warm = 2; }
  std::vector<Action> Decide(const Signal& sig) { return hangar::Decide(s_, &st_, sig); }
  std::vector<Action> Drop(const std::string& id, const std::string& extra = "") {
    return Decide(Dropped{id + ".json", Bytes(id, extra), "", kT, {}, kRoot});
  }
  const MissionRec& Rec(const std::string& id) { return st_.missions.at(id); }
  // The ids of every Warm among acts, in order.
  static std::vector<std::string> WarmIds(const std::vector<Action>& acts) {
    std::vector<std::string> ids;
    for (const Warm& w : Only<Warm>(acts)) ids.insert(ids.end(), w.ids.begin(), w.ids.end());
    return ids;
  }
  // The drone of running mission ID ends and its room is observed: its slot frees. The actions
  // of both decisions.
  std::vector<Action> End(const std::string& id) {
    ExitInfo e;
    e.rc = 0;
    std::vector<Action> acts = Decide(DroneExited{id, e, kT + 20});
    std::vector<Action> more = Decide(Observed{id, Observation{}, kT + 30});
    acts.insert(acts.end(), more.begin(), more.end());
    return acts;
  }
  // Q1..Q5 found at start: Q1 and Q2 read whole, Q3..Q5 cold; then Ready.
  std::vector<Action> Start() {
    st_.ready = false;
    for (const std::string id : {"Q1", "Q2"}) {
      Recovered r;
      r.id = id;
      r.phase = Phase::kQueued;
      r.mission_bytes = Bytes(id);
      r.intake_sha256 = Sha256Hex(r.mission_bytes);
      r.now = kT;
      Decide(r);
    }
    Decide(RecoveredCold{{Found("Q3", kT - 3), Found("Q4", kT - 2), Found("Q5", kT - 1)}, kT});
    return Decide(Ready{kT});
  }

  KernelSetup s_ = ScriptSetup(1);
  State st_;
};

TEST_F(KernelRowCold, RecoveredCold) {
  st_.ready = false;
  auto acts =
      Decide(RecoveredCold{{Found("C1", kT - 2), Found("C2", kT - 1), Found("C1", kT)}, kT});
  EXPECT_TRUE(Only<Launch>(acts).empty());
  EXPECT_EQ(std::vector<std::string>(st_.queue.begin(), st_.queue.end()),
            (std::vector<std::string>{"C1", "C2"}));  // a copy of C1 is left alone
  const MissionRec& c1 = Rec("C1");
  EXPECT_TRUE(c1.cold);
  EXPECT_EQ(c1.mission, nullptr);
  EXPECT_EQ(c1.sha256, Sha256Hex(Bytes("C1")));
  EXPECT_EQ(c1.accepted, kT - 2);
  // Both are among the first queue_warm: read again at once, each asked for once.
  EXPECT_EQ(WarmIds(acts), (std::vector<std::string>{"C1", "C2"}));
  EXPECT_TRUE(c1.warming);
  EXPECT_TRUE(WarmIds(Decide(Ready{kT})).empty());
}

TEST_F(KernelRowCold, WarmAhead) {
  auto acts = Start();
  // Q1 launches; the queue's first two are now Q2 and Q3: Q3 is asked for, Q4 and Q5 are not.
  EXPECT_EQ(Only<Launch>(acts).size(), 1u);
  EXPECT_EQ(Only<Launch>(acts)[0].id, "Q1");
  EXPECT_EQ(WarmIds(acts), (std::vector<std::string>{"Q3"}));
  EXPECT_TRUE(Rec("Q3").warming);
  EXPECT_FALSE(Rec("Q4").warming);
  // Q1 ends: Q2 launches, Q4 comes within the first two and is asked for.
  acts = End("Q1");
  EXPECT_EQ(Only<Launch>(acts)[0].id, "Q2");
  EXPECT_EQ(WarmIds(acts), (std::vector<std::string>{"Q4"}));
  // Q2 ends: Q3 is at the head but not read again yet: nothing launches, the slot waits for it.
  acts = End("Q2");
  EXPECT_TRUE(Only<Launch>(acts).empty());
  EXPECT_EQ(st_.running, 0);
  EXPECT_EQ(st_.queue.front(), "Q3");
}

TEST_F(KernelRowCold, Warmed) {
  Start();
  End("Q1");
  End("Q2");
  // Q3 read again as taken in: it launches as the head, with the writes as resolved now.
  ResolvedWrites resolved;
  auto acts = Decide(Warmed{"Q3", Bytes("Q3"), "", resolved, kT + 40});
  ASSERT_EQ(Only<Launch>(acts).size(), 1u);
  EXPECT_EQ(Only<Launch>(acts)[0].id, "Q3");
  EXPECT_FALSE(Rec("Q3").cold);
  EXPECT_EQ(Rec("Q3").phase, Phase::kRunning);
  // A second Warmed of a mission no longer cold changes nothing.
  State before = st_;
  acts = Decide(Warmed{"Q3", Bytes("Q3"), "", resolved, kT + 41});
  EXPECT_TRUE(Only<Launch>(acts).empty() && Only<Move>(acts).empty() && Only<Record>(acts).empty());
  EXPECT_EQ(StateDigest(st_), StateDigest(before));
}

TEST_F(KernelRowCold, WarmedChanged) {
  Start();
  End("Q1");
  End("Q2");
  std::string edited = Bytes("Q3");
  edited.replace(edited.find("\"f\""), 3, "\"edited\"");
  auto acts = Decide(Warmed{"Q3", edited, "", {}, kT + 40});
  ASSERT_EQ(Only<Record>(acts).size(), 1u);
  EXPECT_EQ(Only<Record>(acts)[0].kind, "mission.held");
  ASSERT_EQ(Only<Move>(acts).size(), 1u);
  EXPECT_EQ(Only<Move>(acts)[0].to, Phase::kHold);
  EXPECT_EQ(Rec("Q3").phase, Phase::kHold);
  EXPECT_EQ(Rec("Q3").sha256, Sha256Hex(edited));  // an approval binds to what is there now
  EXPECT_EQ(std::count(st_.queue.begin(), st_.queue.end(), "Q3"), 0);
  EXPECT_TRUE(Only<Launch>(acts).empty());  // Q4 is at the head now, itself not yet read again
  EXPECT_EQ(st_.queue.front(), "Q4");
}

TEST_F(KernelRowCold, WarmedUnreadable) {
  Start();
  End("Q1");
  End("Q2");
  auto acts = Decide(Warmed{"Q3", "", "No such file or directory", {}, kT + 40});
  EXPECT_TRUE(Only<Launch>(acts).empty() && Only<Move>(acts).empty());
  EXPECT_EQ(Rec("Q3").phase, Phase::kQueued);
  EXPECT_NE(Rec("Q3").error.find("mission.json unreadable"), std::string::npos);
  EXPECT_EQ(std::count(st_.queue.begin(), st_.queue.end(), "Q3"), 0);
  // Bytes that are no mission: the same.
  acts = Decide(Warmed{"Q4", "{\"hangar\":1}", "", {}, kT + 41});
  EXPECT_NE(Rec("Q4").error.find("mission.json unreadable"), std::string::npos);
  EXPECT_EQ(st_.queue.front(), "Q5");
}

TEST_F(KernelRowCold, IntakeCold) {
  Drop("A0");  // takes the slot
  Drop("A1");
  Drop("A2");
  auto acts = Drop("A3");
  ASSERT_EQ(Only<Intake>(acts).size(), 1u);  // taken in as any other
  EXPECT_FALSE(Rec("A1").cold);
  EXPECT_FALSE(Rec("A2").cold);
  EXPECT_TRUE(Rec("A3").cold);  // third in the queue, beyond queue_warm 2
  EXPECT_EQ(Rec("A3").mission, nullptr);
  EXPECT_EQ(Rec("A3").sha256, Sha256Hex(Bytes("A3")));
  // A0 ends, A1 launches, A3 comes within the first two: read again, then launched in its turn.
  acts = End("A0");
  EXPECT_EQ(Only<Launch>(acts)[0].id, "A1");
  EXPECT_EQ(WarmIds(acts), (std::vector<std::string>{"A3"}));
  Decide(Warmed{"A3", Bytes("A3"), "", {}, kT + 40});
  End("A1");
  acts = End("A2");
  ASSERT_EQ(Only<Launch>(acts).size(), 1u);
  EXPECT_EQ(Only<Launch>(acts)[0].id, "A3");
}

// A cancel of a cold mission: its return names its drone and reaches its notify_dir, from the
// mission.json the shell read with the request; without it (or with other bytes), the return says
// what the kernel knows.
TEST_F(KernelRowCold, CancelOfAColdMission) {
  Drop("B0");
  Drop("B1");
  Drop("B2");
  Drop("B3", ",\"notify\":{\"dir\":\"/n\"}");
  Drop("B4", ",\"notify\":{\"dir\":\"/n\"}");
  ASSERT_TRUE(Rec("B3").cold && Rec("B4").cold);
  ControlDropped c{"req", R"({"hangar":1,"request":"cancel","id":"B3"})", "", kT + 50, kRoot};
  c.cancel_mission = Bytes("B3", ",\"notify\":{\"dir\":\"/n\"}");
  auto acts = Decide(c);
  ASSERT_EQ(Only<Move>(acts).size(), 1u);
  const Move mv = Only<Move>(acts)[0];
  EXPECT_EQ(mv.to, Phase::kReturned);
  EXPECT_EQ(mv.notify_dir, std::optional<std::string>("/n"));
  EXPECT_EQ(Json(mv.files.at("return.json"))["drone"].as_string(), "script");
  EXPECT_FALSE(Rec("B3").cold);
  EXPECT_EQ(std::count(st_.queue.begin(), st_.queue.end(), "B3"), 0);
  c.bytes = R"({"hangar":1,"request":"cancel","id":"B4"})";
  c.cancel_mission = "{}";  // not the bytes taken in: not used
  acts = Decide(c);
  ASSERT_EQ(Only<Move>(acts).size(), 1u);
  EXPECT_EQ(Only<Move>(acts)[0].notify_dir, std::nullopt);
  EXPECT_EQ(Json(Only<Move>(acts)[0].files.at("return.json"))["outcome"].as_string(), "cancelled");
}

// A replay of the same signals reaches the same state: the cold marks are part of it.
TEST_F(KernelRowCold, TheColdMarksAreInTheStateDigest) {
  Start();
  State warm_copy = st_;
  warm_copy.missions.at("Q5").cold = false;
  EXPECT_NE(StateDigest(st_), StateDigest(warm_copy));
  State not_warming = st_;
  not_warming.missions.at("Q3").warming = false;
  EXPECT_NE(StateDigest(st_), StateDigest(not_warming));
}

}  // namespace
}  // namespace hangar
