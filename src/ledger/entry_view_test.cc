// The fast reader must accept exactly what the strict reader of entry.h accepts. The oracle here is
// that contract written out plainly (json::Parse, the seven members, json::Write of the object
// compared byte for byte), and the lines are valid ones and thousands of one-byte mutations.
#include "ledger/entry_view.h"

#include <string>
#include <vector>

#include "base/json.h"
#include "base/sha256.h"
#include "gtest/gtest.h"
#include "ledger/entry.h"

namespace hangar::ledger {
namespace {

// entry.h's contract, spelled out independently of the readers under test.
bool Oracle(std::string_view line) {
  Result<json::Value> v = json::Parse(line);
  if (!v.ok() || !v->is_object() || v->as_object().size() != 7) return false;
  const json::Object& o = v->as_object();
  for (const char* k : {"body", "epoch", "hash", "kind", "prev", "seq", "time"})
    if (!o.count(k)) return false;
  if (!o.at("seq").is_int() || !o.at("epoch").is_int()) return false;
  for (const char* k : {"hash", "kind", "prev", "time"})
    if (!o.at(k).is_string()) return false;
  Entry e{o.at("seq").as_int(),     o.at("epoch").as_int(), o.at("time").as_string(),
          o.at("kind").as_string(), o.at("body"),           o.at("prev").as_string(),
          o.at("hash").as_string()};
  if (!IsHexHash(e.hash) || !CheckEntryFields(e).ok()) return false;
  return json::Write(*v) == line;
}

Entry Make(int64_t seq, json::Value body, std::string kind = "test.step") {
  Entry e{seq,
          1,
          "2026-01-01T00:00:00.001Z",
          std::move(kind),
          std::move(body),
          seq == 1 ? std::string(kGenesisPrev) : std::string(64, 'b'),
          ""};
  e.hash = EntryHash(e).value();
  return e;
}

std::string Line(const Entry& e) {
  std::string l = EntryLine(e);
  l.pop_back();
  return l;
}

std::vector<Entry> Samples() {
  json::Object odd{{"", 0},
                   {"\x01key", "tab\there \"quoted\" back\\slash \x1f nul-free"},
                   {"a", json::Array{}},
                   {"b", json::Object{}},
                   {"big", int64_t(9223372036854775807)},
                   {"flags", json::Array{true, false, nullptr}},
                   {"min", int64_t(-9223372036854775807 - 1)},
                   {"neg", -42},
                   {"utf8", "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x9a\x80"},
                   {"zero", 0},
                   {"\x7f", "del \x7f"}};
  return {Make(1, json::Object{{"n", 1}}),
          Make(7,
               json::Object{{"id", "M-1"},
                            {"outcome", "done"},
                            {"sha256", Sha256Hex("x")},
                            {"nested", json::Array{json::Object{{"k", json::Array{1, 2}}}}}},
               "mission.returned"),
          Make(12, json::Value(odd), "a-b_c.d9")};
}

TEST(LedgerEntryView, AcceptsValidLinesWithTheirFields) {
  for (const Entry& e : Samples()) {
    std::string line = Line(e);
    ASSERT_TRUE(Oracle(line)) << line;
    EntryView v;
    ASSERT_TRUE(ScanEntryLine(line, &v)) << line;
    const std::string with_newline = line + "\n";
    ASSERT_TRUE(ParseEntryView(with_newline, &v).ok());  // the views point into with_newline
    EXPECT_EQ(v.seq, e.seq);
    EXPECT_EQ(v.epoch, e.epoch);
    EXPECT_EQ(v.time, e.time);
    EXPECT_EQ(v.kind, e.kind);
    EXPECT_EQ(v.prev, e.prev);
    EXPECT_EQ(v.hash, e.hash);
    EXPECT_EQ(v.line, line);
    EXPECT_EQ(v.line.data(), with_newline.data());
    EXPECT_EQ(v.body, json::Write(e.body));
    EXPECT_EQ(v.line.substr(v.hash_member, kHashMemberBytes), ",\"hash\":\"" + e.hash + "\"");
    EntryHasher h;
    char hex[64];
    h.Hash(v, hex);
    EXPECT_EQ(std::string(hex, 64), e.hash);
    EXPECT_TRUE(h.Matches(v));
    Result<Entry> back = ParseEntryLine(line);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(EntryLine(*back), line + "\n");
  }
}

// Every one-byte deletion, replacement and insertion of the samples: the scan, the view and the
// entry reader all agree with the oracle, and refusals carry ParseEntryLine's reason.
TEST(LedgerEntryView, AgreesWithTheContractOnMutatedLines) {
  const std::string kBytes = std::string(" \"\\0159-.eEaAfnrtuxb{}[],:") + '\x01' + '\x1f' +
                             '\x7f' + '\xc3' + '\xff' + std::string(1, '\0');
  int accepted = 0, refused = 0, declined = 0;
  for (const Entry& e : Samples()) {
    const std::string line = Line(e);
    std::vector<std::string> variants;
    for (size_t i = 0; i <= line.size(); i++) {
      if (i < line.size()) variants.push_back(line.substr(0, i) + line.substr(i + 1));
      for (char c : kBytes) {
        if (i < line.size()) {
          std::string r = line;
          r[i] = c;
          variants.push_back(r);
        }
        variants.push_back(line.substr(0, i) + c + line.substr(i));
      }
    }
    for (const std::string& m : variants) {
      bool want = Oracle(m);
      EntryView v;
      // The scan never accepts what the contract refuses; it may decline what it accepts (a
      // negative year, which the strict reader takes), then the views come from the reference.
      bool scanned = ScanEntryLine(m, &v);
      if (scanned) {
        ASSERT_TRUE(want) << m;
      }
      if (want && !scanned) declined++;
      Status got = ParseEntryView(m, &v);
      ASSERT_EQ(got.ok(), want) << m;
      Result<Entry> entry = ParseEntryLine(m);
      ASSERT_EQ(entry.ok(), want) << m;
      if (!want) {
        EXPECT_EQ(got.message(), entry.status().message());
        EXPECT_EQ(got.code(), Code::kInvalid);
        refused++;
      } else {
        EXPECT_EQ(EntryLine(*entry), m + "\n");
        accepted++;
      }
    }
  }
  EXPECT_GT(accepted, 50);  // e.g. a changed hex digit or body letter is still a valid line
  EXPECT_GT(refused, 10000);
  EXPECT_EQ(declined, 0);
}

TEST(LedgerEntryView, DeepBodyIsLeftToTheReferenceReaderAndStillViewed) {
  json::Value body = json::Object{{"leaf", 1}};
  for (int i = 0; i < 100; i++) body = json::Object{{"d", json::Array{body}}};
  Entry e = Make(3, body);
  std::string line = Line(e);
  EntryView v;
  EXPECT_FALSE(ScanEntryLine(line, &v));  // beyond the fast reader's depth
  ASSERT_TRUE(ParseEntryLine(line).ok());
  ASSERT_TRUE(ParseEntryView(line, &v).ok());
  EXPECT_EQ(v.seq, 3);
  EXPECT_EQ(v.hash, e.hash);
  EXPECT_EQ(v.prev, e.prev);
  EXPECT_EQ(v.kind, e.kind);
  EXPECT_EQ(v.time, e.time);
  EXPECT_EQ(v.body, json::Write(body));
  EXPECT_TRUE(EntryHasher().Matches(v));
}

TEST(LedgerEntryView, EditedLineDoesNotMatchItsHash) {
  Entry e = Make(7, json::Object{{"n", 1}});
  std::string line = Line(e);
  line.replace(line.find("\"n\":1"), 5, "\"n\":2");
  EntryView v;
  ASSERT_TRUE(ParseEntryView(line, &v).ok());
  EXPECT_FALSE(EntryHasher().Matches(v));
}

TEST(LedgerEntryView, RefusalsGiveTheStrictReadersReason) {
  std::string line = Line(Make(1, json::Object{{"x", 1}}));
  std::string as_double = line;
  as_double.replace(as_double.find("\"x\":1"), 5, "\"x\":1.5");
  EntryView v;
  for (const std::string& bad : {as_double, line + " ", std::string("{}"), std::string()}) {
    Status s = ParseEntryView(bad, &v);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.message(), ParseEntryLine(bad).status().message());
  }
}

// Found by fuzz/ledger_entry: both readers took off the line's "\n" and then had the scan take
// off one more, so a line followed by two newlines was read as valid (ParseEntryLine of it with a
// third: refused, while ParseEntryView of it, passing it on with one taken off, accepted it).
TEST(LedgerEntryView, TwoTrailingNewlinesReadAsOneLine) {
  const std::string line = Line(Make(4, json::Object{{"x", 1}}));
  EntryView v;
  for (const std::string& bad : {line + "\n\n", line + "\n\n\n"}) {
    EXPECT_FALSE(ParseEntryLine(bad).ok()) << bad;
    EXPECT_FALSE(ParseEntryView(bad, &v).ok()) << bad;
    EXPECT_FALSE(ScanEntryLine(bad, &v)) << bad;
  }
  const std::string one = line + "\n";
  EXPECT_TRUE(ParseEntryLine(one).ok());
  ASSERT_TRUE(ParseEntryView(one, &v).ok());
  EXPECT_EQ(v.line, line);
}

}  // namespace
}  // namespace hangar::ledger
