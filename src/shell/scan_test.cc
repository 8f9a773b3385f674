// Recovery's scan of the state directories: what it takes for a mission and what it leaves alone.
#include "shell/scan.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "base/scratch_dir_testutil.h"

namespace hangar {
namespace {

class RecoverMissionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    l_ = Layout::Make(dir_.path(), "");
    for (Phase p : kAllPhases) ASSERT_EQ(mkdir(l_.StateDir(p).c_str(), 0755), 0);
  }
  // A mission directory in PHASE as intake leaves it, taken in at TIME.
  void Mission(Phase p, const std::string& id, const std::string& time) {
    const std::string d = l_.MissionDir(p, id);
    ASSERT_EQ(mkdir(d.c_str(), 0755), 0);
    Write(d + "/mission.json", R"({"hangar":1,"id":")" + id +
                                   R"("})"
                                   "\n");
    Write(d + "/intake.json", R"({"time":")" + time +
                                  R"(","sha256":"ab"})"
                                  "\n");
  }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  std::vector<Recovered> Recover(std::vector<std::string>* log) {
    Result<std::vector<Recovered>> r = RecoverMissions(
        RealEnv(), l_, "/nonexistent-home", 1000, [](const std::string&) { return false; }, log);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r.value() : std::vector<Recovered>{};
  }

  ScratchDir dir_{"scan"};
  Layout l_;
};

TEST_F(RecoverMissionsTest, QueuedComeInIntakeOrderWithTheirBytes) {
  Mission(Phase::kQueued, "b", "2026-11-30T00:00:01.000Z");
  Mission(Phase::kQueued, "a", "2026-11-30T00:00:02.000Z");
  std::vector<std::string> log;
  std::vector<Recovered> r = Recover(&log);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].id, "b");
  EXPECT_EQ(r[1].id, "a");
  EXPECT_EQ(r[0].mission_bytes, "{\"hangar\":1,\"id\":\"b\"}\n");
  EXPECT_EQ(r[0].intake_sha256, "ab");
  EXPECT_TRUE(log.empty());
}

// A launch cut between the move to running/ and launch.json: the attempt is the one its key was
// taken for, the first or the one after a retry's previous (found by scripts/crash-sweep: a lost
// attempt 2 was returned as attempt 1).
TEST_F(RecoverMissionsTest, ARunningMissionWithoutLaunchJsonIsTheAttemptAfterItsRetry) {
  Mission(Phase::kRunning, "first", "2026-11-30T00:00:01.000Z");
  Mission(Phase::kRunning, "again", "2026-11-30T00:00:02.000Z");
  Write(l_.MissionDir(Phase::kRunning, "again") + "/retry.json",
        R"({"hangar":1,"id":"again","attempt":2,"previous":1})");
  Mission(Phase::kRunning, "known", "2026-11-30T00:00:03.000Z");
  Write(l_.MissionDir(Phase::kRunning, "known") + "/launch.json", R"({"attempt":3})");
  std::vector<std::string> log;
  std::vector<Recovered> r = Recover(&log);
  ASSERT_EQ(r.size(), 3u);
  std::map<std::string, int> attempt;
  for (const Recovered& x : r) attempt[x.id] = x.attempt;
  EXPECT_EQ(attempt, (std::map<std::string, int>{{"first", 1}, {"again", 2}, {"known", 3}}));
}

// An ended mission comes back with its intake time, its dropper and its last attempt, which a
// purge's tombstone names (found by scripts/crash-sweep: a mission purged after a restart left a
// tombstone listing none of its launch keys).
TEST_F(RecoverMissionsTest, AnEndedMissionKeepsItsDropperAndLastAttempt) {
  Mission(Phase::kReturned, "done", "2026-11-30T00:00:01.000Z");
  Write(l_.MissionDir(Phase::kReturned, "done") + "/intake.json",
        R"({"time":"2026-11-30T00:00:01.000Z","sha256":"ab","uid":1000,"user":"ann"})");
  Write(l_.MissionDir(Phase::kReturned, "done") + "/launch.json", R"({"attempt":2})");
  Mission(Phase::kRejected, "bad", "2026-11-30T00:00:02.000Z");
  std::vector<std::string> log;
  std::vector<Recovered> r = Recover(&log);
  ASSERT_EQ(r.size(), 2u);
  for (const Recovered& x : r) {
    if (x.id == "done") {
      EXPECT_EQ(x.attempt, 2);
      EXPECT_EQ(x.by.uid, 1000);
      EXPECT_EQ(x.by.user, "ann");
      EXPECT_EQ(x.accepted, *ParseTime("2026-11-30T00:00:01.000Z"));
    } else {
      EXPECT_EQ(x.attempt, 0);  // never launched
      EXPECT_EQ(x.accepted, *ParseTime("2026-11-30T00:00:02.000Z"));
    }
  }
}

