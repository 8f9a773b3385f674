// Each test reproduces in miniature a way the ledger or its anchor can go wrong, and is named
// after it. The reference incident: a replay tool wrote its heads into the live anchor.
#include "ledger/verify.h"

#include <filesystem>

#include "gtest/gtest.h"
#include "ledger/ledger_testutil.h"

namespace hangar::ledger {
namespace {

using testing::AppendText;
using testing::Grow;
using testing::Lines;
using testing::Scratch;
using testing::WriteLines;

class LedgerVerify : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    entries_ = Grow(&store_, &anchor_, 5);
  }
  std::string Segment() const { return store_.dir() + "/000000000001.jsonl"; }
  // Verification as a restarted kernel does it: a fresh store over what is on disk.
  VerifyReport Check() {
    LedgerStore fresh(RealEnv(), dir_.spool(), "live");
    Status s = fresh.Open();
    EXPECT_TRUE(s.ok()) << s.message();
    Result<VerifyReport> r = Verify(fresh, anchor_);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r.value() : VerifyReport{};
  }
  Status Head() {
    LedgerStore fresh(RealEnv(), dir_.spool(), "live");
    EXPECT_TRUE(fresh.Open().ok());
    return CheckHead(fresh, anchor_);
  }

  Scratch dir_;
  LedgerStore store_{RealEnv(), dir_.spool(), "live"};
  Anchor anchor_ = Anchor::Bind(RealEnv(), dir_.anchor_path(), "live").value();
  std::vector<Entry> entries_;
};

TEST_F(LedgerVerify, NormalLedgerIsOk) {
  VerifyReport r = Check();
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.checked, 5);
  EXPECT_EQ(r.anchor_own, 5);
  EXPECT_EQ(r.head_seq, 5);
  EXPECT_TRUE(Head().ok());
}

TEST_F(LedgerVerify, ReplayPollutesAnchorIsIgnored) {
  std::string replay;
  for (int i = 1; i <= 50; i++) replay += AnchorLineText("replay", 1, i, std::string(64, 'e'));
  AppendText(anchor_.path(), replay);
  VerifyReport r = Check();
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.anchor_ignored, 50);
  EXPECT_TRUE(Head().ok());
}

TEST_F(LedgerVerify, ReplayPollutesAnchorWouldFailTheLastLineRule) {
  std::string replay;
  for (int i = 1; i <= 50; i++) replay += AnchorLineText("replay", 1, i, std::string(64, 'e'));
  AppendText(anchor_.path(), replay);
  // The old check: the file's last line against the head. It reads seq 50 of another ledger and
  // would have failed the live kernel closed for nothing.
  Result<AnchorLine> last = ParseAnchorLine(Lines(anchor_.path()).back());
  ASSERT_TRUE(last.ok());
  EXPECT_FALSE(last->seq == store_.head_seq() && last->hash == store_.head_hash());
  EXPECT_TRUE(Head().ok());
}

TEST_F(LedgerVerify, RollbackWithForgedAnchorLineIsDetected) {
  std::vector<std::string> lines = Lines(Segment());
  WriteLines(Segment(), {lines[0], lines[1]});
  AppendText(anchor_.path(), AnchorLineText("live", 1, 2, entries_[1].hash));
  // The forged last line satisfies a tail-only check...
  EXPECT_TRUE(Head().ok());
  // ...but not the walk.
  VerifyReport r = Check();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failure, Failure::kRollback) << r.reason;
  EXPECT_EQ(r.seq, 3);
}

TEST_F(LedgerVerify, PlainRollbackFailsTheCheapCheckToo) {
  std::vector<std::string> lines = Lines(Segment());
  WriteLines(Segment(), {lines[0], lines[1]});
  EXPECT_EQ(Check().failure, Failure::kRollback);
  Status s = Head();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rollback"), std::string::npos) << s.message();
}

TEST_F(LedgerVerify, EditedBodyIsDetected) {
  std::vector<std::string> lines = Lines(Segment());
  size_t at = lines[2].find("\"n\":3");
  ASSERT_NE(at, std::string::npos);
  lines[2].replace(at, 5, "\"n\":9");
  WriteLines(Segment(), lines);
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kHashMismatch) << r.reason;
  EXPECT_EQ(r.seq, 3);
}

