// RemoveTreeNoFollow on a scratch directory filled the way a hostile drone would leave its room:
// symlinks to a file and a directory outside, a directory chmod 0, deep nesting. Whatever is
// outside the tree survives; the tree is gone.
#include "env/remove_tree.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

class RemoveTreeTest : public ::testing::Test {
 protected:
  void Write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  ScratchDir scratch_{"remove-tree"};
  const std::string root_ = scratch_.path();
};

TEST_F(RemoveTreeTest, SymlinksAreRemovedAsThemselvesAndWhatTheyNameStays) {
  fs::create_directories(root_ + "/outside/keep");
  Write(root_ + "/outside/secret", "s");
  Write(root_ + "/outside/keep/file", "k");
  fs::create_directories(root_ + "/room/a/b/c");
  Write(root_ + "/room/a/b/c/deep", "d");
  fs::create_symlink(root_ + "/outside/secret", root_ + "/room/to-file");
  fs::create_symlink(root_ + "/outside/keep", root_ + "/room/a/to-dir");
  fs::create_symlink(root_ + "/outside", root_ + "/room/a/b/up");
  ASSERT_TRUE(RemoveTreeNoFollow(root_ + "/room").ok());
  EXPECT_FALSE(fs::exists(fs::symlink_status(root_ + "/room")));
  EXPECT_TRUE(fs::exists(root_ + "/outside/secret"));
  EXPECT_TRUE(fs::exists(root_ + "/outside/keep/file"));
}

TEST_F(RemoveTreeTest, AnUnreadableDirectoryWeOwnIsOpenedAndRemoved) {
  fs::create_directories(root_ + "/room/locked/inner");
  Write(root_ + "/room/locked/inner/f", "x");
  ASSERT_EQ(chmod((root_ + "/room/locked/inner").c_str(), 0), 0);
  ASSERT_EQ(chmod((root_ + "/room/locked").c_str(), 0), 0);
  Status s = RemoveTreeNoFollow(root_ + "/room");
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(fs::exists(fs::symlink_status(root_ + "/room")));
}

TEST_F(RemoveTreeTest, APathThatIsALinkIsRemovedAsALink) {
  fs::create_directories(root_ + "/target");
  Write(root_ + "/target/f", "x");
  fs::create_directory_symlink(root_ + "/target", root_ + "/link");
  ASSERT_TRUE(RemoveTreeNoFollow(root_ + "/link").ok());
  EXPECT_FALSE(fs::exists(fs::symlink_status(root_ + "/link")));
  EXPECT_TRUE(fs::exists(root_ + "/target/f"));
}

TEST_F(RemoveTreeTest, NothingThereIsNotFound) {
  Status s = RemoveTreeNoFollow(root_ + "/absent");
  EXPECT_EQ(s.code(), Code::kNotFound) << s.message();
}

}  // namespace
}  // namespace hangar
