#include "ledger/store.h"

#include <filesystem>

#include "base/sha256.h"
#include "gtest/gtest.h"
#include "ledger/ledger_testutil.h"
#include "ledger/verify.h"

namespace hangar::ledger {
namespace {

using testing::AppendText;
using testing::Grow;
using testing::kT0;
using testing::Lines;
using testing::ReadText;
using testing::Scratch;

TEST(LedgerStore, AppendsChainedEntriesAndReopensAtTheHead) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(store.Open().ok());
  std::vector<Entry> es = Grow(&store, nullptr, 3);
  ASSERT_EQ(es.size(), 3u);
  EXPECT_EQ(es[0].prev, kGenesisPrev);
  EXPECT_EQ(es[1].prev, es[0].hash);
  EXPECT_EQ(es[2].prev, es[1].hash);
  const std::string seg = dir.spool() + "/ledger/live/000000000001.jsonl";
  EXPECT_EQ(ReadText(seg), EntryLine(es[0]) + EntryLine(es[1]) + EntryLine(es[2]));

  LedgerStore again(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(again.Open().ok());
  EXPECT_EQ(again.head_seq(), 3);
  EXPECT_EQ(again.head_hash(), es[2].hash);
}

TEST(LedgerStore, GroupCommitWritesABatchOfLinkedEntries) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(store.Open().ok());
  std::vector<Draft> drafts;
  for (int i = 0; i < 4; i++) drafts.push_back({"test.step", json::Object{{"i", i}}, kT0});
  Result<std::vector<Entry>> es = store.AppendBatch(drafts);
  ASSERT_TRUE(es.ok()) << es.status().message();
  ASSERT_EQ(es->size(), 4u);
  EXPECT_EQ((*es)[3].seq, 4);
  EXPECT_EQ((*es)[3].prev, (*es)[2].hash);
  EXPECT_EQ(Lines(dir.spool() + "/ledger/live/000000000001.jsonl").size(), 4u);
}

TEST(LedgerStore, DoubleInBodyRefusedAndNothingWritten) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(store.Open().ok());
  Result<Entry> e = store.Append("test.step", json::Object{{"ratio", 0.5}}, kT0);
  EXPECT_EQ(e.status().code(), Code::kInvalid);
  std::vector<Draft> drafts{{"test.step", json::Object{{"n", 1}}, kT0},
                            {"test.step", json::Object{{"x", 2.5}}, kT0}};
  EXPECT_FALSE(store.AppendBatch(drafts).ok());
  EXPECT_EQ(store.head_seq(), 0);
  EXPECT_FALSE(std::filesystem::exists(dir.spool() + "/ledger/live/000000000001.jsonl"));
}

TEST(LedgerStore, SegmentRolloverNamesEachSegmentByItsFirstSeq) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live", /*segment_bytes=*/700);
  ASSERT_TRUE(store.Open().ok());
  Grow(&store, nullptr, 10);  // ~260 bytes a line: three lines per segment
  Result<std::vector<std::string>> segs = store.Segments();
  ASSERT_TRUE(segs.ok());
  ASSERT_GE(segs->size(), 3u);
  EXPECT_EQ(segs->front(), "000000000001.jsonl");
  int64_t expect = 1;
  for (const std::string& s : *segs) {
    EXPECT_EQ(s, SegmentName(expect));
    expect += int64_t(Lines(store.dir() + "/" + s).size());
  }
  EXPECT_EQ(expect, 11);

  std::vector<int64_t> seen;
  ASSERT_TRUE(store
                  .ForEach(5,
                           [&](const Entry& e) {
                             seen.push_back(e.seq);
                             return Status::Ok();
                           })
                  .ok());
  EXPECT_EQ(seen, (std::vector<int64_t>{5, 6, 7, 8, 9, 10}));

  LedgerStore again(RealEnv(), dir.spool(), "live", 700);
  ASSERT_TRUE(again.Open().ok());
  EXPECT_EQ(again.head_seq(), 10);
  EXPECT_EQ(again.head_hash(), store.head_hash());
}

