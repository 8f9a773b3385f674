// Watchdog: which WATCHDOG_USEC / WATCHDOG_PID values turn the pings on (sd_watchdog_enabled(3)),
// and that a ping is due at once, then every half interval, never more often.
#include "daemon/watchdog.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

constexpr pid_t kSelf = 4242;

TEST(Watchdog, OnWithAnIntervalAndNoPid) {
  Watchdog w = Watchdog::FromVariables("60000000", nullptr, kSelf);
  EXPECT_TRUE(w.enabled());
  EXPECT_EQ(w.interval_us(), 60000000);
  EXPECT_TRUE(Watchdog::FromVariables("60000000", "", kSelf).enabled());
}

TEST(Watchdog, OnWhenThePidIsOurs) {
  EXPECT_TRUE(Watchdog::FromVariables("60000000", "4242", kSelf).enabled());
}

// Inherited from a parent that systemd watches: its pings, not ours.
TEST(Watchdog, OffWhenThePidIsAnothers) {
  EXPECT_FALSE(Watchdog::FromVariables("60000000", "4241", kSelf).enabled());
  EXPECT_FALSE(Watchdog::FromVariables("60000000", "42420", kSelf).enabled());
  EXPECT_FALSE(Watchdog::FromVariables("60000000", "1", kSelf).enabled());
}

TEST(Watchdog, OffWithoutAUsableInterval) {
  for (const char* usec : {"", "0", "-1", "60s", " 60000000", "60000000 ", "+5", "0x10",
                           "99999999999999999999", "9223372036854775808"})
    EXPECT_FALSE(Watchdog::FromVariables(usec, nullptr, kSelf).enabled()) << "'" << usec << "'";
  EXPECT_FALSE(Watchdog::FromVariables(nullptr, nullptr, kSelf).enabled());
  EXPECT_FALSE(Watchdog::FromVariables(nullptr, "4242", kSelf).enabled());
  EXPECT_TRUE(Watchdog::FromVariables("9223372036854775807", nullptr, kSelf).enabled());
}

TEST(Watchdog, OffWithAMalformedPid) {
  for (const char* pid : {"x", "-4242", "4242 ", "4242x", "99999999999999999999"})
    EXPECT_FALSE(Watchdog::FromVariables("60000000", pid, kSelf).enabled()) << "'" << pid << "'";
}

TEST(Watchdog, FirstPingAtOnceThenEveryHalfInterval) {
  Watchdog w = Watchdog::FromVariables("10000000", nullptr, kSelf);  // 10 s
  const int64_t t0 = 123456789;
  EXPECT_TRUE(w.Due(t0));
  EXPECT_FALSE(w.Due(t0));
  EXPECT_FALSE(w.Due(t0 + 1000000));
  EXPECT_FALSE(w.Due(t0 + 4999999));
  EXPECT_TRUE(w.Due(t0 + 5000000));
  EXPECT_FALSE(w.Due(t0 + 5000001));
  // A loop that was blocked pings as soon as it turns again, and counts from then.
  EXPECT_TRUE(w.Due(t0 + 12000000));
  EXPECT_FALSE(w.Due(t0 + 16999999));
  EXPECT_TRUE(w.Due(t0 + 17000000));
}

TEST(Watchdog, NeverDueWhenOff) {
  Watchdog w = Watchdog::FromVariables(nullptr, nullptr, kSelf);
  for (int64_t t : {int64_t(0), int64_t(1), int64_t(1) << 40}) EXPECT_FALSE(w.Due(t));
}

TEST(Watchdog, MonotonicClockDoesNotGoBack) {
  int64_t a = MonotonicUs(), b = MonotonicUs();
  EXPECT_GT(a, 0);
  EXPECT_GE(b, a);
}

}  // namespace
}  // namespace hangar
