// RunWatches with a real inotify descriptor on a scratch spool: an exit record renamed into a
// watched run/ names its mission; a request renamed into ROOM/ops is handed over once, never one
// answered before, never after the mission is unwatched; a scan hands over only what has been
// left alone for kOpSettleMs; exit rechecks run out.
#include "daemon/run_watches.h"

#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"

namespace hangar {
namespace {

class RunWatchesTest : public ::testing::Test {
 protected:
  RunWatchesTest() {
    std::filesystem::create_directories(layout_.RunDir("M1"));
    std::filesystem::create_directories(layout_.RoomOps("M1"));
    std::filesystem::create_directories(layout_.MissionOps("M1"));
  }
  ~RunWatchesTest() override { close(fd_); }

  // Writes DIR/NAME by a rename from a dot name, as a drone or a supervisor does.
  void Rename(const std::string& dir, const std::string& name) {
    std::ofstream(dir + "/.tmp") << R"({"op":"post.message","args":{},"key":"k"})";
    std::filesystem::rename(dir + "/.tmp", dir + "/" + name);
  }
  // Every event inotify holds now, told to the watches: the missions whose exit they name.
  std::vector<std::string> Events() {
    std::vector<std::string> exits;
    alignas(struct inotify_event) char buf[8192];
    ssize_t n;
    while ((n = read(fd_, buf, sizeof buf)) > 0)
      for (char* p = buf; p < buf + n;) {
        auto* ev = reinterpret_cast<struct inotify_event*>(p);
        p += sizeof(struct inotify_event) + ev->len;
        if (auto id = w_.Event(ev->wd, ev->len ? ev->name : "")) exits.push_back(*id);
      }
    return exits;
  }

  ScratchDir scratch_{"runw"};
  Layout layout_{scratch_.path() + "/spool", scratch_.path() + "/rooms"};
  int fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  std::vector<std::string> said_;
  RunWatches w_{RealEnv(), layout_, fd_, [this](const std::string& l) { said_.push_back(l); }};
};

TEST_F(RunWatchesTest, AnExitRecordNamesItsMission) {
  w_.Watch("M1", RealEnv()->Now());
  EXPECT_TRUE(w_.Watched("M1"));
  EXPECT_EQ(w_.Ids(), std::vector<std::string>{"M1"});
  Rename(layout_.RunDir("M1"), "other.json");
  EXPECT_TRUE(Events().empty());
  Rename(layout_.RunDir("M1"), "exit.json");
  EXPECT_EQ(Events(), std::vector<std::string>{"M1"});
  w_.Unwatch("M1");
  Rename(layout_.RunDir("M1"), "exit.json");
  EXPECT_TRUE(Events().empty());
  EXPECT_FALSE(w_.Watched("M1"));
}

TEST_F(RunWatchesTest, ARequestIsHandedOverOnceAndNotAfterItsAnswer) {
  w_.Watch("M1", RealEnv()->Now());
  Rename(layout_.RoomOps("M1"), "r1.json");
  Rename(layout_.RoomOps("M1"), "r2.json");
  Rename(layout_.RoomOps("M1"), "r1.result.json");  // not a request: the drone cannot answer
  Events();
  using Op = std::pair<std::string, std::string>;
  std::ofstream(layout_.MissionOps("M1") + "/r2.result.json") << "{}";  // answered before
  EXPECT_EQ(w_.NextOp(), (Op{"M1", "r1"}));
  EXPECT_EQ(w_.NextOp(), std::nullopt);
  Rename(layout_.RoomOps("M1"), "r1.json");  // the same name again
  Events();
  w_.ScanOps("M1", TimeMs(1) << 50);
  EXPECT_EQ(w_.NextOp(), std::nullopt);
}

TEST_F(RunWatchesTest, AScanTakesOnlyWhatHasBeenLeftAlone) {
  const std::string req = layout_.RoomOps("M1") + "/early.json";
  std::ofstream(req) << "{";  // there before the watch (a restart), left alone since
  w_.Watch("M1", RealEnv()->Lstat(req)->modified + kOpSettleMs);  // Watch scans
  using Op = std::pair<std::string, std::string>;
  EXPECT_EQ(w_.NextOp(), (Op{"M1", "early"}));
  std::ofstream(layout_.RoomOps("M1") + "/late.json") << "{";
  const TimeMs m = RealEnv()->Lstat(layout_.RoomOps("M1") + "/late.json")->modified;
  w_.ScanOps("M1", m + kOpSettleMs - 1);
  EXPECT_EQ(w_.NextOp(), std::nullopt);
  w_.ScanOps("M1", m + kOpSettleMs);
  EXPECT_EQ(w_.NextOp(), (Op{"M1", "late"}));
  std::ofstream(layout_.RoomOps("M1") + "/ahead.json") << "{";
  w_.ScanOps("M1", m - kOpSettleMs / 2);  // a little ahead: still being written, perhaps
  EXPECT_EQ(w_.NextOp(), std::nullopt);
  w_.ScanOps("M1", m - 60000);  // the clock stepped back: its mtime is a minute ahead
  EXPECT_EQ(w_.NextOp(), (Op{"M1", "ahead"}));
}

TEST_F(RunWatchesTest, AMissionUnwatchedHandsNothingOver) {
  w_.Watch("M1", RealEnv()->Now());
  Rename(layout_.RoomOps("M1"), "r1.json");
  Events();
  w_.Unwatch("M1");
  EXPECT_EQ(w_.NextOp(), std::nullopt);
}

TEST_F(RunWatchesTest, AnUnwatchableRunIsLeftToTheChecksAndSaidSo) {
  w_.Watch("M9", RealEnv()->Now());  // no such run directory
  EXPECT_TRUE(w_.Watched("M9"));
  ASSERT_EQ(said_.size(), 1u);
  EXPECT_NE(said_[0].find("M9: cannot watch"), std::string::npos) << said_[0];
}

TEST_F(RunWatchesTest, RechecksRunOut) {
  w_.RecheckLater("M1");
  w_.RecheckLater("M1");  // once: a second call does not start the count again
  int looks = 0;
  while (w_.AnyRecheck()) {
    looks += int(w_.DueRechecks().size());
    ASSERT_LE(looks, kExitRechecks + 1);
  }
  EXPECT_EQ(looks, kExitRechecks);
  w_.RecheckLater("M2");
  w_.RecheckDone("M2");
  EXPECT_FALSE(w_.Rechecking("M2"));
}

}  // namespace
}  // namespace hangar
