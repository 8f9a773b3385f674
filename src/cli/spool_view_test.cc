#include "cli/spool_view.h"

#include <gtest/gtest.h>

#include "cli/scratch_spool_testutil.h"

namespace hangar::cli {
namespace {

constexpr TimeMs kT0 = 1'800'000'000'000;  // 2027-01-15

class SpoolViewTest : public ::testing::Test {
 protected:
  ScratchSpool s;
  SpoolView view{RealEnv(), s.layout()};
};

TEST_F(SpoolViewTest, LocatesAnIdInEveryState) {
  s.AddMission(Phase::kHold, "h1", kT0);
  s.AddMission(Phase::kQueued, "q1", kT0);
  s.AddMission(Phase::kRunning, "r1", kT0);
  s.AddReturned("ret1", kT0, "done");
  s.AddMission(Phase::kDenied, "d1", kT0);
  s.AddMission(Phase::kRejected, "x1", kT0);
  for (auto [id, state] : {std::pair{"h1", "hold"},
                           {"q1", "queued"},
                           {"r1", "running"},
                           {"ret1", "returned"},
                           {"d1", "denied"},
                           {"x1", "rejected"}}) {
    std::optional<MissionRef> r = view.Locate(id);
    ASSERT_TRUE(r) << id;
    EXPECT_EQ(r->state, state);
    EXPECT_EQ(r->path, s.spool() + "/" + state + "/" + id);
  }
  EXPECT_FALSE(view.Locate("nowhere"));
}

TEST_F(SpoolViewTest, LocatesDropsInIncomingByIdFieldOrName) {
  s.Write("incoming/new/20270115T000000.000Z-abcdef", ScratchSpool::MissionText("fake"));
  s.Write("incoming/new/named.json", ScratchSpool::MissionText("fake"));
  s.Write("incoming/new/any-name", ScratchSpool::MissionText("fake", "chosen"));
  for (const char* id : {"20270115T000000.000Z-abcdef", "named", "chosen"}) {
    std::optional<MissionRef> r = view.Locate(id);
    ASSERT_TRUE(r) << id;
    EXPECT_EQ(r->state, "incoming");
    EXPECT_FALSE(r->phase);
  }
  EXPECT_FALSE(view.Locate("any-name"));  // its id field wins over its name
}

TEST_F(SpoolViewTest, NeverLooksOutsideTheSpoolOrAtIntakeInProgress) {
  s.AddMission(Phase::kQueued, "q1", kT0);
  std::filesystem::create_directories(s.spool() + "/queued/.q2.tmp");
  EXPECT_FALSE(view.Locate("../queued/q1"));
  EXPECT_FALSE(view.Locate(".q2.tmp"));
  EXPECT_EQ(view.Refs("queued").size(), 1u);
}

TEST_F(SpoolViewTest, ListsSortedByIdWithWhatTheFilesSay) {
  s.AddReturned("b", kT0, "failed");
  s.AddMission(Phase::kQueued, "c", kT0 + 1000, "codex");
  s.AddMission(Phase::kHold, "a", kT0 + 2000);
  s.Write("incoming/new/d", ScratchSpool::MissionText("claude"));
  std::vector<MissionRow> rows = view.List("");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].ref.id, "a");
  EXPECT_EQ(rows[1].ref.id, "b");
  EXPECT_EQ(rows[1].outcome, "failed");
  EXPECT_EQ(rows[1].time, kT0);
  EXPECT_EQ(rows[2].drone, "codex");
  EXPECT_EQ(rows[2].requester, "alice");
  EXPECT_EQ(rows[2].outcome, "");
  EXPECT_EQ(rows[3].ref.state, "incoming");
  EXPECT_EQ(rows[3].drone, "claude");
  EXPECT_TRUE(rows[3].time);  // a drop has no intake.json: its mtime

  std::vector<MissionRow> queued = view.List("queued");
  ASSERT_EQ(queued.size(), 1u);
  EXPECT_EQ(queued[0].ref.id, "c");
  EXPECT_TRUE(view.List("running").empty());
}

TEST_F(SpoolViewTest, TakesDroneAndRequesterFromIntakeJsonWhenItNamesThem) {
  s.AddMission(Phase::kQueued, "q1", kT0, "codex");
  std::filesystem::remove(s.spool() + "/queued/q1/mission.json");  // not needed: intake.json says
  std::vector<MissionRow> rows = view.List("queued");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].drone, "codex");
  EXPECT_EQ(rows[0].requester, "alice");
  EXPECT_EQ(rows[0].time, kT0);
}

TEST_F(SpoolViewTest, AnIntakeJsonWithoutDroneOrRequesterFallsBackToTheMissionFile) {
  // A spool written before intake.json named them; a rejected mission (never parsed); a drone
  // without a requester.
  auto intake = [&](const std::string& dir, const std::string& extra, TimeMs t) {
    s.Write(dir + "/intake.json", "{" + extra + "\"time\":\"" + FormatTime(t) + "\"}\n");
  };
  s.Write("queued/old/mission.json", ScratchSpool::MissionText("codex"));
  intake("queued/old", "\"hangar\":1,", kT0);
  s.AddMission(Phase::kRejected, "bad", kT0 + 1000, "claude");
  s.Write("hold/half/mission.json", ScratchSpool::MissionText("fake"));
  intake("hold/half", "\"drone\":\"other\",", kT0 + 2000);
  std::vector<MissionRow> rows = view.List("");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].ref.id, "bad");
  EXPECT_EQ(rows[0].drone, "claude");  // from mission.raw
  EXPECT_EQ(rows[0].time, kT0 + 1000);
  EXPECT_EQ(rows[1].ref.id, "half");
  EXPECT_EQ(rows[1].drone, "fake");  // both from mission.json
  EXPECT_EQ(rows[1].requester, "alice");
  EXPECT_EQ(rows[1].time, kT0 + 2000);
  EXPECT_EQ(rows[2].ref.id, "old");
  EXPECT_EQ(rows[2].drone, "codex");
  EXPECT_EQ(rows[2].requester, "alice");
  EXPECT_EQ(rows[2].time, kT0);
}