TEST_F(RecoverMissionsTest, StrayFilesAndLinksAreLeftAloneAndSaid) {
  Mission(Phase::kQueued, "real", "2026-11-30T00:00:01.000Z");
  Write(l_.StateDir(Phase::kQueued) + "/notes.txt", "hello\n");
  // A symlink to a mission-like directory elsewhere is not a mission directory of this spool.
  ScratchDir elsewhere("scan-elsewhere");
  ASSERT_EQ(symlink(elsewhere.path().c_str(), (l_.StateDir(Phase::kQueued) + "/linked").c_str()),
            0);
  Write(l_.StateDir(Phase::kQueued) + "/.unfinished", "");
  std::vector<std::string> log;
  std::vector<Recovered> r = Recover(&log);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].id, "real");
  EXPECT_EQ(log,
            (std::vector<std::string>{"queued/linked is no mission directory; left alone",
                                      "queued/notes.txt is no mission directory; left alone"}));
}

}  // namespace
}  // namespace hangar

namespace hangar {
namespace {

// The cold queue: beyond the first `warm` in intake order, a queued mission is read as far as its
// small files say (no mission.json) and handed over as a ColdFound, in launch order; one whose
// intake.json gives no sha256 to check its bytes against later is read whole wherever it stands.
TEST_F(RecoverMissionsTest, QueuedBeyondWarmAreFoundColdInLaunchOrder) {
  const std::string sha(64, 'a');
  for (const auto& [id, second] :
       std::map<std::string, int>{{"q1", 1}, {"q2", 2}, {"q3", 3}, {"q4", 4}, {"q5", 5}}) {
    Mission(Phase::kQueued, id, "2026-11-30T00:00:0" + std::to_string(second) + ".000Z");
    Write(l_.MissionDir(Phase::kQueued, id) + "/intake.json",
          R"({"time":"2026-11-30T00:00:0)" + std::to_string(second) + R"(.000Z","sha256":")" +
              (id == "q4" ? std::string("ab") : sha) + R"(","uid":1000,"user":"ann"})");
  }
  Write(l_.MissionDir(Phase::kQueued, "q5") + "/retry.json", R"({"previous":2})");
  Write(l_.MissionDir(Phase::kQueued, "q5") + "/approve.json",
        R"({"mission_sha256":"m","plan_sha256":"p"})");
  std::vector<std::string> log;
  std::vector<ColdFound> cold;
  Result<std::vector<Recovered>> r = RecoverMissions(
      RealEnv(), l_, "/nonexistent-home", 1000, [](const std::string&) { return false; }, &log, 2,
      &cold);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<std::string> warm;
  for (const Recovered& x : *r) {
    warm.push_back(x.id);
    EXPECT_FALSE(x.mission_bytes.empty()) << x.id;  // read whole
  }
  EXPECT_EQ(warm, (std::vector<std::string>{"q1", "q2", "q4"}));
  ASSERT_EQ(cold.size(), 2u);
  EXPECT_EQ(cold[0].id, "q3");
  EXPECT_EQ(cold[1].id, "q5");
  EXPECT_EQ(cold[1].intake_sha256, sha);
  EXPECT_EQ(cold[1].accepted, *ParseTime("2026-11-30T00:00:05.000Z"));
  EXPECT_EQ(cold[1].by.uid, 1000);
  EXPECT_EQ(cold[1].by.user, "ann");
  EXPECT_EQ(cold[1].attempt, 2);
  EXPECT_EQ(cold[1].approved_sha256, "m");
  EXPECT_EQ(cold[1].approved_plan_sha256, "p");
}

// intake.json read in one pass: a member of another type is left as it was, a member given twice
// counts by its last value, a negative uid is no uid.
TEST_F(RecoverMissionsTest, IntakeFactsAreReadAsTheDocumentGivesThem) {
  Mission(Phase::kQueued, "i1", "2026-11-30T00:00:01.000Z");
  Write(l_.MissionDir(Phase::kQueued, "i1") + "/intake.json",
        R"({"time":7,"sha256":"x","sha256":"y","uid":-3,"user":"bob"})");
  std::vector<std::string> log;
  std::vector<Recovered> r = Recover(&log);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].accepted, 0);
  EXPECT_EQ(r[0].intake_sha256, "y");
  EXPECT_EQ(r[0].by.uid, -1);
  EXPECT_EQ(r[0].by.user, "bob");
}

// What Warm reads: the bytes of queued/ID/mission.json, or why they could not be read.
TEST_F(RecoverMissionsTest, ReadWarmedGivesTheBytesOrWhy) {
  Mission(Phase::kQueued, "w1", "2026-11-30T00:00:01.000Z");
  Warmed w = ReadWarmed(RealEnv(), l_, "/nonexistent-home", "w1", 5);
  EXPECT_EQ(w.id, "w1");
  EXPECT_EQ(w.bytes, "{\"hangar\":1,\"id\":\"w1\"}\n");
  EXPECT_TRUE(w.read_error.empty());
  EXPECT_EQ(w.now, 5);
  Warmed gone = ReadWarmed(RealEnv(), l_, "/nonexistent-home", "w2", 5);
  EXPECT_TRUE(gone.bytes.empty());
  EXPECT_NE(gone.read_error.find("w2/mission.json"), std::string::npos) << gone.read_error;
}

}  // namespace
}  // namespace hangar
