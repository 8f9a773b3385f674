// The kernel and a clock that runs backwards (State::ledger_time): a signal whose clock is well
// behind the ledger's latest time holds launches, recorded once; no entry is dated before that
// time; a grant's until is judged by the later of the two clocks. Pure: no disk.
#include <gtest/gtest.h>

#include "kernel/kernel.h"
#include "kernel/kernel_testutil.h"

namespace hangar {
namespace {

constexpr TimeMs kT = 1'800'000'000'000;  // the ledger's latest time
constexpr TimeMs kHour = 3'600'000;

std::string MissionText(const std::string& id) {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1}";
}

TEST(KernelClock, ABackwardClockHoldsLaunchesUntilItCatchesUp) {
  KernelSetup s = ScriptSetup(2);
  State st;
  st.ledger_time = kT;
  auto acts = Decide(s, &st, Dropped{"a", MissionText("M1"), "", kT - kHour, {}, kRoot});
  auto recs = Only<Record>(acts);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].kind, "clock.behind");
  EXPECT_EQ(recs[1].kind, "mission.accepted");
  for (const Record& r : recs) EXPECT_EQ(r.time, kT) << r.kind << ": dated before the ledger";
  EXPECT_TRUE(Only<Launch>(acts).empty());
  EXPECT_TRUE(st.clock_behind);
  EXPECT_FALSE(MayLaunch(s, st));
  // Recorded once: the next signal behind adds no second clock.behind.
  acts = Decide(s, &st, Dropped{"b", MissionText("M2"), "", kT - kHour + 5, {}, kRoot});
  ASSERT_EQ(Only<Record>(acts).size(), 1u);
  EXPECT_EQ(Only<Record>(acts)[0].kind, "mission.accepted");
  EXPECT_TRUE(Only<Launch>(acts).empty());
  // A small lag (threads reading the clock apart) is no setback.
  State lag;
  lag.ledger_time = kT;
  acts = Decide(s, &lag, Dropped{"c", MissionText("M3"), "", kT - 1000, {}, kRoot});
  EXPECT_FALSE(lag.clock_behind);
  EXPECT_EQ(Only<Launch>(acts).size(), 1u);
  // The clock right again: both queued missions launch.
  acts = Decide(s, &st, Ready{kT + 1});
  EXPECT_FALSE(st.clock_behind);
  EXPECT_EQ(Only<Launch>(acts).size(), 2u);
}

TEST(KernelClock, AGrantsUntilIsJudgedByTheLaterClock) {
  KernelSetup s = ScriptSetup();
  State st;
  st.ledger_time = kT;
  // Still ahead of the clock set back, long past for the ledger: refused.
  auto acts = Decide(s, &st,
                     ControlDropped{"g",
                                    R"({"hangar":1,"request":"grant","op":"x.y","mission":"M1",)"
                                    R"("until":"2027-01-15T07:00:00Z"})",
                                    "", kT - 100 * kHour, kRoot});
  auto c = Only<ConsumeControl>(acts);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].bad);
  EXPECT_NE(c[0].answer.find("is past"), std::string::npos) << c[0].answer;
}

}  // namespace
}  // namespace hangar