Entry HeadEntry(const LedgerStore& store) {
  Entry head;
  EXPECT_TRUE(store
                  .ForEach(store.head_seq(),
                           [&](const Entry& e) {
                             head = e;
                             return Status::Ok();
                           })
                  .ok());
  return head;
}

TEST(LedgerStore, TornTailCutAndRecorded) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(store.Open().ok());
  Grow(&store, nullptr, 3);
  const std::string seg = store.dir() + "/000000000001.jsonl";
  const std::string kept = ReadText(seg);
  AppendText(seg, "{\"body\":{\"n\"");  // 12 bytes of a fourth line, then the crash

  LedgerStore again(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(again.Open().ok());
  EXPECT_EQ(again.head_seq(), 4);
  Entry cut = HeadEntry(again);
  EXPECT_EQ(cut.kind, "ledger.cut");
  EXPECT_EQ(cut.body.find("bytes")->as_int(), 12);
  EXPECT_EQ(cut.body.find("after_seq")->as_int(), 3);
  EXPECT_EQ(cut.body.find("segment")->as_string(), "000000000001.jsonl");
  EXPECT_EQ(ReadText(seg), kept + EntryLine(cut));
  EXPECT_FALSE(std::filesystem::exists(again.dir() + "/cut-pending.json"));
  // Now the cut entry of a CutAfter torn by a crash (its note still pending): the torn bytes' cut
  // takes it, and carries the note it would have recorded, not overwritten.
  testing::WriteText(store.dir() + "/cut-pending.json",
                     "{\"after_seq\":4,\"bytes\":9,\"reason\":\"lines lost\",\"segment\":"
                     "\"000000000001.jsonl\",\"sha256\":\"" +
                         std::string(64, 'd') + "\"}");
  AppendText(seg, "{\"body\":{\"after");
  LedgerStore third(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(third.Open().ok());
  EXPECT_EQ(third.head_seq(), 5);
  cut = HeadEntry(third);
  EXPECT_EQ(cut.body.find("bytes")->as_int(), 15);
  const json::Value* carried = cut.body.find("cuts");
  ASSERT_NE(carried, nullptr) << json::Write(cut.body);
  EXPECT_EQ(carried->as_array().at(0).find("reason")->as_string(), "lines lost");
  EXPECT_FALSE(std::filesystem::exists(third.dir() + "/cut-pending.json"));
}

TEST(LedgerStore, UnparsableLastLineCutAndRecorded) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(store.Open().ok());
  Grow(&store, nullptr, 2);
  AppendText(store.dir() + "/000000000001.jsonl", std::string(7, '\0') + "\n");
  LedgerStore again(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(again.Open().ok());
  Entry cut = HeadEntry(again);
  EXPECT_EQ(cut.seq, 3);
  EXPECT_EQ(cut.kind, "ledger.cut");
  EXPECT_EQ(cut.body.find("bytes")->as_int(), 8);
  EXPECT_EQ(cut.body.find("after_seq")->as_int(), 2);
}

TEST(LedgerStore, CutInterruptedBeforeItsEntryIsRecordedAtNextOpen) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(store.Open().ok());
  Grow(&store, nullptr, 2);
  // A pending note left by a crash, then the head the next open leaves, and the note gone.
  auto reopened_after_note = [&](int64_t after_seq) {
    testing::WriteText(store.dir() + "/cut-pending.json",
                       "{\"after_seq\":" + std::to_string(after_seq) +
                           ",\"bytes\":5,\"segment\":\"000000000001.jsonl\",\"sha256\":\"" +
                           std::string(64, 'b') + "\"}");
    LedgerStore again(RealEnv(), dir.spool(), "live");
    EXPECT_TRUE(again.Open().ok());
    EXPECT_FALSE(std::filesystem::exists(again.dir() + "/cut-pending.json"));
    return again.head_seq();
  };
  // The state a crash right after the truncate leaves: the pending note, no torn bytes.
  EXPECT_EQ(reopened_after_note(2), 3);
  LedgerStore again(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(again.Open().ok());
  EXPECT_EQ(again.head_seq(), 3) << "recorded only once";
  EXPECT_EQ(HeadEntry(again).kind, "ledger.cut");
  // A note of a cut of whole entries (CutAfter) that a crash stopped before its truncation: the
  // entries after its after_seq are all there, so it records nothing (the keeper cuts again).
  EXPECT_EQ(reopened_after_note(1), 3);
}

// Whole entries cut (a tail whose signal record lines a power loss took, daemon/ledger_keeper.h):
// gone from the segment, recorded by a ledger.cut entry that names them by their bytes' sha256.
TEST(LedgerStore, CutAfterTakesWholeEntriesAndRecordsThem) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(store.Open().ok());
  std::vector<Entry> es = Grow(&store, nullptr, 5);
  const std::string seg = store.dir() + "/000000000001.jsonl";
  const std::string cut_bytes = EntryLine(es[3]) + EntryLine(es[4]);
  ASSERT_TRUE(store.CutAfter(3, "lines lost").ok());
  EXPECT_EQ(store.head_seq(), 4);
  Entry cut = HeadEntry(store);
  EXPECT_EQ(cut.kind, "ledger.cut");
  EXPECT_EQ(cut.prev, es[2].hash) << "the cut entry follows the head that is left";
  EXPECT_EQ(cut.body.find("after_seq")->as_int(), 3);
  EXPECT_EQ(cut.body.find("bytes")->as_int(), int64_t(cut_bytes.size()));
  EXPECT_EQ(cut.body.find("sha256")->as_string(), Sha256Hex(cut_bytes));
  EXPECT_EQ(cut.body.find("reason")->as_string(), "lines lost");
  EXPECT_EQ(ReadText(seg), EntryLine(es[0]) + EntryLine(es[1]) + EntryLine(es[2]) + EntryLine(cut));
  EXPECT_FALSE(std::filesystem::exists(store.dir() + "/cut-pending.json"));
  LedgerStore again(RealEnv(), dir.spool(), "live");  // recorded once
  ASSERT_TRUE(again.Open().ok());
  EXPECT_EQ(again.head_seq(), 4);
}

