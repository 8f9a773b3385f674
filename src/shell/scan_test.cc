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
