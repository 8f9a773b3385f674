#include "base/json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/sha256.h"
#include "base/timefmt.h"

namespace hangar {
namespace {

TEST(Json, WritesCanonicalSortedCompactText) {
  json::Object o;
  o["b"] = 1;
  o["a"] = json::Array{true, nullptr, "x\n\"\x01"};
  o["c"] = 0.5;
  EXPECT_EQ(json::Write(o), R"({"a":[true,null,"x\n\"\u0001"],"b":1,"c":0.5})");
  std::string out = "before:";  // AppendWritten: the same text after what is there
  json::AppendWritten(&out, o);
  EXPECT_EQ(out, "before:" + json::Write(o));
  json::AppendWritten(&out, json::Value("s"));
  EXPECT_EQ(out, "before:" + json::Write(o) + "\"s\"");
}

// KeyBefore, the objects' key order, is std::string_view's < whatever the bytes: empty keys, a
// first byte above 0x7f, keys equal up to the shorter one.
TEST(Json, KeyBeforeIsByteOrder) {
  const std::vector<std::string> keys = {
      "", "a", "ab", "b", "B", "\xc3\xa9", "\xff", "a\xff", "aa", "\x01", std::string(1, '\0')};
  for (const std::string& a : keys)
    for (const std::string& b : keys)
      EXPECT_EQ(json::KeyBefore(a, b), std::string_view(a) < std::string_view(b))
          << "'" << a << "' '" << b << "'";
}

// json::Object keeps std::map's behaviour on a sorted vector: members in byte order of their keys
// whatever order they came in, each key once, lookups by key, and equality by members.
TEST(Json, ObjectKeepsMembersSortedByKeyAndEachKeyOnce) {
  json::Object o;
  for (const char* k : {"m", "b", "z", "a", "\xc3\xa9", "B", "ab", "m"}) o[k] = k;
  std::vector<std::string> keys;
  for (const auto& [k, v] : o) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"B", "a", "ab", "b", "m", "z", "\xc3\xa9"}));
  EXPECT_TRUE(o["q"].is_null());
  EXPECT_EQ(o.size(), 8u);
  EXPECT_EQ(o.count("q"), 1u);
  EXPECT_EQ(o.erase("q"), 1u);
  EXPECT_EQ(o.erase("q"), 0u);
  EXPECT_FALSE(o.contains("q"));
  EXPECT_EQ(o.find("q"), o.end());
  EXPECT_EQ(o.at("ab").as_string(), "ab");
  EXPECT_THROW(o.at("nope"), std::out_of_range);

  EXPECT_FALSE(o.emplace("a", 1).second);  // emplace keeps the member there
  EXPECT_EQ(o.at("a").as_string(), "a");
  o["a"] = 1;  // assignment replaces it
  EXPECT_EQ(o.at("a").as_int(), 1);
  EXPECT_EQ(o.size(), 7u);
  EXPECT_TRUE(o.emplace("c", 2).second);

  json::Object first{{"k", 1}, {"j", 2}, {"k", 3}};  // as std::map's: the first of a key kept
  EXPECT_EQ(json::Write(first), R"({"j":2,"k":1})");
  json::Object other;
  other["k"] = 1;
  other["j"] = 2;
  EXPECT_EQ(first, other);
  other["j"] = 3;
  EXPECT_FALSE(first == other);
  for (auto it = o.begin(); it != o.end();) it = it->first < "b" ? o.erase(it) : std::next(it);
  EXPECT_EQ(json::Write(o), R"({"b":"b","c":2,"m":"m","z":"z",)"
                            "\"\xc3\xa9\":\"\xc3\xa9\"}");
}

