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

TEST(Fail, PrintsTheOneShapeAndReturnsTheCode) {
  std::ostringstream err;
  EXPECT_EQ(FailTo(err, 66, "show x", "no such mission in /s"), 66);
  EXPECT_EQ(err.str(), "hangar: cannot show x: no such mission in /s\n");
}

}  // namespace
}  // namespace hangar::cli
