// The shell's half of a purge on a scratch spool: the tombstone is written and the mission's
// directory, room and undelivered notify record go; a purge cut short (tombstone written, the rest
// not) is finished at start, and each tombstone comes back as a Recovered purged signal keeping
// its id, state, attempts and owner.
#include "shell/purge.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

const char kTombstone[] =
    R"({"accepted":"2026-01-01T00:00:00.000Z","attempts":2,"by":"root","hangar":1,"id":"M1",)"
    R"("keys":["launch.M1.1","launch.M1.2"],"ledger_seq":9,"owner":{"uid":1000,"user":"ann"},)"
    R"("purged":"2026-02-01T00:00:00.000Z","state":"denied"})";

class PurgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    l_ = Layout::Make(dir_.path() + "/spool", dir_.path() + "/rooms");
    fs::create_directories(l_.rooms);
    for (const std::string& d : l_.AllDirs()) fs::create_directories(d);
    // M1 denied, with its room (a drone's leftovers, a link out of it) and a notify record.
    fs::create_directories(l_.MissionDir(Phase::kDenied, "M1"));
    Write(l_.MissionDir(Phase::kDenied, "M1") + "/mission.json", "{}");
    fs::create_directories(l_.Room("M1") + "/sub");
    Write(l_.Room("M1") + "/sub/REPORT.md", "r");
    Write(dir_.path() + "/outside", "keep");
    fs::create_symlink(dir_.path() + "/outside", l_.Room("M1") + "/link");
    Write(l_.Notify() + "/M1.json", "{}");
    // M2 returned, untouched by any purge.
    fs::create_directories(l_.MissionDir(Phase::kReturned, "M2"));
    Write(l_.MissionDir(Phase::kReturned, "M2") + "/return.json", "{}");
  }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  bool There(const std::string& path) { return fs::exists(fs::symlink_status(path)); }
  void ExpectM1Gone() {
    EXPECT_FALSE(There(l_.MissionDir(Phase::kDenied, "M1")));
    EXPECT_FALSE(There(l_.Room("M1")));
    EXPECT_FALSE(There(l_.Notify() + "/M1.json"));
    EXPECT_TRUE(fs::is_empty(l_.PurgeTrash()));
    EXPECT_TRUE(There(dir_.path() + "/outside"));
    EXPECT_TRUE(There(l_.MissionDir(Phase::kReturned, "M2") + "/return.json"));
  }

  ScratchDir dir_{"purge"};
  Layout l_;
};

TEST_F(PurgeTest, ThePurgeLeavesOnlyItsTombstone) {
  std::vector<std::string> said;
  Status s = PerformPurge(RealEnv(), l_, Purge{"M1", Phase::kDenied, kTombstone}, &said);
  ASSERT_TRUE(s.ok()) << s.message();
  std::ifstream in(l_.Purged() + "/M1.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, kTombstone);
  ExpectM1Gone();
  ASSERT_EQ(said.size(), 1u);  // the undelivered return is said
  EXPECT_NE(said[0].find("notify"), std::string::npos) << said[0];
}

TEST_F(PurgeTest, APurgeCutShortIsFinishedAtStartAndItsIdStaysTaken) {
  // A stop after the tombstone, and after the rename into the trash of another purge.
  Write(l_.Purged() + "/M1.json", kTombstone);
  fs::create_directories(l_.PurgeTrash() + "/M0/deep");
  Write(l_.PurgeTrash() + "/M0/deep/f", "x");
  Write(l_.Purged() + "/not-an-id!.json", "{}");
  std::vector<std::string> log;
  Result<std::vector<Recovered>> r = RecoverPurged(RealEnv(), l_, 5, &log);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  const Recovered& m = (*r)[0];
  EXPECT_EQ(m.id, "M1");
  EXPECT_TRUE(m.purged);
  EXPECT_EQ(m.phase, Phase::kDenied);
  EXPECT_EQ(m.attempt, 2);
  EXPECT_EQ(m.by.uid, 1000);
  EXPECT_EQ(m.by.user, "ann");
  ExpectM1Gone();
  EXPECT_TRUE(There(l_.Purged() + "/not-an-id!.json"));  // left alone, and said
  bool said_left = false;
  for (const std::string& line : log) said_left |= line.find("not-an-id!") != std::string::npos;
  EXPECT_TRUE(said_left);
}

TEST_F(PurgeTest, AnUnreadableTombstoneStillKeepsItsId) {
  Write(l_.Purged() + "/M9.json", "{half");
  std::vector<std::string> log;
  Result<std::vector<Recovered>> r = RecoverPurged(RealEnv(), l_, 5, &log);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].id, "M9");
  EXPECT_TRUE((*r)[0].purged);
  EXPECT_EQ((*r)[0].phase, Phase::kReturned);
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log[0].find("its id stays taken"), std::string::npos) << log[0];
}

}  // namespace
}  // namespace hangar