// Entries in two segments are not cut (the keeper fails closed): nothing changes.
TEST(LedgerStore, CutAfterRefusesEntriesInTwoSegments) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live", /*segment_bytes=*/700);
  ASSERT_TRUE(store.Open().ok());
  Grow(&store, nullptr, 5);  // three lines per segment: 1-3, 4-5
  const std::string before =
      ReadText(store.dir() + "/000000000001.jsonl") + ReadText(store.dir() + "/000000000004.jsonl");
  EXPECT_EQ(store.CutAfter(2, "lines lost").code(), Code::kInvalid);
  EXPECT_EQ(store.head_seq(), 5);
  EXPECT_EQ(
      ReadText(store.dir() + "/000000000001.jsonl") + ReadText(store.dir() + "/000000000004.jsonl"),
      before);
  ASSERT_TRUE(store.CutAfter(3, "lines lost").ok()) << "from the last segment's first entry";
  EXPECT_EQ(store.head_seq(), 4);
  EXPECT_EQ(HeadEntry(store).kind, "ledger.cut");
}

TEST(LedgerStore, DamageBeforeTheLastLineIsNotRepaired) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(store.Open().ok());
  Grow(&store, nullptr, 3);
  const std::string seg = store.dir() + "/000000000001.jsonl";
  std::vector<std::string> lines = Lines(seg);
  lines[1] = "garbage";
  lines[2] = "garbage";
  testing::WriteLines(seg, lines);
  LedgerStore again(RealEnv(), dir.spool(), "live");
  EXPECT_EQ(again.Open().code(), Code::kInvalid);
}

TEST(LedgerStore, BadLedgerNameRefused) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "../escape");
  EXPECT_EQ(store.Open().code(), Code::kInvalid);
}

}  // namespace
}  // namespace hangar::ledger
