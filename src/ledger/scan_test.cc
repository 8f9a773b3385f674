#include "ledger/scan.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ledger/ledger_testutil.h"
#include "ledger/lines.h"

namespace hangar::ledger {
namespace {

using testing::kT0;
using testing::Lines;
using testing::Scratch;
using testing::WriteLines;

// A ledger of n entries (about 290 bytes each) written in batches.
void Fill(LedgerStore* store, int n) {
  ASSERT_TRUE(store->Open().ok());
  for (int done = 0; done < n;) {
    std::vector<Draft> drafts;
    for (int i = 0; i < 100 && done < n; i++, done++)
      drafts.push_back(
          {"test.step", json::Object{{"n", done}, {"pad", std::string(100, 'p')}}, kT0 + done});
    ASSERT_TRUE(store->AppendBatch(drafts).ok());
  }
}

// What a scan saw: "seq:hash_ok" per entry, then the status.
std::string Trace(const LedgerStore& store, int threads, size_t block, int64_t hash_epoch = 1) {
  ScanOptions o;
  o.threads = threads;
  o.block_bytes = block;
  o.hash_epoch = hash_epoch;
  std::string out;
  Status s = ScanLedger(store, o, [&](const EntryView& v, bool ok) {
    out += std::to_string(v.seq) + (ok ? "" : "!") + " ";
    return Status::Ok();
  });
  return out + "| " + (s.ok() ? "ok" : s.message());
}

class LedgerScan : public ::testing::Test {
 protected:
  void SetUp() override { Fill(&store_, 3000); }
  std::string Segment(int i) const { return store_.dir() + "/" + store_.Segments().value()[i]; }
  Scratch dir_;
  // Two segments, of over a thousand lines each: blocks large enough to be split among threads.
  LedgerStore store_{RealEnv(), dir_.spool(), "live", 512 << 10};
};

TEST_F(LedgerScan, SeesEveryEntryInOrderWhateverTheThreadsAndBlocks) {
  std::string want;
  ASSERT_TRUE(store_
                  .ForEach(1,
                           [&](const Entry& e) {
                             want += std::to_string(e.seq) + " ";
                             return Status::Ok();
                           })
                  .ok());
  want += "| ok";
  ASSERT_EQ(store_.Segments()->size(), 2u);
  for (int threads : {1, 2, 3})
    for (size_t block : {size_t(100), size_t(8) << 10, size_t(4) << 20})
      EXPECT_EQ(Trace(store_, threads, block), want) << threads << " " << block;
}

TEST_F(LedgerScan, EditedEntryIsFlaggedAndOnlyInTheHashedEpoch) {
  std::vector<std::string> lines = Lines(Segment(1));
  const size_t k = lines.size() * 3 / 4;  // in the second half of the block: a helper's share
  lines[k].replace(lines[k].find("\"n\":"), 4, "\"n\":1");
  WriteLines(Segment(1), lines);
  std::string one = Trace(store_, 1, size_t(4) << 20);
  EXPECT_NE(one.find("! "), std::string::npos);
  EXPECT_EQ(one.find("! "), one.rfind("! "));
  EXPECT_EQ(Trace(store_, 2, size_t(4) << 20), one);
  EXPECT_EQ(Trace(store_, 2, size_t(4) << 20, /*hash_epoch=*/2).find('!'), std::string::npos);
}

TEST_F(LedgerScan, UnreadableLineStopsTheScanNamingSegmentAndLine) {
  std::vector<std::string> lines = Lines(Segment(1));
  lines[lines.size() - 10] = "{\"not\":\"an entry\"}";
  WriteLines(Segment(1), lines);
  std::string one = Trace(store_, 1, size_t(4) << 20);
  EXPECT_NE(
      one.find(Segment(1) + " line " + std::to_string(lines.size() - 9) + ": bad ledger entry"),
      std::string::npos)
      << one;
  EXPECT_EQ(Trace(store_, 2, size_t(4) << 20), one);
  EXPECT_EQ(Trace(store_, 2, 100), one);
}

TEST_F(LedgerScan, PartialLastLineIsRefusedLikeForEach) {
  const std::string last = Segment(int(store_.Segments()->size()) - 1);
  testing::AppendText(last, "{\"body\":");
  std::string got = Trace(store_, 2, 1000);
  EXPECT_NE(got.find(last + " line "), std::string::npos) << got;
  EXPECT_NE(got.find(": partial line at the end of the segment"), std::string::npos) << got;
}

TEST_F(LedgerScan, SegmentWhoseFirstSeqIsNotItsNameIsRefused) {
  const std::string second = store_.Segments().value()[1];
  int64_t first = std::stoll(second.substr(0, 12));
  std::filesystem::rename(store_.dir() + "/" + second, store_.dir() + "/" + SegmentName(first + 1));
  std::string got = Trace(store_, 2, size_t(4) << 20);
  EXPECT_NE(
      got.find(" line 1: first seq " + std::to_string(first) + " does not match the segment name"),
      std::string::npos)
      << got;
}

TEST(LedgerLines, BlocksHoldWholeLinesEvenWhenALineIsLongerThanTheRead) {
  Scratch dir;
  const std::string path = dir.base() + "/f";
  std::string text = "a\n" + std::string(5000, 'b') + "\nc\n\nd";
  testing::WriteText(path, text);
  for (size_t chunk : {size_t(1), size_t(7), size_t(4096), size_t(1) << 20}) {
    std::string seen;
    int64_t next_line = 1;
    Status s = ForEachLineBlock(RealEnv(), path, chunk, [&](std::string_view b, int64_t n, bool c) {
      EXPECT_EQ(n, next_line);
      if (c) {
        EXPECT_EQ(b.back(), '\n');
        next_line += std::count(b.begin(), b.end(), '\n');
      }
      seen += std::string(b) + (c ? "" : "<torn>");
      return Status::Ok();
    });
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(seen, text + "<torn>") << chunk;
    std::vector<std::string> lines;
    ASSERT_TRUE(ForEachLine(RealEnv(), path, [&](std::string_view l, int64_t n, bool c) {
                  lines.push_back(std::to_string(n) + (c ? "" : "~") + std::string(l.substr(0, 3)));
                  return Status::Ok();
                }).ok());
    EXPECT_EQ(lines, (std::vector<std::string>{"1a", "2bbb", "3c", "4", "5~d"}));
  }
}

// LastNewlineBefore finds the last newline before any END, across lines short and long: a line
// of 3 MiB spans the first small reads and several of the largest.
TEST(LastNewlineBefore, FindsTheLastNewlineBeforeEachEnd) {
  Scratch dir;
  const std::string path = dir.base() + "/lines";
  const std::string longest(3 << 20, 'x'), mid(20000, 'y');
  const std::string text = "a\n" + longest + "\n" + mid + "\nb\n" + "torn";
  testing::WriteText(path, text);
  for (uint64_t end : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(3), uint64_t(text.size()),
                       uint64_t(text.size() - 4), uint64_t(text.size() - 5),
                       uint64_t(text.size() - 6), uint64_t(2 + longest.size()),
                       uint64_t(2 + longest.size() + 1), uint64_t(2 + longest.size() + 5000)}) {
    const size_t expect = end == 0 ? std::string::npos : text.rfind('\n', end - 1);
    Result<int64_t> got = LastNewlineBefore(RealEnv(), path, end);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(*got, expect == std::string::npos ? int64_t(-1) : int64_t(expect)) << "end " << end;
  }
}

}  // namespace
}  // namespace hangar::ledger
