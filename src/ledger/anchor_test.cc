#include "ledger/anchor.h"

#include "gtest/gtest.h"
#include "ledger/entry.h"
#include "ledger/ledger_testutil.h"

namespace hangar::ledger {
namespace {

using testing::AppendText;
using testing::Lines;
using testing::Scratch;

const std::string kH(64, 'a');

TEST(Anchor, ALedgerCannotBindAnotherLedgersAnchor) {
  Scratch dir;
  EXPECT_EQ(Anchor::Bind(RealEnv(), dir.anchor_path("live"), "replay").status().code(),
            Code::kInvalid);
  EXPECT_EQ(Anchor::Bind(RealEnv(), dir.base() + "/anchor/live.anchor.bak", "live").status().code(),
            Code::kInvalid);
  EXPECT_FALSE(Anchor::Bind(RealEnv(), dir.anchor_path("x/../live"), "x/../live").ok());
  EXPECT_TRUE(Anchor::Bind(RealEnv(), dir.anchor_path("replay"), "replay").ok());
}

TEST(Anchor, AppendWritesOneCanonicalLineNamingItsLedger) {
  Scratch dir;
  Anchor a = Anchor::Bind(RealEnv(), dir.anchor_path(), "live").value();
  ASSERT_TRUE(a.Append(1, 1, kH).ok());
  EXPECT_EQ(Lines(a.path()), (std::vector<std::string>{"{\"epoch\":1,\"hash\":\"" + kH +
                                                       "\",\"ledger\":\"live\",\"seq\":1}"}));
  EXPECT_FALSE(a.Append(1, 2, "not-a-hash").ok());
}

TEST(Anchor, TornAnchorTailDoesNotSpoilTheNextLine) {
  Scratch dir;
  Anchor a = Anchor::Bind(RealEnv(), dir.anchor_path(), "live").value();
  ASSERT_TRUE(a.Append(1, 1, kH).ok());
  AppendText(a.path(), "{\"epoch\":1,\"ha");
  ASSERT_TRUE(a.Append(1, 2, kH).ok());
  Result<AnchorLines> lines = a.ReadAll();
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->own.size(), 2u);
  EXPECT_EQ(lines->own[1].seq, 2);
  EXPECT_EQ(lines->unreadable, 1);
}

TEST(Anchor, LastOwnLineSkipsOtherLedgersLines) {
  Scratch dir;
  Anchor a = Anchor::Bind(RealEnv(), dir.anchor_path(), "live").value();
  EXPECT_EQ(a.LastOwnLine().status().code(), Code::kNotFound);
  ASSERT_TRUE(a.Append(1, 7, kH).ok());
  // Enough foreign lines that the backward read needs several windows.
  std::string foreign;
  for (int i = 1; i <= 2000; i++) foreign += AnchorLineText("replay", 1, i, std::string(64, 'c'));
  AppendText(a.path(), foreign);
  Result<std::optional<AnchorLine>> last = a.LastOwnLine();
  ASSERT_TRUE(last.ok());
  ASSERT_TRUE(last->has_value());
  EXPECT_EQ((*last)->seq, 7);
  EXPECT_EQ((*last)->ledger, "live");
}

}  // namespace
}  // namespace hangar::ledger
