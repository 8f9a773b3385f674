// LedgerKeeper against real files: the start-up rules (a short unanchored tail is caught up and
// recorded; a long one, or a missing anchor file, fails closed) and the head check before a
// protected act (a ledger rolled back or extended behind hangard's back).
#include "daemon/ledger_keeper.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ledger/checkpoint.h"
#include "ledger/ledger_testutil.h"
#include "ledger/verify.h"

namespace hangar {
namespace {

using ledger::testing::Lines;
using ledger::testing::Scratch;
using ledger::testing::WriteLines;

constexpr TimeMs kNow = 1767225600000;

std::string AnchorDir(const Scratch& s) {
  return s.base() + "/anchor";
}

// A keeper that has recorded n entries through Append, as hangard does.
void Grow(LedgerKeeper* k, int n) {
  for (int i = 0; i < n; i++) {
    std::string err;
    Record r{k->head_seq() + 1, "test.entry", json::Object{{"i", i}}, kNow + i};
    ASSERT_TRUE(k->Append(r, &err).ok());
    ASSERT_EQ(err, "");
  }
}

// The ledger verifies in full against its anchor.
void ExpectVerifies(const Scratch& s) {
  ledger::LedgerStore store(RealEnv(), s.spool(), "live");
  ASSERT_TRUE(store.OpenForReading().ok());
  auto anchor = ledger::Anchor::Bind(RealEnv(), s.anchor_path(), "live");
  auto v = ledger::Verify(store, *anchor);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->ok) << v->reason;
}

std::string Segment(const Scratch& s) {
  return s.spool() + "/ledger/live/" + ledger::SegmentName(1);
}

TEST(LedgerKeeper, AppendsAnchorsAndChecksTheHead) {
  Scratch s;
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  EXPECT_EQ(k.failure(), "");
  EXPECT_TRUE(k.anchor_same_filesystem());
  Grow(&k, 5);
  EXPECT_TRUE(k.CheckHead().ok());
  EXPECT_EQ(Lines(s.anchor_path()).size(), 5u);
  // A record numbered other than the ledger's next seq is a bug: an error, nothing written.
  std::string err;
  EXPECT_FALSE(k.Append(Record{9, "test.entry", json::Object{}, kNow}, &err).ok());
  EXPECT_EQ(k.head_seq(), 5);
  EXPECT_EQ(Lines(Segment(s)).size(), 5u);
}

TEST(LedgerKeeper, GroupCommitAppendsEveryRecordAndItsAnchorLine) {
  Scratch s;
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  Grow(&k, 2);
  std::vector<Record> rs;
  for (int i = 0; i < 5; i++)
    rs.push_back(Record{3 + i, "test.batch", json::Object{{"i", i}}, kNow});
  std::string err;
  ASSERT_TRUE(k.AppendAll(rs, &err).ok());
  EXPECT_EQ(err, "");
  EXPECT_EQ(k.head_seq(), 7);
  EXPECT_EQ(Lines(Segment(s)).size(), 7u);
  EXPECT_EQ(Lines(s.anchor_path()).size(), 7u);
  EXPECT_TRUE(k.CheckHead().ok());
  // Misnumbered: nothing is written.
  rs = {Record{8, "test.batch", json::Object{}, kNow},
        Record{10, "test.batch", json::Object{}, kNow}};
  EXPECT_FALSE(k.AppendAll(rs, &err).ok());
  EXPECT_EQ(k.head_seq(), 7);
  EXPECT_EQ(Lines(Segment(s)).size(), 7u);
}

// Group commit across decisions (daemon/daemon.h, THE BATCH): staged records are hashed at once
// (the head the next decision follows) and written by one commit, ledger then anchor.
TEST(LedgerKeeper, StagedRecordsAreWrittenByOneCommit) {
  Scratch s;
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  Grow(&k, 1);
  const std::string head = k.head_hash();
  ASSERT_TRUE(k.Stage({Record{2, "test.a", json::Object{}, kNow}}).ok());
  EXPECT_EQ(k.staged_seq(), 2);
  EXPECT_NE(k.staged_hash(), head);
  ASSERT_TRUE(k.Stage({Record{3, "test.b", json::Object{}, kNow},
                       Record{4, "test.c", json::Object{}, kNow}})
                  .ok());
  EXPECT_EQ(k.head_seq(), 1);
  EXPECT_EQ(Lines(Segment(s)).size(), 1u) << "staging wrote";
  EXPECT_TRUE(k.CheckHead().ok()) << "the disk's head is the committed one";
  // Nothing is appended alone past a waiting batch, and no reanchor waits in one.
  std::string err;
  EXPECT_FALSE(k.Append(Record{5, "test.d", json::Object{}, kNow}, &err).ok());
  Record epoch{5, "ledger.reanchored", json::Object{}, kNow};
  epoch.new_epoch = true;
  EXPECT_FALSE(k.Stage({epoch}).ok());
  const std::string staged = k.staged_hash();
  ASSERT_TRUE(k.Commit(&err).ok());
  EXPECT_EQ(err, "");
  EXPECT_EQ(k.head_seq(), 4);
  EXPECT_EQ(k.head_hash(), staged);
  EXPECT_EQ(Lines(Segment(s)).size(), 4u);
  EXPECT_EQ(Lines(s.anchor_path()).size(), 4u);
  EXPECT_TRUE(k.CheckHead().ok());
  ExpectVerifies(s);
}

TEST(LedgerKeeper, ABodyTheLedgerCannotHoldIsRecordedAsSuchNotFatal) {
  Scratch s;
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  std::string err;
  Record bad{1, "mission.held", json::Object{{"id", "M1"}, {"reason", std::string("\xff\xfe")}},
             kNow};
  ASSERT_TRUE(k.Append(bad, &err).ok());
  EXPECT_NE(Lines(Segment(s))[0].find("\"unrecordable\""), std::string::npos);
  EXPECT_NE(Lines(Segment(s))[0].find("\"id\":\"M1\""), std::string::npos);
  EXPECT_TRUE(k.CheckHead().ok());
}

TEST(LedgerKeeper, RollbackUnderARunningKeeperFailsTheHeadCheck) {
  Scratch s;
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  Grow(&k, 4);
  std::vector<std::string> lines = Lines(Segment(s));
  lines.pop_back();
  WriteLines(Segment(s), lines);
  Status h = k.CheckHead();
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.message().find("rolled back"), std::string::npos) << h.message();
}

