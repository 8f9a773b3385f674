// DropQueue on a scratch spool: what is linked or renamed in is queued at once, what is created in
// place waits for its close or for kOpSettleMs unchanged, a file gone is forgotten, control
// requests and drops are kept apart, and the drops found at start are remembered until taken.
#include "daemon/drop_queue.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "daemon/run_watches.h"

namespace hangar {
namespace {

class DropQueueTest : public ::testing::Test {
 protected:
  DropQueueTest() {
    std::filesystem::create_directories(layout_.IncomingNew());
    std::filesystem::create_directories(layout_.ControlNew());
  }
  std::string Put(bool control, const std::string& name) {
    const std::string path = (control ? layout_.ControlNew() : layout_.IncomingNew()) + "/" + name;
    std::ofstream(path) << "{}";
    return path;
  }
  // The file's mtime, as the queue reads it.
  TimeMs Modified(const std::string& path) { return RealEnv()->Lstat(path)->modified; }

  ScratchDir scratch_{"dropq"};
  Layout layout_{scratch_.path() + "/spool", scratch_.path() + "/spool/rooms"};
  DropQueue q_{RealEnv(), layout_};
};

TEST_F(DropQueueTest, ALinkedFileIsQueuedAtOnceOneCreatedInPlaceAtItsClose) {
  const std::string a = Put(false, "a.json");
  ASSERT_EQ(link(a.c_str(), (layout_.IncomingNew() + "/b.json").c_str()), 0);
  q_.Event(false, "b.json", /*created=*/true);  // two links: linked into place
  q_.Event(false, "a.json", /*created=*/true);  // its first name: two links now too
  EXPECT_EQ(q_.NextDrop(), "b.json");
  EXPECT_EQ(q_.NextDrop(), "a.json");
  Put(false, "c.json");
  q_.Event(false, "c.json", /*created=*/true);  // created in place: its close will come
  EXPECT_EQ(q_.NextDrop(), std::nullopt);
  EXPECT_FALSE(q_.Backlog());
  q_.Event(false, "c.json", /*created=*/false);  // the close (or a rename onto it)
  EXPECT_EQ(q_.NextDrop(), "c.json");
  EXPECT_EQ(q_.NextDrop(), std::nullopt);  // once: the close took it out of the open set
}

TEST_F(DropQueueTest, AFileWithNoCloseIsTakenOnceLeftAloneLongEnough) {
  const std::string d = Put(true, "cancel.json");
  q_.Event(true, "cancel.json", /*created=*/true);
  const TimeMs m = Modified(d);
  q_.TakeSettled(m + kOpSettleMs - 1);
  EXPECT_EQ(q_.NextControl(), std::nullopt);
  q_.TakeSettled(m + kOpSettleMs);
  EXPECT_EQ(q_.NextControl(), "cancel.json");
  EXPECT_EQ(q_.NextDrop(), std::nullopt);  // a control request, not a drop
  q_.TakeSettled(m + 10 * kOpSettleMs);
  EXPECT_EQ(q_.NextControl(), std::nullopt);  // taken once
}

TEST_F(DropQueueTest, AFileFromTheFutureIsNotWaitedForAndOneGoneIsForgotten) {
  const std::string f = Put(false, "future.json");
  q_.Event(false, "future.json", true);
  q_.TakeSettled(Modified(f) - kOpSettleMs / 2);  // a little ahead: perhaps still written
  EXPECT_EQ(q_.NextDrop(), std::nullopt);
  q_.TakeSettled(Modified(f) - 60000);  // the clock set back: its mtime is a minute ahead
  EXPECT_EQ(q_.NextDrop(), "future.json");
  const std::string g = Put(false, "gone.json");
  q_.Event(false, "gone.json", true);
  std::filesystem::remove(g);
  q_.TakeSettled(0);
  EXPECT_EQ(q_.NextDrop(), std::nullopt);
}

TEST_F(DropQueueTest, TheDropsFoundAtStartAreRememberedUntilTaken) {
  q_.Add(false, {"old1.json", "old2.json"});
  q_.MarkFoundAtStart();
  q_.Add(false, {"new.json"});
  EXPECT_TRUE(q_.TakeFoundAtStart("old1.json"));
  EXPECT_FALSE(q_.TakeFoundAtStart("old1.json"));  // once
  EXPECT_FALSE(q_.TakeFoundAtStart("new.json"));
  EXPECT_TRUE(q_.Backlog());
  q_.Clear();
  EXPECT_FALSE(q_.Backlog());
  EXPECT_TRUE(q_.TakeFoundAtStart("old2.json"));  // clearing the queue is not taking
}

}  // namespace
}  // namespace hangar