// A parsed object's members come in the document's order, which a sender chooses: 100,000 keys
// in reverse order are sorted once (member by member into the sorted vector, this took minutes),
// and a key named twice keeps its last value, as simdjson's find and StringMembers read it.
TEST(Json, ParsedObjectsOfAnyOrderAreSortedOnceAndTheLastOfAKeyCounts) {
  std::string text = "{";
  for (int i = 100000; i > 0; i--)
    text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += R"("k7":"again","a":[{"z":1,"y":2,"z":3}]})";
  Result<json::Value> v = json::Parse(text);
  ASSERT_TRUE(v.ok()) << v.status().message();
  const json::Object& o = v->as_object();
  ASSERT_EQ(o.size(), 100001u);
  EXPECT_EQ(o.begin()->first, "a");
  EXPECT_EQ(std::next(o.begin())->first, "k1");
  EXPECT_EQ(o.at("k7").as_string(), "again");
  EXPECT_EQ(o.at("k99999").as_int(), 99999);
  EXPECT_EQ(json::Write(o.at("a")), R"([{"y":2,"z":3}])");
  EXPECT_TRUE(std::is_sorted(o.begin(), o.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; }));
}

// ValidUtf8 skips ASCII a word at a time and hands the rest to simdjson: every verdict must be the
// same wherever in the string, and at whatever offset from a word, the first non-ASCII byte falls.
TEST(Json, ValidUtf8JudgesTheSameWhereverTheFirstNonAsciiByteFalls) {
  EXPECT_TRUE(json::ValidUtf8(""));
  struct Case {
    std::string bytes;
    bool valid;
  };
  const std::vector<Case> cases = {
      {"\xc3\xa9", true},           // é
      {"\xe2\x82\xac", true},       // €
      {"\xf0\x9f\x98\x80", true},   // an emoji, four bytes
      {"\x80", false},              // a continuation byte alone
      {"\xc3", false},              // a two-byte sequence cut short
      {"\xe2\x82", false},          // a three-byte sequence cut short
      {"\xc0\x80", false},          // an overlong NUL
      {"\xed\xa0\x80", false},      // a UTF-16 surrogate
      {"\xf4\x90\x80\x80", false},  // above U+10FFFF
      {"\xff", false},
  };
  for (size_t before : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65}) {
    for (size_t after : {0, 1, 8, 70}) {
      const std::string pre(before, 'a'), post(after, 'z');
      EXPECT_TRUE(json::ValidUtf8(pre + post)) << before << "+" << after;
      for (const Case& c : cases)
        EXPECT_EQ(json::ValidUtf8(pre + c.bytes + post), c.valid)
            << before << " ASCII bytes, then " << c.bytes.size() << " bytes, then " << after;
    }
  }
  // A valid sequence after an invalid one, and the reverse: the verdict is the whole string's.
  EXPECT_FALSE(json::ValidUtf8("abcdefgh\xc3\xa9\xff"));
  EXPECT_FALSE(json::ValidUtf8("abcdefgh\xff\xc3\xa9"));
}

// AppendQuoted skips 8 bytes at a time while none needs an escape: each byte value, at each place
// of strings that span several such words, is escaped exactly as one byte at a time would.
TEST(Json, QuotedEscapesEveryByteThatNeedsItWhereverItIs) {
  auto one_at_a_time = [](std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += char(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\b') {
        out += "\\b";
      } else if (c == '\f') {
        out += "\\f";
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += char(c);
      }
    }
    return out + "\"";
  };
  for (size_t len : {1, 7, 8, 9, 16, 17, 24}) {
    for (size_t at = 0; at < len; at++) {
      for (int b = 0; b < 256; b++) {
        std::string s(len, 'a');
        s[at] = char(b);
        std::string out;
        json::AppendQuoted(&out, s);
        ASSERT_EQ(out, one_at_a_time(s)) << "byte " << b << " at " << at << " of " << len;
      }
    }
  }
  std::string out;
  json::AppendQuoted(&out, "");
  EXPECT_EQ(out, "\"\"");
}

TEST(Json, ParseRoundTrips) {
  const std::string text = R"({"k":[1,-2,2.5,"s",{"z":false}],"u":"日本"})";
  Result<json::Value> v = json::Parse(text);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(json::Write(*v), text);
  EXPECT_FALSE(json::Parse("{").ok());
}

