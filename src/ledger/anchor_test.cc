#include "ledger/anchor.h"

#include <filesystem>

#include "base/id.h"
#include "base/json.h"
#include "gtest/gtest.h"
#include "ledger/entry.h"
#include "ledger/ledger_testutil.h"

namespace hangar::ledger {
namespace {

using testing::AppendText;
using testing::Lines;
using testing::ReadText;
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

TEST(Anchor, AppendBatchWritesAllLinesInOrderAsAppendWould) {
  Scratch dir;
  Anchor a = Anchor::Bind(RealEnv(), dir.anchor_path(), "live").value();
  ASSERT_TRUE(a.AppendBatch({}).ok());
  EXPECT_FALSE(std::filesystem::exists(a.path()));  // an empty batch creates nothing
  std::vector<AnchorMark> marks;
  std::string expected;
  for (int64_t seq = 1; seq <= 3; seq++) {
    marks.push_back({1, seq, std::string(64, char('a' + seq))});
    expected += AnchorLineText("live", 1, seq, marks.back().hash);
  }
  ASSERT_TRUE(a.AppendBatch(marks).ok());
  EXPECT_EQ(ReadText(a.path()), expected);
  // After a torn tail the batch starts on a line of its own, like Append.
  AppendText(a.path(), "{\"epoch\":1,\"ha");
  ASSERT_TRUE(a.AppendBatch({{1, 4, kH}, {1, 5, kH}}).ok());
  Result<AnchorLines> lines = a.ReadAll();
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->own.size(), 5u);
  EXPECT_EQ(lines->own[4].seq, 5);
  EXPECT_EQ(lines->own[4].line_no, 6);
  EXPECT_EQ(lines->unreadable, 1);
}

TEST(Anchor, AppendBatchWithABadMarkWritesNothing) {
  Scratch dir;
  Anchor a = Anchor::Bind(RealEnv(), dir.anchor_path(), "live").value();
  for (const AnchorMark& bad : {AnchorMark{1, 2, "not-a-hash"}, AnchorMark{0, 2, kH},
                                AnchorMark{1, 0, kH}, AnchorMark{1, 2, std::string(64, 'A')}}) {
    Status s = a.AppendBatch({{1, 1, kH}, bad});
    EXPECT_EQ(s.code(), Code::kInvalid);
    EXPECT_FALSE(std::filesystem::exists(a.path()));
  }
}

TEST(Anchor, ScanSeesEveryLineInOrder) {
  Scratch dir;
  Anchor a = Anchor::Bind(RealEnv(), dir.anchor_path(), "live").value();
  EXPECT_EQ(a.Scan([](const AnchorLineView*, int64_t) {}).code(), Code::kNotFound);
  ASSERT_TRUE(a.Append(1, 1, kH).ok());
  AppendText(a.path(), AnchorLineText("replay", 1, 9, kH) + "junk\n");
  ASSERT_TRUE(a.Append(2, 2, kH).ok());
  std::vector<std::string> seen;
  ASSERT_TRUE(a.Scan([&](const AnchorLineView* v, int64_t line_no) {
                 seen.push_back(std::to_string(line_no) + ":" +
                                (v ? std::string(v->ledger) + "/" + std::to_string(v->epoch) + "/" +
                                         std::to_string(v->seq)
                                   : "-"));
               }).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"1:live/1/1", "2:replay/1/9", "3:-", "4:live/2/2"}));
}

// The fast anchor reader against the format's definition: parse, four members, canonical text.
TEST(Anchor, ParseAgreesWithTheFormatOnMutatedLines) {
  auto oracle = [](const std::string& line) {
    Result<json::Value> v = json::Parse(line);
    if (!v.ok() || !v->is_object() || v->as_object().size() != 4) return false;
    const json::Value *l = v->find("ledger"), *e = v->find("epoch"), *s = v->find("seq"),
                      *h = v->find("hash");
    if (!l || !e || !s || !h || !l->is_string() || !e->is_int() || !s->is_int() ||
        !h->is_string() || e->as_int() < 1 || s->as_int() < 1 || !IsHexHash(h->as_string()))
      return false;
    return json::Write(*v) == line;
  };
  std::string line = AnchorLineText("live-1.x_y", 12, 3456, std::string(64, 'e'));
  line.pop_back();
  const std::string kBytes = " \"\\019-.eEaAfZ{}[],:\x01\x7f\xc3";
  int accepted = 0;
  for (size_t i = 0; i <= line.size(); i++) {
    std::vector<std::string> variants;
    if (i < line.size()) variants.push_back(line.substr(0, i) + line.substr(i + 1));
    for (char c : kBytes) {
      if (i < line.size()) variants.push_back(line.substr(0, i) + c + line.substr(i + 1));
      variants.push_back(line.substr(0, i) + c + line.substr(i));
    }
    for (const std::string& m : variants) {
      // ValidId is stricter than JSON: a name like "live-1.x_y\x7f" parses but is refused.
      bool want = oracle(m) && ValidId(json::Parse(m)->find("ledger")->as_string());
      Result<AnchorLine> got = ParseAnchorLine(m);
      ASSERT_EQ(got.ok(), want) << m;
      if (want) {
        accepted++;
        EXPECT_EQ(AnchorLineText(got->ledger, got->epoch, got->seq, got->hash), m + "\n");
      }
    }
  }
  EXPECT_GT(accepted, 20);
}

}  // namespace
}  // namespace hangar::ledger
