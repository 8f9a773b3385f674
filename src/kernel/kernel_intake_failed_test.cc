// IntakeFailed: an intake the shell could not do for lack of space is forgotten by the kernel, with
// the launch the same decision made of it, and recorded; the same drop is then decided afresh
// (issue 6: a full disk rejects nothing).
#include <gtest/gtest.h>

#include "kernel/kernel.h"
#include "kernel/kernel_testutil.h"

namespace hangar {
namespace {

Dropped Drop(const std::string& name, const std::string& id, TimeMs now = 1000) {
  std::string bytes = "{\"hangar\":1," + (id.empty() ? "" : "\"id\":\"" + id + "\",") +
                      "\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
                      "\"max_minutes\":0.5}";
  return Dropped{name, bytes, "", now, {}};
}

TEST(KernelIntakeFailed, ForgetsTheMissionAndItsLaunchAndRecordsIt) {
  KernelSetup s = ScriptSetup(1);
  State st;
  auto acts = Decide(s, &st, Drop("a.json", "M1"));
  ASSERT_EQ(Only<Intake>(acts).size(), 1u);
  ASSERT_EQ(Only<Launch>(acts).size(), 1u);  // the same decision launched it
  ASSERT_EQ(st.running, 1);
  const int64_t seq = st.ledger_seq;

  acts =
      Decide(s, &st, IntakeFailed{"a.json", "M1", "cannot write: No space left on device", 2000});
  EXPECT_FALSE(st.missions.count("M1"));
  EXPECT_TRUE(st.queue.empty());
  EXPECT_EQ(st.running, 0);
  auto recs = Only<Record>(acts);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].kind, "mission.intake-failed");
  EXPECT_EQ(recs[0].seq, seq + 1);
  EXPECT_EQ(recs[0].body.find("id")->as_string(), "M1");
  EXPECT_EQ(recs[0].body.find("name")->as_string(), "a.json");
  EXPECT_EQ(recs[0].body.find("reason")->as_string(), "cannot write: No space left on device");
  EXPECT_TRUE(Only<Intake>(acts).empty());
  EXPECT_TRUE(Only<Launch>(acts).empty());
  EXPECT_TRUE(Only<Move>(acts).empty());  // nothing to move: the drop is still in incoming/new

  // The same drop again is taken in under the same id, not rejected as a duplicate.
  acts = Decide(s, &st, Drop("a.json", "M1", 3000));
  auto in = Only<Intake>(acts);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].id, "M1");
  EXPECT_EQ(in[0].to, Phase::kQueued);
  EXPECT_EQ(Only<Launch>(acts).size(), 1u);
  EXPECT_EQ(st.running, 1);
}

TEST(KernelIntakeFailed, QueuedMissionLeavesTheQueueAndOthersAreUntouched) {
  KernelSetup s = ScriptSetup(1);
  State st;
  Decide(s, &st, Drop("a", "A"));  // takes the slot
  Decide(s, &st, Drop("b", "B"));  // queued behind it
  ASSERT_EQ(st.queue.size(), 1u);
  auto acts = Decide(s, &st, IntakeFailed{"b", "B", "no space", 2000});
  EXPECT_FALSE(st.missions.count("B"));
  EXPECT_TRUE(st.queue.empty());
  EXPECT_EQ(st.running, 1);
  EXPECT_EQ(st.missions["A"].phase, Phase::kRunning);
  EXPECT_EQ(Only<Record>(acts).size(), 1u);
}

TEST(KernelIntakeFailed, RejectedIntakeIsForgottenToo) {
  KernelSetup s = ScriptSetup(1);
  State st;
  auto acts = Decide(s, &st, Dropped{"bad.json", "not json", "", 1000, {}});
  auto in = Only<Intake>(acts);
  ASSERT_EQ(in.size(), 1u);
  ASSERT_EQ(in[0].to, Phase::kRejected);
  Decide(s, &st, IntakeFailed{"bad.json", in[0].id, "no space", 2000});
  EXPECT_FALSE(st.missions.count(in[0].id));
}

TEST(KernelIntakeFailed, NeverForgetsAMissionThatIsNotAFreshIntake) {
  KernelSetup s = ScriptSetup(1);
  State st;
  Decide(s, &st, Drop("a", "A"));
  ExitInfo e;
  e.rc = 0;
  Decide(s, &st, DroneExited{"A", e, 1500});  // its drone ended: no longer just taken in
  const int64_t seq = st.ledger_seq;
  auto acts = Decide(s, &st, IntakeFailed{"a", "A", "no space", 2000});
  EXPECT_TRUE(st.missions.count("A"));
  EXPECT_TRUE(acts.empty());
  EXPECT_EQ(st.ledger_seq, seq);
  acts = Decide(s, &st, IntakeFailed{"x", "UNKNOWN", "no space", 2000});
  EXPECT_TRUE(acts.empty());
}

}  // namespace
}  // namespace hangar