// Found by fuzz/json_fuzz: the input 11111111110110010911E1 is a double whose shortest text is
// all digits (fixed notation, as long as the exponent form), which Parse reads as an integer and
// refuses past 64 bits: Write wrote a document its own reader could not read.
TEST(Json, HugeDoubleWrittenAsUnreadableInteger) {
  Result<json::Value> fuzzed = json::Parse("11111111110110010911E1");
  ASSERT_TRUE(fuzzed.ok() && fuzzed->is_double());
  for (double d : {fuzzed->as_double(), -1.2345678901234567e19, 1e300, 9.3e18, -9.3e18}) {
    std::string text = json::Write(json::Array{d});
    Result<json::Value> back = json::Parse(text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status().message();
    EXPECT_EQ(back->as_array()[0].as_double(), d) << text;
  }
  EXPECT_EQ(json::Write(json::Value(7.0)), "7");  // a small whole double keeps its short text
}

// Found by fuzz/json_fuzz: -0.0 was written "-0", which reads back as the integer 0 and is then
// written "0": two canonical texts for one value, so canonical text was not a fixed point.
TEST(Json, NegativeZeroHadTwoCanonicalTexts) {
  Result<json::Value> v = json::Parse("-0.0");
  ASSERT_TRUE(v.ok());
  std::string text = json::Write(*v);
  Result<json::Value> back = json::Parse(text);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(json::Write(*back), text);
  EXPECT_EQ(text, "0");
}

TEST(Json, StringMembersAgreeWithParseAndFind) {
  auto members = [](std::string_view text) { return json::StringMembers(text, {"a", "b", "c"}); };
  auto m = members(R"({"a":"x","b":1,"z":"y","a":"last"})");
  ASSERT_TRUE(m.ok());
  // A member given twice: its last value, as Parse keeps it. Not a string, or absent: nullopt.
  EXPECT_EQ(*m, (std::vector<std::optional<std::string>>{"last", std::nullopt, std::nullopt}));
  m = members(R"({"a":"x","a":null,"c":"\u00e9\n"})");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, (std::vector<std::optional<std::string>>{std::nullopt, std::nullopt, "é\n"}));
  m = members(R"(["a","b"])");  // no object: nothing named
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, (std::vector<std::optional<std::string>>(3)));
  EXPECT_EQ(members("{").status().code(), Code::kInvalid);
  EXPECT_EQ(members("{\"a\":\"\xff\"}").status().code(), Code::kInvalid);  // not UTF-8, as Parse
  EXPECT_FALSE(json::Parse("{\"a\":\"\xff\"}").ok());
}

