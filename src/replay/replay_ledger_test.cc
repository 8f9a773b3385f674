#include "replay/replay_ledger.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "base/scratch_dir_testutil.h"
#include "env/fault_env.h"
#include "ledger/scan.h"
#include "ledger/verify.h"

namespace hangar::replay {
namespace {

Record Rec(int64_t i) {
  return Record{i, "mission.accepted", json::Object{{"id", "M" + std::to_string(i)}}, 1000 + i,
                false};
}

Step StepOf(int64_t i) {
  Step s;
  s.n = i + 100;
  return s;
}

// More batches than wait for the writer at once, and a last part batch: every record reaches the
// replay's ledger once, in the order added, with the line it stands for, and the ledger verifies
// against its own anchor.
TEST(ReplayLedger, WritesEveryRecordInOrderWhateverTheBatches) {
  ScratchDir dir("replay-ledger");
  const int64_t n = int64_t(ReplayLedger::kBatch * (ReplayLedger::kInFlight + 2) + 7);
  {
    ReplayLedger own(RealEnv(), dir.path(), "replay-t");
    ASSERT_TRUE(own.Open().ok());
    for (int64_t i = 1; i <= n; ++i) ASSERT_TRUE(own.Add(Rec(i), StepOf(i)).ok()) << i;
    ASSERT_TRUE(own.Flush().ok());
  }
  ledger::LedgerStore store(RealEnv(), dir.path(), "replay-t");
  ASSERT_TRUE(store.OpenForReading().ok());
  int64_t seen = 0;
  Status s = ledger::ScanLedger(store, {}, [&](const ledger::EntryView& e, bool hash_ok) {
    ++seen;
    EXPECT_TRUE(hash_ok);
    EXPECT_EQ(e.seq, seen);
    Result<json::Value> body = json::Parse(e.body);
    EXPECT_TRUE(body.ok());
    if (body.ok()) {
      EXPECT_EQ(body->find("id")->as_string(), "M" + std::to_string(seen));
      EXPECT_EQ(body->find("replay_of")->find("line")->as_int(), seen + 100);
    }
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(seen, n);
  Result<ledger::Anchor> anchor =
      ledger::Anchor::Bind(RealEnv(), dir.path() + "/replay-t.anchor", "replay-t");
  ASSERT_TRUE(anchor.ok()) << anchor.status().message();
  Result<ledger::VerifyReport> v = ledger::Verify(store, *anchor);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_TRUE(v->ok) << v->reason;
  EXPECT_EQ(v->head_seq, n);
}

// A disk that fills while the writer works: the failure comes back by a later Add or by Flush,
// with its errno, and nothing waits for ever.
TEST(ReplayLedger, AWriteFailureComesBackAndNothingHangs) {
  ScratchDir dir("replay-ledger-fail");
  FaultPlan plan;
  plan.kind = FaultPlan::Kind::kFail;
  plan.at = 6;  // past opening the ledger and the anchor: a batch's append
  plan.error = ENOSPC;
  plan.sticky = true;
  FaultEnv env(RealEnv(), plan);
  ReplayLedger own(&env, dir.path(), "replay-t");
  ASSERT_TRUE(own.Open().ok());
  Status failed = Status::Ok();
  for (int64_t i = 1; failed.ok() && i <= int64_t(ReplayLedger::kBatch * 12); ++i)
    failed = own.Add(Rec(i), StepOf(i));
  if (failed.ok()) failed = own.Flush();
  EXPECT_EQ(failed.sys_errno(), ENOSPC) << failed.message();
  EXPECT_GT(env.calls(), 5u);
}

}  // namespace
}  // namespace hangar::replay
