// hangar show's last lines of a drone's output: the file's end, line by line, whatever it holds.
#include "cli/live_facts.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/scratch_dir_testutil.h"

namespace hangar::cli {
namespace {

using Lines = std::vector<std::string>;

TEST(LastLines, TheFilesLastLinesInOrder) {
  ScratchDir dir{"live"};
  ASSERT_FALSE(dir.path().empty());
  const std::string f = dir.path() + "/out";
  std::ofstream(f) << "a\n\nb\nc\n";
  EXPECT_EQ(LastLines(f, 2), (Lines{"b", "c"}));
  EXPECT_EQ(LastLines(f, 3), (Lines{"", "b", "c"}));
  EXPECT_EQ(LastLines(f, 9), (Lines{"a", "", "b", "c"}));
  EXPECT_TRUE(LastLines(f, 0).empty());
  std::ofstream(f) << "no newline at the end";
  EXPECT_EQ(LastLines(f, 1), Lines{"no newline at the end"});
  EXPECT_TRUE(LastLines(dir.path() + "/absent", 3).empty());
  EXPECT_TRUE(LastLines(dir.path(), 3).empty());  // a directory is no output
}

}  // namespace
}  // namespace hangar::cli