TEST(Sha256, KnownVector) {
  EXPECT_EQ(Sha256Hex("hello\n"),
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
}

TEST(Sha256, ResetHashesTheNextMessageFromScratch) {
  Sha256 h;
  h.Update("junk");
  h.Reset();
  h.Update("hello");
  h.Update(std::string_view("\n"));
  char hex[64];
  h.FinishHex(hex);
  EXPECT_EQ(std::string(hex, 64), Sha256Hex("hello\n"));
  h.Reset();
  h.Update("hello\n");
  EXPECT_EQ(h.FinishHex(), Sha256Hex("hello\n"));
}

// ParseTime reads back what FormatTime wrote, across centuries, leap days and the epoch.
TEST(TimeFmt, ParseTimeInvertsFormatTime) {
  for (TimeMs ms = -62135596800000; ms < 253402300799999; ms += TimeMs(86399999) * 97 + 12345) {
    std::optional<TimeMs> back = ParseTime(FormatTime(ms));
    ASSERT_TRUE(back) << FormatTime(ms);
    ASSERT_EQ(*back, ms) << FormatTime(ms);
  }
  for (TimeMs ms : {TimeMs(0), TimeMs(-1), TimeMs(951782400000), TimeMs(1732907143123)})
    EXPECT_EQ(ParseTime(FormatTime(ms)), ms) << ms;
}

// IsFormattedTime is the cheap form of "FormatTime(ParseTime(t)) == t": they must agree.
TEST(TimeFmt, IsFormattedTimeAgreesWithTheRoundTrip) {
  auto round_trips = [](const std::string& t) {
    std::optional<TimeMs> ms = ParseTime(t);
    return ms && FormatTime(*ms) == t;
  };
  std::vector<std::string> cases = {
      "2024-11-29T19:05:43.123Z", "2024-02-29T00:00:00.000Z", "2023-02-29T00:00:00.000Z",
      "2000-02-29T23:59:59.999Z", "1900-02-29T00:00:00.000Z", "2024-04-31T00:00:00.000Z",
      "2024-12-31T24:00:00.000Z", "2024-12-31T23:60:00.000Z", "2024-12-31T23:59:60.000Z",
      "2024-13-01T00:00:00.000Z", "2024-00-01T00:00:00.000Z", "2024-01-00T00:00:00.000Z",
      "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z",
      "2024-11-29T19:05:43.123",  "2024-11-29 19:05:43.123Z", "+024-11-29T19:05:43.123Z",
      " 2024-11-29T19:05:43.12Z", "2024-1-29T19:05:43.1234Z", "yesterday",
      "-026-01-01T00:00:00.000Z", "-000-01-01T00:00:00.000Z", "-004-02-29T00:00:00.000Z",
      "-001-02-29T00:00:00.000Z", "-100-02-29T00:00:00.000Z", "-400-02-29T00:00:00.000Z",
      "--26-01-01T00:00:00.000Z", "0-26-01-01T00:00:00.000Z", ""};
  // From year -999 to 9999, in steps of about three months.
  for (TimeMs ms = -93692678400000; ms < 253402300800000; ms += 7919993713) {
    cases.push_back(FormatTime(ms));
    std::string bumped = FormatTime(ms);
    bumped[9] = char('0' + (bumped[9] - '0' + 3) % 10);  // day +3 (mod 10): 31, 30, 29 Feb...
    cases.push_back(bumped);
  }
  for (const std::string& t : cases) EXPECT_EQ(IsFormattedTime(t), round_trips(t)) << t;
}

// FormatTime and CompactTime count years 0-9999 out themselves (no gmtime_r, no snprintf): they
// must write what the C library's calendar says, at the edges of each year, month and day too.
TEST(TimeFmt, FormattedFieldsAgreeWithGmtime) {
  auto reference = [](TimeMs ms, bool compact) {
    time_t secs = time_t(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    struct tm t {};
    gmtime_r(&secs, &t);
    char buf[64];
    strftime(buf, sizeof buf, compact ? "%Y%m%dT%H%M%S" : "%Y-%m-%dT%H:%M:%S", &t);
    char out[80];
    snprintf(out, sizeof out, "%s.%03dZ", buf, int(((ms % 1000) + 1000) % 1000));
    return std::string(out);
  };
  std::vector<TimeMs> cases = {0,
                               1,
                               999,
                               1000,
                               86399999,
                               86400000,
                               951782399999,
                               951782400000,
                               4107542399999,
                               253402300799999};
  for (TimeMs ms = 0; ms < 253402300800000; ms += TimeMs(3599999) * 997 + 4321) cases.push_back(ms);
  for (TimeMs ms : cases) {
    ASSERT_EQ(FormatTime(ms), reference(ms, false)) << ms;
    ASSERT_EQ(CompactTime(ms), reference(ms, true)) << ms;
  }
  EXPECT_EQ(FormatTime(253402300800000), "10000-01-01T00:00:00.000Z");  // the slow path's text
  EXPECT_EQ(FormatTime(-1), "1969-12-31T23:59:59.999Z");
}

// AppendTime writes FormatTime's text after what the string holds, on the fast path and the slow.
TEST(TimeFmt, AppendTimeAppendsFormatTimesText) {
  for (TimeMs ms : {TimeMs(0), TimeMs(1732907143123), TimeMs(253402300799999),
                    TimeMs(253402300800000), TimeMs(-1), TimeMs(-62167219200001)}) {
    std::string out = "at ";
    AppendTime(&out, ms);
    EXPECT_EQ(out, "at " + FormatTime(ms)) << ms;
  }
}

TEST(TimeFmt, FormatsAndParsesUtcMillis) {
  EXPECT_EQ(FormatTime(1732907143123), "2024-11-29T19:05:43.123Z");
  EXPECT_EQ(CompactTime(1732907143123), "20241129T190543.123Z");
  EXPECT_EQ(*ParseTime("2024-11-29T19:05:43.123Z"), 1732907143123);
  EXPECT_FALSE(ParseTime("yesterday"));
}

// Found by fuzz/timefmt: ParseRfc3339 read its fields with sscanf's %d, which also takes a sign
// or leading spaces, so malformed text such as "-000-01-01T00:00:00.000Z" (year "-000") or an
// offset "+-1:-1" was read as a time instead of refused.
TEST(TimeFmt, Rfc3339ReadSignsAndSpacesAsDigits) {
  for (const char* bad :
       {"-000-01-01T00:00:00.000Z", "+202-12-01T00:00:00Z", "2026-+1-01T00:00:00Z",
        "2026-12- 1T00:00:00Z", "2026-12-01T-1:00:00Z", "2026-12-01T00:00:00+-1:-1",
        "2026-12-01T00:00:00+ 9:00", "2026-12-01T00:00:00+09:+0"})
    EXPECT_FALSE(ParseRfc3339(bad)) << bad;
  EXPECT_EQ(ParseRfc3339("2026-12-01T09:00:00+09:00"), ParseRfc3339("2026-12-01T00:00:00Z"));
  EXPECT_EQ(*ParseRfc3339("2024-11-29T19:05:43.123Z"), 1732907143123);
  EXPECT_EQ(*ParseRfc3339("2024-11-29T20:05:43.1+01:00"), 1732907143100);
  EXPECT_EQ(*ParseRfc3339("2024-11-29T19:05:43z"), 1732907143000);
}

// A syntax error names the line and column of the first bad token (bytes, counted from 1), and
// says no position when there is none to give (an unclosed string is found before any token).
TEST(JsonSyntaxError, NamesTheLineAndColumnOfTheFirstBadToken) {
  auto error = [](std::string_view text) {
    Result<json::Value> v = json::Parse(text);
    EXPECT_FALSE(v.ok()) << text;
    const std::string m = v.ok() ? "" : v.status().message();
    const size_t at = m.rfind(" (line ");
    return at == std::string::npos ? std::string("none") : m.substr(at + 2, m.size() - at - 3);
  };
  EXPECT_EQ(error("{\"a\": 1,}"), "line 1, column 9");
  EXPECT_EQ(error("{\"a\" 1}"), "line 1, column 6");
  EXPECT_EQ(error("{\n  \"a\": [1,\n  2,,3]}"), "line 3, column 5");
  EXPECT_EQ(error("  nope"), "line 1, column 3");
  EXPECT_EQ(error("{\"a\": 01}"), "line 1, column 7");
  EXPECT_EQ(error("{\"a\": 1} x"), "line 1, column 10");
  EXPECT_EQ(error("\"abc"), "none");
  EXPECT_EQ(json::Parse("{\"a\" 1}").status().message().rfind("not valid JSON: ", 0), 0u);
}

TEST(TimeFmt, DurationsAreDigitsAndOneUnit) {
  EXPECT_EQ(ParseDurationMs("90s"), 90'000);
  EXPECT_EQ(ParseDurationMs("30d"), 30 * 86'400'000LL);
  EXPECT_EQ(ParseDurationMs("0m"), 0);
  for (const char* bad : {"", "d", "5", "5w", "-5m", "+5m", " 5m", "5 m", "1.5h", "123456789012d"})
    EXPECT_FALSE(ParseDurationMs(bad)) << bad;
}

}  // namespace
}  // namespace hangar
