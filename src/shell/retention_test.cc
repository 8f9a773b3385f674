// EndedMissions and Expired on a scratch spool whose files carry chosen modification times: a
// mission is as old as its return.json or why.json, each state has its own span, an unset span
// keeps its state's missions for ever, and what is not a mission directory is never a candidate.
#include "shell/retention.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

constexpr TimeMs kDay = 86'400'000;

class RetentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    l_ = Layout::Make(dir_.path() + "/spool", "");
    for (Phase p : kAllPhases) fs::create_directories(l_.StateDir(p));
  }
  // Mission ID in PHASE whose ending file was written DAYS_AGO days before kNow.
  void Ended(Phase p, const std::string& id, int days_ago) {
    const std::string dir = l_.MissionDir(p, id);
    fs::create_directories(dir);
    const std::string file = dir + (p == Phase::kReturned ? "/return.json" : "/why.json");
    std::ofstream(file) << "{}";
    const TimeMs t = kNow - days_ago * kDay;
    struct timespec ts[2] = {{t / 1000, 0}, {t / 1000, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, file.c_str(), ts, 0), 0);
  }

  static constexpr TimeMs kNow = 1'800'000'000'000;
  ScratchDir dir_{"retention"};
  Layout l_;
};

TEST_F(RetentionTest, EachStateKeepsItsMissionsForItsOwnSpan) {
  Ended(Phase::kReturned, "R40", 40);
  Ended(Phase::kReturned, "R10", 10);
  Ended(Phase::kDenied, "D40", 40);
  Ended(Phase::kRejected, "J8", 8);
  Ended(Phase::kRejected, "J2", 2);
  fs::create_directories(l_.MissionDir(Phase::kQueued, "Q1"));  // live: never listed
  std::ofstream(l_.StateDir(Phase::kReturned) + "/stray-file") << "x";
  fs::create_directories(l_.StateDir(Phase::kReturned) + "/.R9.tmp");
  Result<std::vector<EndedMission>> all = EndedMissions(
      RealEnv(), l_, {Phase::kReturned, Phase::kDenied, Phase::kRejected, Phase::kQueued});
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[0].id, "R10");
  EXPECT_EQ((*all)[0].ended, kNow - 10 * kDay);

  Retention r;
  r.returned = 30 * kDay;
  r.rejected = 7 * kDay;  // denied unset: kept for ever
  EXPECT_EQ(Expired(*all, r, kNow), (std::vector<std::string>{"R40", "J8"}));
  EXPECT_TRUE(Expired(*all, Retention{}, kNow).empty());
}

TEST_F(RetentionTest, AMissionWithoutItsEndingFileIsAsOldAsItsDirectory) {
  fs::create_directories(l_.MissionDir(Phase::kDenied, "D1"));
  Result<std::vector<EndedMission>> all = EndedMissions(RealEnv(), l_, {Phase::kDenied});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  struct stat st {};
  ASSERT_EQ(stat(l_.MissionDir(Phase::kDenied, "D1").c_str(), &st), 0);
  EXPECT_EQ((*all)[0].ended / 1000, st.st_mtim.tv_sec);
}

}  // namespace
}  // namespace hangar
