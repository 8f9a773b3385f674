#include "ledger/entry.h"

#include "base/sha256.h"
#include "gtest/gtest.h"

namespace hangar::ledger {
namespace {

Entry First() {
  Entry e{1,
          1,
          "2026-01-01T00:00:00.001Z",
          "test.step",
          json::Object{{"n", 1}},
          std::string(kGenesisPrev),
          ""};
  e.hash = EntryHash(e).value();
  return e;
}

TEST(LedgerEntry, HashIsSha256OfPrevThenCanonicalJsonWithoutHash) {
  Entry e = First();
  std::string text = HashedText(e);
  EXPECT_EQ(text, "{\"body\":{\"n\":1},\"epoch\":1,\"kind\":\"test.step\",\"prev\":\"" +
                      std::string(kGenesisPrev) +
                      "\",\"seq\":1,\"time\":\"2026-01-01T00:00:00.001Z\"}");
  EXPECT_EQ(e.hash, Sha256Hex(std::string(kGenesisPrev) + text));
}

TEST(LedgerEntry, LineRoundTrips) {
  Entry e = First();
  std::string line = EntryLine(e);
  ASSERT_EQ(line.back(), '\n');
  Result<Entry> back = ParseEntryLine(line);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(EntryLine(*back), line);
  EXPECT_EQ(back->hash, e.hash);
}

TEST(LedgerEntry, NonCanonicalTextRefused) {
  std::string line = EntryLine(First());
  line.pop_back();
  std::string spaced = line;
  spaced.insert(1, " ");
  std::string escaped = line;
  escaped.replace(escaped.find("test.step"), 1, "\\u0074");
  std::string dup_key = line;
  dup_key.replace(1, 0, "\"seq\":1,");
  for (const std::string& bad : {spaced, escaped, dup_key})
    EXPECT_FALSE(ParseEntryLine(bad).ok()) << bad;
}

TEST(LedgerEntry, UnknownMissingAndMalformedFieldsRefused) {
  std::string line = EntryLine(First());
  line.pop_back();
  std::string extra = line;
  extra.insert(extra.size() - 1, ",\"zzz\":1");
  std::string upper = line;
  upper.replace(upper.find("\"hash\":\"") + 8, 1, "A");
  std::string missing = line;
  missing.erase(missing.find(",\"kind\""), std::string(",\"kind\":\"test.step\"").size());
  std::string bad_time = line;
  bad_time.replace(bad_time.find("2026-01-01T00"), 4, "26-1");
  for (const std::string& bad : {extra, upper, missing, bad_time})
    EXPECT_EQ(ParseEntryLine(bad).status().code(), Code::kInvalid) << bad;
}

TEST(LedgerEntry, FirstEntryMustLinkToGenesis) {
  Entry e = First();
  e.prev = std::string(64, 'a');
  EXPECT_FALSE(EntryHash(e).ok());
}

TEST(LedgerEntry, DoublesRefusedWhenHashingAndParsing) {
  Entry e = First();
  e.body = json::Object{{"deep", json::Array{json::Object{{"x", 1.5}}}}};
  Result<std::string> h = EntryHash(e);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("body.deep[0].x"), std::string::npos);
  std::string line = EntryLine(First());
  std::string as_double = line;
  as_double.replace(as_double.find("\"n\":1"), 5, "\"n\":1.0");
  EXPECT_FALSE(ParseEntryLine(as_double).ok());
  std::string exponent = line;
  exponent.replace(exponent.find("\"epoch\":1"), 9, "\"epoch\":1e0");
  EXPECT_FALSE(ParseEntryLine(exponent).ok());
}

TEST(LedgerEntry, SealEntryIsEntryHashAndEntryLineInOne) {
  Entry e = First();
  e.body = json::Object{{"id", "M-1"}, {"list", json::Array{1, "two", nullptr}}, {"q", "\"x\""}};
  e.hash = "stale";
  Entry want = e;
  want.hash.clear();
  want.hash = EntryHash(want).value();
  Result<std::string> line = SealEntry(&e);
  ASSERT_TRUE(line.ok()) << line.status().message();
  EXPECT_EQ(e.hash, want.hash);
  EXPECT_EQ(*line, EntryLine(want));
  e.body = json::Object{{"x", 0.5}};
  EXPECT_EQ(SealEntry(&e).status().code(), Code::kInvalid);
}

}  // namespace
}  // namespace hangar::ledger
