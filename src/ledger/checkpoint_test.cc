// Each test is a way a checkpoint or the ledger behind it can be forged, and is named after it.
// The threat: someone who can write the spool and the anchor mount (so ledger::Verify passes) but
// cannot read the kernel's key, and a requester who kept an older checkpoint.
#include "ledger/checkpoint.h"

#include <filesystem>
#include <functional>

#include "gtest/gtest.h"
#include "ledger/ledger_testutil.h"
#include "ledger/verify.h"

namespace hangar::ledger {
namespace {

using testing::Grow;
using testing::kT0;
using testing::Lines;
using testing::ReadText;
using testing::Scratch;
using testing::WriteLines;
using testing::WriteText;

constexpr const char* kOrigin = "host.example:/var/spool/hangar";

// Replaces the first occurrence of `from` in text; the test fails when there is none.
std::string Replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " not in " << text;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class Checkpoints : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.Open().ok());
    entries_ = Grow(&store_, &anchor_, 5);
    ASSERT_TRUE(key_.ok());
  }
  std::string Segment() const { return store_.dir() + "/000000000001.jsonl"; }
  std::string Make(const SigningKey& key) {
    Result<std::string> text = MakeCheckpoint(store_, kOrigin, kT0 + 60000, key);
    EXPECT_TRUE(text.ok()) << text.status().message();
    return text.ok() ? *text : "";
  }
  Checkpoint Parse(const std::string& text) {
    Result<Checkpoint> c = ParseCheckpoint(text);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? *c : Checkpoint{};
  }
  // The ledger as a restarted kernel or `hangar ledger verify` sees it.
  Status Extends(const Checkpoint& c) {
    LedgerStore fresh(RealEnv(), dir_.spool(), "live");
    Status s = fresh.Open();
    EXPECT_TRUE(s.ok()) << s.message();
    return CheckExtends(fresh, c);
  }
  VerifyReport FullVerify() {
    LedgerStore fresh(RealEnv(), dir_.spool(), "live");
    EXPECT_TRUE(fresh.Open().ok());
    Result<VerifyReport> r = Verify(fresh, anchor_);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : VerifyReport{};
  }
  // A forger with write access to both files: keeps entries 1..keep, with the body of entry
  // `edit` (when not 0) changed, rehashes the chain from there and rewrites the anchor to match.
  void Rewrite(int64_t keep, int64_t edit) {
    std::vector<std::string> lines = Lines(Segment());
    std::vector<std::string> out, anchor;
    std::string prev(kGenesisPrev);
    for (int64_t i = 0; i < keep; i++) {
      Entry e = ParseEntryLine(lines[size_t(i)]).value();
      if (e.seq == edit) e.body = json::Object{{"n", 999}};
      e.prev = prev;
      e.hash = EntryHash(e).value();
      prev = e.hash;
      std::string line = EntryLine(e);
      line.pop_back();
      out.push_back(line);
      std::string a = AnchorLineText("live", e.epoch, e.seq, e.hash);
      a.pop_back();
      anchor.push_back(a);
    }
    WriteLines(Segment(), out);
    WriteLines(anchor_.path(), anchor);
  }

  Scratch dir_;
  LedgerStore store_{RealEnv(), dir_.spool(), "live"};
  Anchor anchor_ = Anchor::Bind(RealEnv(), dir_.anchor_path(), "live").value();
  std::vector<Entry> entries_;
  Result<SigningKey> key_ = SigningKey::Generate();
};

TEST_F(Checkpoints, GoodCheckpointVerifiesAndTheGrownLedgerExtendsIt) {
  std::string text = Make(*key_);
  ASSERT_EQ(text.back(), '\n');
  ASSERT_EQ(text.find('\n'), text.size() - 1);  // one line
  Checkpoint c = Parse(text);
  EXPECT_EQ(c.ledger, "live");
  EXPECT_EQ(c.origin, kOrigin);
  EXPECT_EQ(c.epoch, 1);
  EXPECT_EQ(c.size, 5);
  EXPECT_EQ(c.head, entries_[4].hash);
  EXPECT_EQ(c.time, kT0 + 60000);
  EXPECT_EQ(c.key, key_->public_key().Fingerprint());
  EXPECT_EQ(CheckpointText(c), text);
  EXPECT_EQ(text, Replace(SignedText(c), ",\"size\":", ",\"sig\":\"" + c.sig + "\",\"size\":") +
                      "\n");  // the signed text is the file without sig
  EXPECT_TRUE(VerifySignature(c, key_->public_key()).ok());
  EXPECT_TRUE(Extends(c).ok()) << Extends(c).message();

  Grow(&store_, &anchor_, 3);
  EXPECT_TRUE(Extends(c).ok()) << Extends(c).message();
  EXPECT_TRUE(FullVerify().ok);
}