TEST_F(LedgerVerify, RehashedForgeryDisagreesWithTheAnchor) {
  // Whoever edits entry 3 and recomputes every hash after it keeps the chain intact; the anchor
  // on its other mount still says what entry 3 was.
  std::vector<std::string> lines = Lines(Segment());
  std::string prev = entries_[1].hash;
  for (size_t i = 2; i < lines.size(); i++) {
    Entry e = ParseEntryLine(lines[i]).value();
    if (i == 2) e.body = json::Object{{"n", 99}};
    e.prev = prev;
    e.hash = prev = EntryHash(e).value();
    lines[i] = EntryLine(e).substr(0, EntryLine(e).size() - 1);
  }
  WriteLines(Segment(), lines);
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kAnchorMismatch) << r.reason;
  EXPECT_EQ(r.seq, 3);
}

TEST_F(LedgerVerify, DeletedMiddleLineIsAGap) {
  std::vector<std::string> lines = Lines(Segment());
  lines.erase(lines.begin() + 2);
  WriteLines(Segment(), lines);
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kLedgerSequence) << r.reason;
  EXPECT_EQ(r.seq, 4);
}

TEST_F(LedgerVerify, DeletedMiddleAnchorLineIsAGap) {
  std::vector<std::string> lines = Lines(anchor_.path());
  lines.erase(lines.begin() + 2);
  WriteLines(anchor_.path(), lines);
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kAnchorSequence) << r.reason;
  EXPECT_EQ(r.seq, 3);
}

TEST_F(LedgerVerify, DuplicatedLineIsDetected) {
  std::vector<std::string> lines = Lines(Segment());
  lines.insert(lines.begin() + 2, lines[2]);
  WriteLines(Segment(), lines);
  EXPECT_EQ(Check().failure, Failure::kLedgerSequence);
}

TEST_F(LedgerVerify, DuplicatedAnchorLineIsDetected) {
  std::vector<std::string> lines = Lines(anchor_.path());
  lines.insert(lines.begin() + 2, lines[2]);
  WriteLines(anchor_.path(), lines);
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kAnchorSequence) << r.reason;
  EXPECT_EQ(r.seq, 3);
}

TEST_F(LedgerVerify, ReorderedLinesAreDetected) {
  std::vector<std::string> lines = Lines(Segment());
  std::swap(lines[2], lines[3]);
  WriteLines(Segment(), lines);
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kLedgerSequence) << r.reason;
  EXPECT_EQ(r.seq, 4);
}

TEST_F(LedgerVerify, ReorderedAnchorLinesAreDetected) {
  std::vector<std::string> lines = Lines(anchor_.path());
  std::swap(lines[2], lines[3]);
  WriteLines(anchor_.path(), lines);
  EXPECT_EQ(Check().failure, Failure::kAnchorSequence);
}

TEST_F(LedgerVerify, AnchorBehindTheLedgerNamesTheMissingSeqs) {
  Grow(&store_, nullptr, 2);  // durable in the ledger, never anchored
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kAnchorBehind) << r.reason;
  EXPECT_EQ(r.missing_from, 6);
  EXPECT_EQ(r.missing_to, 7);
  EXPECT_NE(r.reason.find("6..7"), std::string::npos);
  EXPECT_FALSE(Head().ok());
}

TEST_F(LedgerVerify, MissingAnchorFileFailsClosed) {
  std::filesystem::remove(anchor_.path());
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kAnchorMissing) << r.reason;
  EXPECT_FALSE(Head().ok());
}

TEST_F(LedgerVerify, MissingAnchorMountFailsClosed) {
  std::filesystem::remove_all(dir_.base() + "/anchor");
  EXPECT_EQ(Check().failure, Failure::kAnchorMissing);
}

TEST_F(LedgerVerify, UnreadableMiddleLineNamesTheSeq) {
  std::vector<std::string> lines = Lines(Segment());
  lines[2] = "{\"not\":\"an entry\"}";
  WriteLines(Segment(), lines);
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kBadEntry) << r.reason;
  EXPECT_EQ(r.seq, 3);
}

TEST_F(LedgerVerify, TornTailCutIsAnchoredLikeAnyEntry) {
  AppendText(Segment(), "{\"bo");
  LedgerStore fresh(RealEnv(), dir_.spool(), "live");
  ASSERT_TRUE(fresh.Open().ok());
  EXPECT_EQ(fresh.head_seq(), 6);
  // The cut entry is new to the anchor until hangard anchors it.
  Result<VerifyReport> before = Verify(fresh, anchor_);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->failure, Failure::kAnchorBehind);
  ASSERT_TRUE(anchor_.Append(fresh.epoch(), fresh.head_seq(), fresh.head_hash()).ok());
  EXPECT_TRUE(Check().ok);
}