TEST(LedgerKeeper, ACrashBetweenLedgerAndAnchorIsCaughtUpAndRecorded) {
  Scratch s;
  {
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    Grow(&k, 6);
  }
  {
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    EXPECT_EQ(k.caught_up_from(), 0) << "nothing to catch up";
  }
  std::vector<std::string> a = Lines(s.anchor_path());
  a.pop_back();  // entry 6 reached the ledger, its anchor line did not
  WriteLines(s.anchor_path(), a);
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  EXPECT_EQ(k.failure(), "");
  EXPECT_EQ(k.head_seq(), 7);  // the ledger.caught-up entry
  EXPECT_EQ(k.caught_up_from(), 6);  // never acted on: a launch key naming it is taken back
  EXPECT_NE(Lines(Segment(s)).back().find("\"kind\":\"ledger.caught-up\""), std::string::npos);
  ExpectVerifies(s);
}

// The entries a start asks for by seq (the launch keys it judges), read in one pass: those the
// ledger holds, none past its head or before its first.
TEST(LedgerKeeper, EntriesAtGivesTheEntriesOfTheSeqsItHolds) {
  Scratch s;
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  Grow(&k, 6);
  Result<std::map<int64_t, ledger::Entry>> at = k.EntriesAt({0, 2, 5, 99});
  ASSERT_TRUE(at.ok()) << at.status().message();
  ASSERT_EQ(at->size(), 2u);
  EXPECT_EQ(at->at(2).seq, 2);
  EXPECT_EQ(at->at(5).body.find("i")->as_int(), 4);
  EXPECT_TRUE(k.EntriesAt({}).value().empty());
  Result<std::optional<ledger::Entry>> one = k.EntryAt(6);
  ASSERT_TRUE(one.ok() && one->has_value());
  EXPECT_EQ((*one)->seq, 6);
  EXPECT_FALSE(k.EntryAt(7).value().has_value());
}

