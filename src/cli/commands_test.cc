// The pure rules behind the commands: drop names, control requests, kernel presence.
#include "cli/commands.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include "cli/scratch_spool_testutil.h"
#include "kernel/mission.h"

namespace hangar::cli {
namespace {

constexpr TimeMs kT0 = 1'800'000'000'123;  // 2027-01-15T08:00:00.123Z

TEST(FreshId, IsCompactTimeThenSixHexDigitsAndAValidId) {
  EXPECT_EQ(FreshId(kT0, 0xabc), "20270115T080000.123Z-000abc");
  EXPECT_EQ(FreshId(kT0, 0xff123456), "20270115T080000.123Z-123456");  // only 24 bits
  EXPECT_TRUE(ValidId(FreshId(kT0, 0xffffff)));
  EXPECT_LT(FreshId(kT0, 0xffffff), FreshId(kT0 + 1, 0));  // sortable by time
}

TEST(CancelRequest, HasTheContractFields) {
  EXPECT_EQ(json::Write(CancelRequest("m1", "alice", kT0)),
            "{\"by\":\"alice\",\"hangar\":1,\"id\":\"m1\",\"request\":\"cancel\","
            "\"time\":\"2027-01-15T08:00:00.123Z\"}");
  EXPECT_EQ(CancelRequestName("m1", kT0, 4242), "cancel.m1.20270115T080000.123Z.4242");
}

TEST(KernelAlive, OnlyWhileSomeoneHoldsTheLock) {
  ScratchSpool s;
  const std::string lock = s.layout().LockFile();
  EXPECT_EQ(KernelAlive(lock), false);  // no lock file: no kernel
  int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(KernelAlive(lock), false);  // the file alone says nothing
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  EXPECT_EQ(KernelAlive(lock), true);
  close(fd);
  EXPECT_EQ(KernelAlive(lock), false);
}

TEST(SinceTime, ATimeOrADurationBackFromNow) {
  const TimeMs now = 1767225600000;
  EXPECT_EQ(SinceTime("90s", now), now - 90000);
  EXPECT_EQ(SinceTime("10m", now), now - 600000);
  EXPECT_EQ(SinceTime("2h", now), now - 7200000);
  EXPECT_EQ(SinceTime("3d", now), now - 3 * 86400000LL);
  EXPECT_EQ(SinceTime("2026-01-01T00:00:00Z", now), now);
  EXPECT_FALSE(SinceTime("10", now));
  EXPECT_FALSE(SinceTime("10w", now));
  EXPECT_FALSE(SinceTime("-5m", now));
  EXPECT_FALSE(SinceTime("", now));
}

}  // namespace
}  // namespace hangar::cli
