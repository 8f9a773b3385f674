// Periodic: a check is due once a period has passed, and a wall clock stepped back never stalls
// it: a kDueNow check runs at once, a kRestart one waits one period from the new time.
#include "daemon/periodic.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

constexpr TimeMs kT = 1767225600000;  // 2026-01-01

TEST(Periodic, DueOncePerPeriod) {
  Periodic p(2000, Periodic::StepBack::kDueNow);
  EXPECT_TRUE(p.Due(kT)) << "the first look";
  EXPECT_FALSE(p.Due(kT + 1999));
  EXPECT_TRUE(p.Due(kT + 2000));
  EXPECT_FALSE(p.Due(kT + 2001));
  EXPECT_TRUE(p.Due(kT + 9000)) << "a long gap: due once, not once per period missed";
  EXPECT_FALSE(p.Due(kT + 9001));
}

TEST(Periodic, AClockSteppedBackNeverStallsIt) {
  Periodic now(2000, Periodic::StepBack::kDueNow);
  ASSERT_TRUE(now.Due(kT));
  EXPECT_TRUE(now.Due(kT - 3'600'000)) << "an hour back: due at once";
  EXPECT_FALSE(now.Due(kT - 3'600'000 + 1999));
  EXPECT_TRUE(now.Due(kT - 3'600'000 + 2000)) << "and then every period from the new time";

  Periodic later(5000, Periodic::StepBack::kRestart);
  ASSERT_TRUE(later.Due(kT));
  EXPECT_FALSE(later.Due(kT - 3'600'000)) << "restarts the period";
  EXPECT_FALSE(later.Due(kT - 3'600'000 + 4999));
  EXPECT_TRUE(later.Due(kT - 3'600'000 + 5000)) << "not an hour later";
}

TEST(Periodic, RestartAndDueNext) {
  Periodic p(5000, Periodic::StepBack::kRestart);
  ASSERT_TRUE(p.Due(kT));
  p.Restart(kT + 4000);
  EXPECT_FALSE(p.Due(kT + 5000)) << "the period starts again at the restart";
  EXPECT_TRUE(p.Due(kT + 9000));
  p.DueNext();
  EXPECT_TRUE(p.Due(kT + 9001));
  EXPECT_FALSE(p.Due(kT + 9002));
}

}  // namespace
}  // namespace hangar