// The first entry of a new ledger reached the disk and the crash came before its anchor line:
// the anchor file was made (empty) when the ledger was, so this is a crash, not a lost anchor.
// Found by scripts/crash-sweep (a crash before hangard's first anchor append failed closed).
TEST(LedgerKeeper, ACrashBeforeTheFirstAnchorLineIsCaughtUp) {
  Scratch s;
  {
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    EXPECT_TRUE(std::filesystem::exists(s.anchor_path())) << "made with the empty ledger";
    EXPECT_TRUE(Lines(s.anchor_path()).empty());
    Grow(&k, 2);
  }
  WriteLines(s.anchor_path(), {});  // entries 1 and 2 (one batch) reached the ledger only
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  EXPECT_EQ(k.failure(), "");
  EXPECT_EQ(k.head_seq(), 3);
  EXPECT_NE(Lines(Segment(s)).back().find("\"from\":1"), std::string::npos)
      << Lines(Segment(s)).back();
  EXPECT_EQ(Lines(s.anchor_path()).size(), 3u);
}

// Not so when the ledger holds more than one batch: an empty anchor then vouches for nothing.
TEST(LedgerKeeper, AnEmptyAnchorUnderALongLedgerFailsClosed) {
  Scratch s;
  {
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    Grow(&k, LedgerKeeper::kMaxCatchUp + 1);
  }
  WriteLines(s.anchor_path(), {});
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  EXPECT_NE(k.failure(), "");
}

TEST(LedgerKeeper, ALongUnanchoredTailFailsClosed) {
  Scratch s;
  {
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    Grow(&k, LedgerKeeper::kMaxCatchUp + 3);
  }
  std::vector<std::string> a = Lines(s.anchor_path());
  a.resize(2);  // entries 3.. were appended by someone who could not write the anchor
  WriteLines(s.anchor_path(), a);
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  EXPECT_NE(k.failure().find("anchor-behind"), std::string::npos) << k.failure();
}

// A ledger of `vouched` entries, all anchored, then a tail appended through a keeper whose anchor
// lines are taken back: what a crash between the ledger write and its anchor line leaves, or a
// forger who can write the spool but not the anchor. Each record of tail takes the next seq.
void UnanchoredTail(const Scratch& s, int vouched, const std::vector<Record>& tail) {
  {
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    Grow(&k, vouched);
  }
  const std::vector<std::string> lines = Lines(s.anchor_path());
  {
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    for (Record r : tail) {
      r.seq = k.head_seq() + 1;
      std::string err;
      ASSERT_TRUE(k.Append(r, &err).ok());
    }
  }
  WriteLines(s.anchor_path(), lines);
}

// A forged tail hashes and links like the tail of a crash; it must not bring a grant, a person's
// decision or a new epoch with it.
TEST(LedgerKeeper, CatchUpNeverAdoptsAuthority) {
  for (const char* kind : {"grant", "revoke", "person.approved", "person.denied"}) {
    SCOPED_TRACE(kind);
    Scratch s;
    UnanchoredTail(s, 3,
                   {Record{0, "mission.accepted", json::Object{{"id", "M1"}}, kNow},
                    Record{0, kind, json::Object{{"op", "wire.funds"}}, kNow}});
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    EXPECT_NE(k.failure().find(std::string("holds a ") + kind + " entry (seq 5)"),
              std::string::npos)
        << k.failure();
    EXPECT_EQ(Lines(s.anchor_path()).size(), 3u) << "the forged tail was anchored";
  }
}

TEST(LedgerKeeper, CatchUpNeverAdoptsANewEpoch) {
  Scratch s;
  UnanchoredTail(s, 2, {Record{0, "ledger.reanchor", json::Object{{"why", "forged"}}, kNow, true}});
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  EXPECT_NE(k.failure(), "");
  EXPECT_EQ(Lines(s.anchor_path()).size(), 2u) << "the forged epoch was anchored";
}