TEST_F(Checkpoints, CheckpointOfAnEmptyLedgerIsExtendedByAnyLedger) {
  Scratch other;
  LedgerStore empty(RealEnv(), other.spool(), "live");
  ASSERT_TRUE(empty.Open().ok());
  Result<std::string> text = MakeCheckpoint(empty, kOrigin, kT0, *key_);
  ASSERT_TRUE(text.ok()) << text.status().message();
  Checkpoint c = Parse(*text);
  EXPECT_EQ(c.size, 0);
  EXPECT_EQ(c.head, kGenesisPrev);
  EXPECT_TRUE(VerifySignature(c, key_->public_key()).ok());
  EXPECT_TRUE(Extends(c).ok());
}

TEST_F(Checkpoints, ForgedSignatureOneByteFlippedIsRefused) {
  Checkpoint c = Parse(Make(*key_));
  // A middle character of the base64 carries no spare bits: the text stays canonical.
  c.sig[20] = c.sig[20] == 'A' ? 'B' : 'A';
  Checkpoint forged = Parse(CheckpointText(c));
  Status s = VerifySignature(forged, key_->public_key());
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_EQ(s.message(), "signature does not verify");
}

TEST_F(Checkpoints, ForgedBodyChangedAfterSigningIsRefused) {
  // The forger rolled the ledger back to seq 3 and wants an old checkpoint to agree.
  Checkpoint c = Parse(Make(*key_));
  c.size = 3;
  c.head = entries_[2].hash;
  Checkpoint forged = Parse(CheckpointText(c));
  EXPECT_EQ(VerifySignature(forged, key_->public_key()).message(), "signature does not verify");
  // Every signed member counts, the origin and time as much as the head.
  for (auto change : std::vector<std::function<void(Checkpoint*)>>{
           [](Checkpoint* x) { x->origin += "x"; }, [](Checkpoint* x) { x->time += 1; },
           [](Checkpoint* x) { x->epoch += 1; }, [](Checkpoint* x) { x->ledger = "other"; }}) {
    Checkpoint y = Parse(Make(*key_));
    change(&y);
    EXPECT_EQ(VerifySignature(y, key_->public_key()).message(), "signature does not verify");
  }
}

TEST_F(Checkpoints, SignedByAnotherKeyIsRefused) {
  Result<SigningKey> other = SigningKey::Generate();
  ASSERT_TRUE(other.ok());
  Checkpoint c = Parse(Make(*other));
  Status s = VerifySignature(c, key_->public_key());
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("signed by key " + other->public_key().Fingerprint()),
            std::string::npos)
      << s.message();
  // Claiming the right key does not help: the signature is still the other key's.
  c.key = key_->public_key().Fingerprint();
  EXPECT_EQ(VerifySignature(c, key_->public_key()).message(), "signature does not verify");
}

TEST_F(Checkpoints, LedgerRolledBackBelowItsSizeIsRefused) {
  Checkpoint c = Parse(Make(*key_));
  Rewrite(3, 0);  // ledger and anchor both cut back to seq 3: the anchor cannot tell
  EXPECT_TRUE(FullVerify().ok);
  Status s = Extends(c);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("no longer has seq 5: rolled back"), std::string::npos) << s.message();
}

TEST_F(Checkpoints, LedgerRewrittenAtOrBeforeItsSeqIsRefused) {
  Checkpoint c = Parse(Make(*key_));
  Rewrite(5, 3);  // entry 3 edited, 3..5 rehashed, anchor rewritten: verifies on its own
  EXPECT_TRUE(FullVerify().ok);
  Status s = Extends(c);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("entry 5 hash differs from the checkpoint's"), std::string::npos)
      << s.message();
}

