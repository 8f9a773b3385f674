#include "cli/output.h"

#include <gtest/gtest.h>

#include <sstream>

namespace hangar::cli {
namespace {

TEST(FormatAge, WholeUnitsRoundedDown) {
  EXPECT_EQ(FormatAge(0), "0s");
  EXPECT_EQ(FormatAge(12'999), "12s");
  EXPECT_EQ(FormatAge(59'999), "59s");
  EXPECT_EQ(FormatAge(60'000), "1m");
  EXPECT_EQ(FormatAge(5 * 60'000 + 59'000), "5m");
  EXPECT_EQ(FormatAge(3 * 3'600'000 + 1), "3h");
  EXPECT_EQ(FormatAge(2 * 86'400'000 + 5), "2d");
  EXPECT_EQ(FormatAge(-5'000), "0s");  // clock skew
}

TEST(FormatTable, AlignsColumnsAndLeavesTheLastUnpadded) {
  EXPECT_EQ(FormatTable({{"ID", "STATE", "AGE"}, {"long-id", "queued", "5m"}}),
            "ID       STATE   AGE\n"
            "long-id  queued  5m\n");
  EXPECT_EQ(FormatTable({}), "");
}

TEST(FormatTable, RowsMadeOnDemandGiveTheSameTable) {
  const std::vector<Row> rows = {{"ID", "STATE"}, {"long-id", "queued"}, {"a", "hold", "x"}};
  EXPECT_EQ(FormatTable(rows.size(),
                        [&](size_t i, Row& scratch) -> const Row& {
                          if (i == 0) return rows[0];
                          scratch = rows[i];
                          return scratch;
                        }),
            FormatTable(rows));
  EXPECT_EQ(FormatTable(rows), "ID       STATE\nlong-id  queued\na        hold    x\n");
}

// What reaches a terminal: no byte that starts an escape sequence or a line, no character that
// moves or reorders text; each shown as an escape a person can read.
TEST(Printable, EscapesWhatCouldSteerATerminal) {
  EXPECT_EQ(Printable("alice"), "alice");
  EXPECT_EQ(Printable(""), "");
  EXPECT_EQ(Printable("x\x1b[1A\x1b[2K"), "x\\x1b[1A\\x1b[2K");  // erase the row above
  EXPECT_EQ(Printable("a\tb\nc\rd"), "a\\tb\\nc\\rd");
  EXPECT_EQ(Printable(std::string("n\0ul\x07\x7f", 6)), "n\\x00ul\\x07\\x7f");
  // C1 controls as UTF-8: NEL and CSI (which a terminal may take as ESC [).
  EXPECT_EQ(Printable("a\u0085b\u009b2J"), "a\\u0085b\\u009b2J");
  EXPECT_EQ(Printable("line\u2028para\u2029"), "line\\u2028para\\u2029");
  // Bidi overrides and isolates: "txt.exe" shown as "exe.txt" and the like.
  EXPECT_EQ(Printable("\u202ea\u202a\u202b\u202c\u202d"), "\\u202ea\\u202a\\u202b\\u202c\\u202d");
  EXPECT_EQ(Printable("\u2066\u2067\u2068\u2069\u200e\u200f\u061c"),
            "\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c");
  // Text is text: other characters, a backslash and the neighbours of the escaped ranges pass.
  EXPECT_EQ(Printable("caf\u00e9 \u00a0 \u2027\u202f\u2065\u206a \u65e5\u672c \U0001f680 a\\b"),
            "caf\u00e9 \u00a0 \u2027\u202f\u2065\u206a \u65e5\u672c \U0001f680 a\\b");
}

TEST(Printable, EscapesEachByteThatIsNotUtf8) {
  EXPECT_EQ(Printable("\x9b"
                      "2J"),
            "\\x9b2J");                            // a lone C1 byte: 8-bit CSI
  EXPECT_EQ(Printable("a\xc2"), "a\\xc2");         // cut short
  EXPECT_EQ(Printable("\xc0\x9b"), "\\xc0\\x9b");  // overlong ESC-like
  EXPECT_EQ(Printable("\xe0\x80\x9b"), "\\xe0\\x80\\x9b");
  EXPECT_EQ(Printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(Printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(Printable("\xff\xfe"), "\\xff\\xfe");
}

TEST(Printable, LeavesNoRawControlByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(char(c));
  all += "\u0085\u2028\u202e\u2066";
  const std::string out = Printable(all);
  for (unsigned char c : out) EXPECT_TRUE(c >= 0x20 && c != 0x7f && c < 0x80) << int(c);
}

TEST(FormatTable, PrintsEveryCellPrintableAndAlignsWhatIsPrinted) {
  EXPECT_EQ(FormatTable({{"ID", "BY"}, {"a\x1b[2K", "x"}, {"b", "\u202e"}}),
            "ID        BY\n"
            "a\\x1b[2K  x\n"
            "b         \\u202e\n");
}

TEST(Fail, PrintsTheOneShapeAndReturnsTheCode) {
  std::ostringstream err;
  EXPECT_EQ(FailTo(err, 66, "show x", "no such mission in /s"), 66);
  EXPECT_EQ(err.str(), "hangar: cannot show x: no such mission in /s\n");
  err.str("");
  EXPECT_EQ(FailTo(err, 65, "submit m.json", "requester: x\x1b[1A\nfake"), 65);
  EXPECT_EQ(err.str(), "hangar: cannot submit m.json: requester: x\\x1b[1A\\nfake\n");
}

}  // namespace
}  // namespace hangar::cli