// The tail of a crash between a ledger write and its anchor line: mission entries, adopted.
TEST(LedgerKeeper, CatchUpAdoptsATailOfMissionEntries) {
  Scratch s;
  std::vector<Record> tail;
  for (const char* kind : {"mission.accepted", "mission.launched", "op.allowed"})
    tail.push_back(Record{0, kind, json::Object{{"id", "M1"}}, kNow});
  UnanchoredTail(s, 2, tail);
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  EXPECT_EQ(k.failure(), "");
  EXPECT_EQ(Lines(s.anchor_path()).size(), 6u);  // 2 + the tail of 3 + ledger.caught-up
}

// The daemon writes a batch's signal record lines and ledger entries in one wait, then the anchor
// lines: a crash between the writes or a power loss can leave entries without their lines. Such
// entries (unanchored, so no act followed them) are cut, not adopted, from the first naming a line
// past what the record's last line accounts for; those before it are adopted as any crash's tail.
std::vector<Record> NamingLines(const std::vector<std::string>& lines) {
  std::vector<Record> r;
  for (const std::string& l : lines)
    r.push_back(Record{0, "mission.launched",
                       json::Object{{"id", "M1"}, {"signal_record", std::string(64, l[0])}}, kNow});
  return r;
}

// What a record's last line says when its decision followed ledger seq SEQ (as the ledger holds
// it) and made RECORDS entries.
ledger::LinesCover Cover(const Scratch& s, int64_t seq, int64_t records) {
  std::string hash(ledger::kGenesisPrev);
  if (seq > 0) hash = json::Parse(Lines(Segment(s)).at(size_t(seq - 1)))->find("hash")->as_string();
  return ledger::LinesCover{seq, hash, records};
}

int CutsIn(const std::vector<std::string>& lines) {
  int n = 0;
  for (const std::string& l : lines) n += l.find("\"kind\":\"ledger.cut\"") != std::string::npos;
  return n;
}

TEST(LedgerKeeper, EntriesWhoseSignalLinesWereLostAreCutNotAdopted) {
  Scratch s;
  UnanchoredTail(s, 3, NamingLines({"a", "b", "b"}));  // seqs 4, 5, 6
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  // The record's last line followed seq 3 and made one entry: it accounts for seq 4, not 5 and 6.
  ASSERT_TRUE(k.Start(kNow, Cover(s, 3, 1)).ok());
  EXPECT_EQ(k.failure(), "");
  EXPECT_NE(k.said().find("cut unanchored seqs 5..6"), std::string::npos) << k.said();
  std::vector<std::string> lines = Lines(Segment(s));
  ASSERT_EQ(lines.size(), 6u) << "3 vouched, seq 4 kept, ledger.cut, ledger.caught-up";
  EXPECT_NE(lines[3].find("\"seq\":4"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("\"kind\":\"ledger.cut\""), std::string::npos) << lines[4];
  EXPECT_NE(lines[4].find("\"after_seq\":4"), std::string::npos) << lines[4];
  EXPECT_NE(lines[5].find("\"kind\":\"ledger.caught-up\""), std::string::npos) << lines[5];
  EXPECT_NE(lines[5].find("\"from\":4,\"reason\""), std::string::npos) << lines[5];
  EXPECT_EQ(Lines(s.anchor_path()).size(), 6u);
  EXPECT_FALSE(std::filesystem::exists(s.spool() + "/ledger/live/cut-pending.json"));
  ExpectVerifies(s);
}

TEST(LedgerKeeper, ATailWhoseLinesAreAllThereIsAdopted) {
  // The last line made seqs 5 and 6, or only logged after 6; or the record is not this ledger's
  // (the head its last line names is not on it), and so says nothing of it.
  for (int c = 0; c < 3; ++c) {
    SCOPED_TRACE(c);
    Scratch s;
    UnanchoredTail(s, 3, NamingLines({"a", "b", "b"}));
    ledger::LinesCover cover = c == 0 ? Cover(s, 4, 2) : c == 1 ? Cover(s, 6, 0) : Cover(s, 3, 1);
    if (c == 2) cover.hash = std::string(64, 'f');
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow, cover).ok());
    EXPECT_EQ(k.failure(), "");
    EXPECT_EQ(k.said(), "");
    EXPECT_EQ(k.head_seq(), 7) << "3 vouched, the tail of 3, ledger.caught-up";
    EXPECT_EQ(CutsIn(Lines(Segment(s))), 0);
  }
}