TEST_F(Checkpoints, LedgerRolledBackThenRegrownPastItsSizeIsRefused) {
  Checkpoint c = Parse(Make(*key_));
  Rewrite(3, 0);
  {
    LedgerStore again(RealEnv(), dir_.spool(), "live");
    ASSERT_TRUE(again.Open().ok());
    // Other entries in the place of 4 and 5: a fork, longer than what the checkpoint saw.
    for (int i = 0; i < 4; i++) ASSERT_TRUE(again.Append("test.fork", json::Object{}, kT0).ok());
  }
  Status s = Extends(c);
  EXPECT_NE(s.message().find("entry 5 hash differs from the checkpoint's"), std::string::npos)
      << s.message();
}

TEST_F(Checkpoints, EntryAtItsSeqEditedWithoutRehashIsRefused) {
  Checkpoint c = Parse(Make(*key_));
  std::vector<std::string> lines = Lines(Segment());
  lines[4] = Replace(lines[4], "{\"n\":5}", "{\"n\":6}");
  WriteLines(Segment(), lines);
  Status s = Extends(c);
  EXPECT_NE(s.message().find("entry 5 does not hash to its hash"), std::string::npos)
      << s.message();
}

TEST_F(Checkpoints, CheckpointOfAnotherEpochOrLedgerIsRefused) {
  Checkpoint c = Parse(Make(*key_));
  c.epoch = 2;  // unsigned: CheckExtends looks at the ledger only
  EXPECT_NE(Extends(c).message().find("entry 5 is in epoch 1, the checkpoint saw it in epoch 2"),
            std::string::npos)
      << Extends(c).message();
  c = Parse(Make(*key_));
  c.ledger = "replay";
  EXPECT_NE(Extends(c).message().find("the checkpoint is of ledger replay"), std::string::npos)
      << Extends(c).message();
}

TEST_F(Checkpoints, UnknownVersionIsRefused) {
  std::string text = Replace(Make(*key_), "{\"checkpoint\":1,", "{\"checkpoint\":2,");
  Result<Checkpoint> c = ParseCheckpoint(text);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kInvalid);
  EXPECT_NE(c.status().message().find("\"checkpoint\": version 2 is not known"), std::string::npos)
      << c.status().message();
}

TEST_F(Checkpoints, MalformedTextIsRefusedNamingTheField) {
  const std::string good = Make(*key_);
  ASSERT_TRUE(ParseCheckpoint(good).ok());
  Checkpoint c = Parse(good);
  struct Case {
    std::string text, expect;
  };
  std::vector<Case> cases = {
      {"", "bad checkpoint"},
      {"[]", "expected a JSON object"},
      {Replace(good, "\"checkpoint\":1", "\"checkpoint\":\"1\""), "\"checkpoint\""},
      {Replace(good, "\"checkpoint\":1", "\"checkpoint\":1.0"), "\"checkpoint\""},
      {Replace(good, "{", "{\"extra\":0,"), "unknown member \"extra\""},
      {Replace(good, ",\"origin\":\"" + c.origin + "\"", ""), "missing member \"origin\""},
      {Replace(good, "\"epoch\":1", "\"epoch\":0"), "\"epoch\""},
      {Replace(good, "\"size\":5", "\"size\":-1"), "\"size\""},
      {Replace(good, "\"size\":5", "\"size\":0"), "\"head\""},  // head must then be genesis
      {Replace(good, c.head, std::string(63, 'a')), "\"head\""},
      {Replace(good, "\"ledger\":\"live\"", "\"ledger\":\"../x\""), "\"ledger\""},
      {Replace(good, "00:01:00.000Z", "00:01:00Z"), "\"time\""},
      {Replace(good, c.key, std::string(64, 'A')), "\"key\""},
      {Replace(good, c.sig, c.sig.substr(1)), "\"sig\""},
      {Replace(good, c.sig, c.sig.substr(0, 86) + "A="), "\"sig\""},  // spare bits set
      {Replace(good, "\"origin\":\"" + c.origin, "\"origin\":\"a\\tb"), "\"origin\""},
      {Replace(good, "{", "{ "), "not in canonical form"},
  };
  for (const Case& k : cases) {
    Result<Checkpoint> r = ParseCheckpoint(k.text);
    ASSERT_FALSE(r.ok()) << k.text;
    EXPECT_EQ(r.status().code(), Code::kInvalid);
    EXPECT_NE(r.status().message().find(k.expect), std::string::npos)
        << k.text << "\n  " << r.status().message();
  }
}