TEST_F(LedgerVerify, AnchorFaultsCountOnlyInTheEpochChecked) {
  // A duplicate in epoch 1, then a line of epoch 2 (which becomes the epoch checked), then a line
  // of epoch 1 again: the duplicate is not reported, the epoch going down is.
  const std::string h = entries_[4].hash;
  AppendText(anchor_.path(), AnchorLineText("live", 1, 5, h) + AnchorLineText("live", 2, 1, h) +
                                 AnchorLineText("live", 1, 6, h));
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kAnchorSequence) << r.reason;
  EXPECT_EQ(r.reason, "anchor line 8: epoch 1 after epoch 2");
  EXPECT_EQ(r.seq, 6);
  EXPECT_EQ(r.epoch, 2);
}

TEST_F(LedgerVerify, AnchorOfAnotherLedgerRefused) {
  Anchor other = Anchor::Bind(RealEnv(), dir_.anchor_path("replay"), "replay").value();
  EXPECT_EQ(Verify(store_, other).status().code(), Code::kInvalid);
  EXPECT_EQ(CheckHead(store_, other).code(), Code::kInvalid);
}

TEST(LedgerVerifyEmpty, NewLedgerWithoutAnchorIsOk) {
  Scratch dir;
  LedgerStore store(RealEnv(), dir.spool(), "live");
  ASSERT_TRUE(store.Open().ok());
  Anchor a = Anchor::Bind(RealEnv(), dir.anchor_path(), "live").value();
  Result<VerifyReport> r = Verify(store, a);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ok);
  EXPECT_TRUE(CheckHead(store, a).ok());
}

// A ledger large enough that Verify reads it in blocks split among threads, grown the way the
// daemon does group commit: AppendBatch, then Anchor::AppendBatch of the same entries.
class LedgerVerifyLarge : public ::testing::Test {
 protected:
  static constexpr int kEntries = 4000;
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    for (int done = 0; done < kEntries; done += 250) {
      std::vector<Draft> drafts;
      for (int i = 0; i < 250; i++)
        drafts.push_back({"test.step", json::Object{{"n", done + i}}, testing::kT0 + done + i});
      Result<std::vector<Entry>> es = store_.AppendBatch(drafts);
      ASSERT_TRUE(es.ok());
      std::vector<AnchorMark> marks;
      for (const Entry& e : *es) marks.push_back({e.epoch, e.seq, e.hash});
      ASSERT_TRUE(anchor_.AppendBatch(marks).ok());
    }
  }
  std::string Segment() const { return store_.dir() + "/000000000001.jsonl"; }
  VerifyReport Check() {
    LedgerStore fresh(RealEnv(), dir_.spool(), "live");
    EXPECT_TRUE(fresh.Open().ok());
    Result<VerifyReport> r = Verify(fresh, anchor_);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r.value() : VerifyReport{};
  }
  Scratch dir_;
  LedgerStore store_{RealEnv(), dir_.spool(), "live"};
  Anchor anchor_ = Anchor::Bind(RealEnv(), dir_.anchor_path(), "live").value();
};

TEST_F(LedgerVerifyLarge, GroupCommittedLedgerIsOk) {
  VerifyReport r = Check();
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.checked, kEntries);
  EXPECT_EQ(r.anchor_own, kEntries);
  EXPECT_EQ(r.head_seq, kEntries);
}

TEST_F(LedgerVerifyLarge, EditLateInTheLedgerIsFoundAtItsSeq) {
  std::vector<std::string> lines = Lines(Segment());
  lines[3499].replace(lines[3499].find("\"n\":3499"), 8, "\"n\":3498");
  WriteLines(Segment(), lines);
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kHashMismatch) << r.reason;
  EXPECT_EQ(r.seq, 3500);
  EXPECT_EQ(r.checked, 3499);
}

TEST_F(LedgerVerifyLarge, ForgedAnchorHashIsFoundAtItsSeq) {
  std::vector<std::string> lines = Lines(anchor_.path());
  lines[2999] = AnchorLineText("live", 1, 3000, std::string(64, 'f'));
  lines[2999].pop_back();
  WriteLines(anchor_.path(), lines);
  VerifyReport r = Check();
  EXPECT_EQ(r.failure, Failure::kAnchorMismatch) << r.reason;
  EXPECT_EQ(r.seq, 3000);
}

}  // namespace
}  // namespace hangar::ledger