TEST_F(SpoolViewTest, ReadsFilesAsJsonDoesForDuplicateAndOddMembers) {
  // A repeated member counts as its last value, as json::Parse keeps it; a non-string is absent.
  s.Write("rejected/dup/mission.raw", "{\"drone\":\"first\",\"drone\":\"last\",\"requester\":7}");
  s.Write("rejected/dup/intake.json", "[]");
  s.AddReturned("ret", kT0, "done");
  s.Write("returned/ret/return.json", "{\"outcome\":\"done\",\"outcome\":null}");
  std::vector<MissionRow> rows = view.List("");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].drone, "last");
  EXPECT_EQ(rows[0].requester, "");
  EXPECT_TRUE(rows[0].time);  // no intake time: the directory's mtime
  EXPECT_EQ(rows[1].outcome, "");
}

TEST_F(SpoolViewTest, ALargeListingKeepsItsOrderAndEveryRow) {
  // Enough missions to be read by several threads, in several states.
  const int n = int(SpoolView::kParallelFrom) + 200;
  for (int i = 0; i < n; i++) {
    char id[16];
    snprintf(id, sizeof id, "m%05d", i);
    s.AddMission(i % 3 ? Phase::kQueued : Phase::kHold, id, kT0 + i, i % 2 ? "codex" : "claude");
  }
  std::vector<MissionRow> rows = view.List("");
  ASSERT_EQ(rows.size(), size_t(n));
  for (int i = 0; i < n; i++) {
    char id[16];
    snprintf(id, sizeof id, "m%05d", i);
    EXPECT_EQ(rows[i].ref.id, id);
    EXPECT_EQ(rows[i].ref.state, i % 3 ? "queued" : "hold");
    EXPECT_EQ(rows[i].drone, i % 2 ? "codex" : "claude");
    EXPECT_EQ(rows[i].time, kT0 + i);
  }
  EXPECT_EQ(view.Oldest(Phase::kQueued)->ref.id, "m00001");
}

TEST_F(SpoolViewTest, AMissingStateDirectoryIsEmpty) {
  std::filesystem::remove_all(s.spool() + "/denied");
  EXPECT_TRUE(view.List("denied").empty());
  EXPECT_EQ(view.Counts().at("denied"), 0);
  EXPECT_TRUE(view.CheckReadable().ok());
}

TEST_F(SpoolViewTest, AnAbsentSpoolIsNotReadable) {
  SpoolView nowhere(RealEnv(), Layout::Make(s.root() + "/nope", ""));
  EXPECT_EQ(nowhere.CheckReadable().code(), Code::kNotFound);
}

TEST_F(SpoolViewTest, CountsEveryStateIncomingControlAndTombstones) {
  s.AddMission(Phase::kQueued, "q1", kT0);
  s.AddMission(Phase::kQueued, "q2", kT0);
  s.AddReturned("r", kT0, "done");
  s.Write("incoming/new/x", "{}");
  s.Write("incoming/new/.x.tmp.12", "{}");  // not complete: not counted
  s.Write("control/new/cancel.q1.1.2", "{}");
  s.Write("purged/old.json", "{}");
  s.Write("purged/.old2.json.tmp.7", "{}");  // a tombstone being written: not counted
  std::map<std::string, int> c = view.Counts();
  EXPECT_EQ(c.at("queued"), 2);
  EXPECT_EQ(c.at("returned"), 1);
  EXPECT_EQ(c.at("incoming"), 1);
  EXPECT_EQ(c.at("control"), 1);
  EXPECT_EQ(c.at("purged"), 1);
  EXPECT_EQ(c.at("hold"), 0);
  EXPECT_EQ(c.size(), StateNames().size() + 2);
}

TEST_F(SpoolViewTest, OldestIsTheEarliestIntakeTiesToTheSmallerId) {
  EXPECT_FALSE(view.Oldest(Phase::kQueued));
  s.AddMission(Phase::kQueued, "late", kT0 + 5000);
  s.AddMission(Phase::kQueued, "zz-early", kT0);
  s.AddMission(Phase::kQueued, "aa-early", kT0);
  s.AddMission(Phase::kHold, "held", kT0 + 9000);
  std::optional<MissionRow> o = view.Oldest(Phase::kQueued);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->ref.id, "aa-early");
  EXPECT_EQ(o->time, kT0);
  EXPECT_EQ(view.Oldest(Phase::kHold)->ref.id, "held");
}

TEST(DropId, IdFieldElseNameWithoutJson) {
  EXPECT_EQ(DropId("n.json", "{\"id\":\"m7\"}"), "m7");
  EXPECT_EQ(DropId("n.json", "{}"), "n");
  EXPECT_EQ(DropId("n", "not json"), "n");
  EXPECT_EQ(DropId(".json", ""), ".json");
}

}  // namespace
}  // namespace hangar::cli