TEST_F(Checkpoints, MakeRefusesABadOrigin) {
  for (std::string origin : {std::string(), std::string("a\nb"), std::string(1025, 'o')}) {
    Result<std::string> text = MakeCheckpoint(store_, origin, kT0, *key_);
    ASSERT_FALSE(text.ok()) << origin;
    EXPECT_NE(text.status().message().find("bad origin"), std::string::npos);
  }
}

TEST_F(Checkpoints, WriteKeepsTheLatestInItsOwnFileOnly) {
  const std::string anchor_dir = dir_.base() + "/anchor";
  const std::string path = anchor_dir + "/live.checkpoint";
  std::string first = Make(*key_);
  ASSERT_TRUE(WriteCheckpoint(RealEnv(), anchor_dir, "live", first).ok());
  EXPECT_EQ(ReadText(path), first);
  Grow(&store_, &anchor_, 2);
  std::string second = Make(*key_);
  ASSERT_TRUE(WriteCheckpoint(RealEnv(), anchor_dir, "live", second).ok());
  EXPECT_EQ(ReadText(path), second);
  Result<Checkpoint> read = ReadCheckpoint(RealEnv(), path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->size, 7);

  // A checkpoint of ledger live never lands in replay.checkpoint, nor a malformed one anywhere.
  Status s = WriteCheckpoint(RealEnv(), anchor_dir, "replay", second);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_FALSE(std::filesystem::exists(anchor_dir + "/replay.checkpoint"));
  EXPECT_FALSE(WriteCheckpoint(RealEnv(), anchor_dir, "live", "{}").ok());
  EXPECT_EQ(ReadText(path), second);

  WriteText(path, Replace(second, "\"checkpoint\":1", "\"checkpoint\":7"));
  Result<Checkpoint> bad = ReadCheckpoint(RealEnv(), path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(path), std::string::npos) << bad.status().message();
  EXPECT_EQ(ReadCheckpoint(RealEnv(), anchor_dir + "/none.checkpoint").status().code(),
            Code::kNotFound);
}

// The example of man/hangar-ledger.5 (CHECKPOINTS), where openssl checks the same bytes: if the
// format drifts, the page is wrong and this fails.
TEST(CheckpointManPage, ExampleVerifiesWithItsPublicKey) {
  const std::string text =
      "{\"checkpoint\":1,\"epoch\":1,\"head\":"
      "\"ca51a11c7f58c3d6f37933551799f7d56166d494822617824af5553e4da69902\",\"key\":"
      "\"3c80e8d34095ec3a13e65ada2d694083e815ce713753fc810646bd2b1a723a8f\",\"ledger\":\"live\","
      "\"origin\":\"host.example:/var/spool/hangar\",\"sig\":\"sGiJE/"
      "+kyBQPKUnPyg/k19WM90FGxMCb0RVgZWw67qATV+8BZbPrB8n5iI2pshXz+L0vVgu/nfpnJk30IuZuDQ==\","
      "\"size\":3,\"time\":\"2026-01-01T00:01:00.000Z\"}\n";
  const std::string pem =
      "-----BEGIN PUBLIC KEY-----\n"
      "MCowBQYDK2VwAyEAc+fQy1Z8QnieHmzHjiiN9rBx2js+XLwNxUT1Z/4ka3A=\n"
      "-----END PUBLIC KEY-----\n";
  Result<Checkpoint> c = ParseCheckpoint(text);
  ASSERT_TRUE(c.ok()) << c.status().message();
  Result<PublicKey> key = PublicKey::FromPem(pem, "checkpoint.key.pub");
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(key->Fingerprint(), c->key);
  EXPECT_TRUE(VerifySignature(*c, *key).ok());
  c->size = 2;
  EXPECT_EQ(VerifySignature(*c, *key).message(), "signature does not verify");
}

}  // namespace
}  // namespace hangar::ledger