// Entries that name no line (written with the record off, or outside a decision) are no
// record's loss: adopted whatever the record holds, an empty one too.
TEST(LedgerKeeper, ATailThatNamesNoLineIsAdoptedWhateverTheRecordHolds) {
  Scratch s;
  UnanchoredTail(s, 2, {Record{0, "mission.accepted", json::Object{{"id", "M1"}}, kNow}});
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow, Cover(s, 0, 0)).ok());
  EXPECT_EQ(k.failure(), "");
  EXPECT_EQ(k.head_seq(), 4);
}

// A grant whose line was lost is cut with the rest: its act (the op through the window) waited
// for an anchor line that was never written, and the kernel decides the request again. Without
// the cut, the start would fail closed on it (catch-up never adopts authority); the cut is said.
TEST(LedgerKeeper, AGrantWhoseLineWasLostIsCutNotAdopted) {
  Scratch s;
  std::vector<Record> tail = NamingLines({"a"});
  tail.push_back(Record{0, "grant",
                        json::Object{{"op", "wire.funds"}, {"signal_record", std::string(64, 'c')}},
                        kNow});
  UnanchoredTail(s, 2, tail);  // seqs 3, 4
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow, Cover(s, 2, 1)).ok());
  EXPECT_EQ(k.failure(), "");
  EXPECT_NE(k.said().find("a grant entry (seq 4), not adopted"), std::string::npos) << k.said();
  for (const std::string& l : Lines(Segment(s)))
    EXPECT_EQ(l.find("wire.funds"), std::string::npos) << "the unvouched grant stayed: " << l;
  ExpectVerifies(s);
}

// A torn ledger tail and lost lines at once (a power loss in the middle of the write): the torn
// bytes' cut, recorded at open, is among the entries the lines' cut takes; its record goes on in
// the new cut's body.
TEST(LedgerKeeper, ATornTailsCutTakenByTheLinesCutIsCarriedOn) {
  Scratch s;
  UnanchoredTail(s, 3, NamingLines({"a", "b"}));                // seqs 4, 5
  ledger::testing::AppendText(Segment(s), "{\"body\":{\"n\"");  // and a torn sixth
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow, Cover(s, 3, 1)).ok());
  EXPECT_EQ(k.failure(), "");
  std::vector<std::string> lines = Lines(Segment(s));
  ASSERT_EQ(lines.size(), 6u) << "3 vouched, seq 4, ledger.cut, ledger.caught-up";
  EXPECT_EQ(CutsIn(lines), 1);
  EXPECT_NE(lines[4].find("\"cuts\":[{\"after_seq\":5,\"bytes\":12,"), std::string::npos)
      << lines[4];
  ExpectVerifies(s);
}

// A cut the crash stopped before its truncation (cut-pending.json written, every entry still
// there): the next start records nothing for that note.
TEST(LedgerKeeper, ACutStoppedBeforeItsTruncationRecordsNothing) {
  Scratch s;
  UnanchoredTail(s, 3, NamingLines({"a", "b"}));  // seqs 4, 5
  ledger::testing::WriteText(s.spool() + "/ledger/live/cut-pending.json",
                             "{\"after_seq\":3,\"bytes\":1,\"reason\":\"x\",\"segment\":"
                             "\"000000000001.jsonl\",\"sha256\":\"" +
                                 std::string(64, 'b') + "\"}");
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow, Cover(s, 4, 1)).ok());  // the lines are there now
  EXPECT_EQ(k.failure(), "");
  std::vector<std::string> lines = Lines(Segment(s));
  EXPECT_EQ(CutsIn(lines), 0);
  EXPECT_EQ(lines.size(), 6u) << "3 vouched, 4, 5, ledger.caught-up";
  EXPECT_FALSE(std::filesystem::exists(s.spool() + "/ledger/live/cut-pending.json"));
  ExpectVerifies(s);
}

TEST(LedgerKeeper, AMissingAnchorFileIsNeverRecreatedAtStart) {
  Scratch s;
  {
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    Grow(&k, 2);
  }
  std::filesystem::remove(s.anchor_path());  // the anchor mount is not mounted
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  EXPECT_NE(k.failure().find("anchor-missing"), std::string::npos) << k.failure();
  EXPECT_FALSE(std::filesystem::exists(s.anchor_path()));
}

// The first checkpoint comes with the first entry, never for the empty ledger: a return
// delivered with the checkpoint of the moment must be covered by it (tests/blackbox/
// ledger_records_decisions.sh saw a size-0 checkpoint when the loop ticked before the first drop).
TEST(LedgerKeeper, TheFirstCheckpointCoversTheFirstEntry) {
  Scratch s;
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  ASSERT_TRUE(k.StartCheckpoints(AnchorDir(s) + "/live.key", 100, 300, "test").ok());
  const std::string file = AnchorDir(s) + "/" + ledger::CheckpointFileName("live");
  std::string error;
  k.MaybeCheckpoint(kNow, true, &error);
  EXPECT_EQ(error, "");
  EXPECT_FALSE(std::filesystem::exists(file)) << "a checkpoint of the empty ledger";
  Grow(&k, 1);
  k.MaybeCheckpoint(kNow + 1, true, &error);
  EXPECT_EQ(error, "");
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_NE(Lines(file).at(0).find("\"size\":1,"), std::string::npos) << Lines(file).at(0);
}

// One anchor serves one spool: a copy of it (another home) started on the anchor fails closed
// and writes no anchor line; the same spool reached through a symbolic link is no other home.
TEST(LedgerKeeper, ACheckpointOfAnotherHomeFailsClosed) {
  Scratch s;
  const std::string key = AnchorDir(s) + "/live.key", home = "h:" + s.spool();
  {
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    ASSERT_TRUE(k.StartCheckpoints(key, 1, 300, home).ok());
    Grow(&k, 1);
    std::string error;
    k.MaybeCheckpoint(kNow + 1, true, &error);
    ASSERT_EQ(error, "");
  }
  std::filesystem::create_directory_symlink(s.spool(), s.base() + "/link");
  {
    LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
    ASSERT_TRUE(k.Start(kNow).ok());
    ASSERT_TRUE(k.StartCheckpoints(key, 1, 300, "h:" + s.base() + "/link").ok());
    EXPECT_EQ(k.failure(), "");
  }
  LedgerKeeper k(RealEnv(), s.spool(), AnchorDir(s), "live");
  ASSERT_TRUE(k.Start(kNow).ok());
  ASSERT_TRUE(k.StartCheckpoints(key, 1, 300, "h:/srv/copy").ok());
  EXPECT_NE(k.failure().find("vouches for the ledger kept at " + home), std::string::npos)
      << k.failure();
  Grow(&k, 1);
  EXPECT_EQ(Lines(s.anchor_path()).size(), 1u) << "the copy wrote on the original's anchor";
  // Nor does a batch (the daemon's group commit) write there.
  std::vector<Record> rs;
  for (int i = 0; i < 3; i++)
    rs.push_back(Record{k.head_seq() + 1 + i, "test.batch", json::Object{{"i", i}}, kNow});
  std::string err;
  ASSERT_TRUE(k.AppendAll(rs, &err).ok());
  EXPECT_EQ(Lines(s.anchor_path()).size(), 1u) << "a batch wrote on the original's anchor";
}

TEST(LedgerKeeper, NoAnchorDirectoryIsAnError) {
  Scratch s;
  LedgerKeeper k(RealEnv(), s.spool(), s.base() + "/no-such-mount", "live");
  EXPECT_FALSE(k.Start(kNow).ok());
}

}  // namespace
}  // namespace hangar
