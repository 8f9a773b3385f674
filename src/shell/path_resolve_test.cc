#include "shell/path_resolve.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <vector>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

// A scratch tree taken as "/" (the root parameter):
//   /a/b/c  /a/file  /b/c  /etc/cron.d  /other/dir  /srv/work
class PathResolveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(root_.empty());
    for (const char* d : {"/a/b/c", "/b/c", "/etc/cron.d", "/other/dir", "/srv/work"}) {
      fs::create_directories(root_ + d);
    }
    std::ofstream(root_ + "/a/file") << "x";
  }
  // A symbolic link at `at` (inside the tree) holding `target` verbatim.
  void Link(const std::string& target, const std::string& at) {
    fs::create_symlink(target, root_ + at);
  }
  std::string Resolve(const std::string& path) {
    Result<std::string> r = ResolveExistingPath(path, root_);
    EXPECT_TRUE(r.ok()) << path << ": " << r.status().message();
    return r.ok() ? *r : "<error>";
  }

  ScratchDir scratch_{"resolve"};
  const std::string root_ = scratch_.path();
};

TEST_F(PathResolveTest, PlainPathsAndMissingTails) {
  EXPECT_EQ(Resolve("/"), "/");
  EXPECT_EQ(Resolve("/a/b/c"), "/a/b/c");
  EXPECT_EQ(Resolve("/a/b/missing/x"), "/a/b/missing/x");
  EXPECT_EQ(Resolve("/nowhere"), "/nowhere");
  EXPECT_EQ(Resolve("/a/missing/../../etc"), "/etc");  // after the walk stops: lexical
}

// Regression (gate corpus 188): the ".." after a missing part climbed back to a link that the
// lexical rest left unresolved, and /srv/nothere/../work/l/x passed for harmless.
TEST_F(PathResolveTest, DotDotAfterAMissingPartWalksWhatExistsAgain) {
  Link("/etc", "/srv/work/l");
  EXPECT_EQ(Resolve("/srv/nothere/../work/l/cron.d"), "/etc/cron.d");
  EXPECT_EQ(Resolve("/srv/nothere/x/../../work/l/y"), "/etc/y");
}

// DiskLook: the walk through it answers as the walk without it, links, climbs, missing tails and
// errors alike, and asks the disk once per disk path: the sandbox resolves the same credential
// names in every home, and a home reached through a link (/bin -> usr/bin) cost five calls a name.
TEST_F(PathResolveTest, DiskLookResolvesTheSameAndAsksEachDiskPathOnce) {
  fs::create_directories(root_ + "/usr/bin");
  Link("usr/bin", "/bin");
  Link("/etc", "/srv/work/l");
  Link("loop2", "/loop1");
  Link("loop1", "/loop2");
  std::ofstream(root_ + "/usr/bin/.netrc") << "secret";
  const std::vector<std::string> paths = {
      "/bin/.aws",         "/bin/.netrc", "/bin/.config/gh",      "/srv/nothere/../work/l/cron.d",
      "/a/file/x",         "/a/b/c",      "/a/missing/../../etc", "/loop1/x",
      "/bin/../etc/cron.d"};
  DiskLook look;
  for (int pass = 0; pass < 2; ++pass)  // the second pass from what the first kept
    for (const std::string& p : paths) {
      Result<std::string> plain = ResolveExistingPath(p, root_);
      Result<std::string> looked = ResolveExistingPath(p, root_, &look);
      ASSERT_EQ(plain.ok(), looked.ok()) << p;
      if (plain.ok())
        EXPECT_EQ(*plain, *looked) << p;
      else
        EXPECT_EQ(plain.status().message(), looked.status().message()) << p;
    }
  // Ten names in the home /bin: the link and the directories once, then one lstat a name.
  DiskLook homes;
  const std::vector<std::string> names = {".aws",   ".azure", ".claude", ".codex", ".docker",
                                          ".gnupg", ".kube",  ".netrc",  ".ssh",   ".npmrc"};
  for (const std::string& n : names) EXPECT_EQ(Resolve("/bin/" + n), "/usr/bin/" + n);
  for (const std::string& n : names) {
    Result<std::string> r = ResolveExistingPath("/bin/" + n, root_, &homes);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(*r, "/usr/bin/" + n);
  }
  // lstat /bin, readlink /bin, lstat /usr, lstat /usr/bin, then lstat /usr/bin/NAME for each.
  EXPECT_EQ(homes.calls(), 4 + int64_t(names.size()));
  struct stat st {};
  EXPECT_EQ(homes.Lstat(root_ + "/usr/bin/.netrc", &st), 0);  // kept: no call more
  EXPECT_EQ(st.st_size, 6);
  EXPECT_EQ(homes.Lstat(root_ + "/usr/bin/.aws", &st), ENOENT);  // kept, errno and all
  EXPECT_EQ(homes.calls(), 4 + int64_t(names.size()));
}

TEST_F(PathResolveTest, LexicalCases) {
  EXPECT_EQ(Resolve("//a//b/"), "/a/b");
  EXPECT_EQ(Resolve("/a/./b/../b"), "/a/b");
  EXPECT_EQ(Resolve("/a/b/c/../../.."), "/");
}

TEST_F(PathResolveTest, DotDotNeverLeavesRoot) {
  EXPECT_EQ(Resolve("/../../etc"), "/etc");
  EXPECT_EQ(Resolve("/a/../../../srv/work"), "/srv/work");
  Link("../../../../../..", "/srv/up");
  EXPECT_EQ(Resolve("/srv/up/etc/cron.d"), "/etc/cron.d");
}

TEST_F(PathResolveTest, AbsoluteLinkStartsFromRoot) {
  Link("/etc", "/srv/work/cfg");
  EXPECT_EQ(Resolve("/srv/work/cfg/cron.d/x"), "/etc/cron.d/x");
  EXPECT_EQ(Resolve("/srv/work/cfg"), "/etc");
}

TEST_F(PathResolveTest, RelativeLinkStartsFromItsDirectory) {
  Link("../other/dir", "/a/link");
  EXPECT_EQ(Resolve("/a/link/x"), "/other/dir/x");
  Link("b/c", "/a/down");
  EXPECT_EQ(Resolve("/a/down"), "/a/b/c");
}

TEST_F(PathResolveTest, DotDotAfterLinkGoesToTargetsParent) {
  Link("/b/c", "/a/link");
  EXPECT_EQ(Resolve("/a/link/../x"), "/b/x");  // lexically it would be /a/x
  EXPECT_EQ(Resolve("/a/link/../../etc/cron.d"), "/etc/cron.d");
}

TEST_F(PathResolveTest, ChainedLinks) {
  Link("/srv/hop2", "/srv/hop1");
  Link("../etc", "/srv/hop2");
  Link("hop1/cron.d", "/srv/hop0");
  EXPECT_EQ(Resolve("/srv/hop0/x"), "/etc/cron.d/x");
}

TEST_F(PathResolveTest, LoopIsAnError) {
  Link("/b/loop2", "/a/loop1");
  Link("/a/loop1", "/b/loop2");
  Result<std::string> r = ResolveExistingPath("/a/loop1/x", root_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("symbolic links"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("/a/loop1/x"), std::string::npos);
}

TEST_F(PathResolveTest, FortyLinksAreAllowedFortyOneAreNot) {
  Link("/b", "/l0");
  for (int i = 1; i <= 40; ++i) {
    Link("/l" + std::to_string(i - 1), "/l" + std::to_string(i));
  }
  EXPECT_EQ(Resolve("/l39/c"), "/b/c");  // 40 links
  EXPECT_FALSE(ResolveExistingPath("/l40/c", root_).ok());
}

TEST_F(PathResolveTest, DanglingLinkContinuesLexicallyFromItsTarget) {
  Link("/nowhere", "/a/dangling");
  EXPECT_EQ(Resolve("/a/dangling/x"), "/nowhere/x");
  Link("../../missing/../etc", "/a/b/rel");
  EXPECT_EQ(Resolve("/a/b/rel/x"), "/etc/x");
}

TEST_F(PathResolveTest, FileUsedAsDirectoryStops) {
  EXPECT_EQ(Resolve("/a/file/x"), "/a/file/x");
  EXPECT_EQ(Resolve("/a/file/../x"), "/a/x");  // the kernel says ENOTDIR: the rest is lexical
  Link("/a/file", "/srv/flink");
  EXPECT_EQ(Resolve("/srv/flink/x"), "/a/file/x");
}

TEST_F(PathResolveTest, LongLinkTarget) {
  std::string deep = "/a/b/c";
  for (char c = 'd'; c < 'j'; ++c) deep += "/" + std::string(60, c);  // a target of ~370 bytes
  Link(deep, "/long");
  EXPECT_EQ(Resolve("/long/x"), deep + "/x");
}

TEST_F(PathResolveTest, RealFilesystemWithoutRoot) {
  char* real = realpath(root_.c_str(), nullptr);  // /tmp itself may be a link
  ASSERT_NE(real, nullptr);
  const std::string real_root = real;
  free(real);
  Link("/b/c", "/a/link");
  Result<std::string> r = ResolveExistingPath(root_ + "/a/b/c");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, real_root + "/a/b/c");
  Link(root_ + "/etc", "/srv/work/cfg");
  r = ResolveExistingPath(root_ + "/srv/work/cfg/cron.d/../x");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, real_root + "/etc/x");
}

// The paths a mission names are resolved for the gate: each of writes and the notify.dir, whose
// return hangard (root perhaps) writes into.
TEST_F(PathResolveTest, WritesAndTheNotifyDirOfAMission) {
  Link("/etc", "/srv/work/inbox");
  Mission m;
  m.writes = {"/a/b", "~/x"};
  m.notify_dir = "/srv/work/inbox";
  ResolvedWrites r = ResolveWrites(m, "/other", root_);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r.at("/a/b").path, "/a/b");
  EXPECT_EQ(r.at("~/x").path, "/other/x");
  EXPECT_EQ(r.at("/srv/work/inbox").path, "/etc");
  EXPECT_EQ(r.at("/srv/work/inbox").error, "");
}

TEST_F(PathResolveTest, BadInput) {
  for (std::string_view bad : {"", "a/b", "~/x", "./x"}) {
    Result<std::string> r = ResolveExistingPath(bad, root_);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalid);
    EXPECT_EQ(r.status().message(), "not an absolute path");
  }
  Result<std::string> r = ResolveExistingPath(std::string_view("/a\0b", 4), root_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalid);
}

TEST_F(PathResolveTest, OtherDiskErrorsAreErrors) {  // here ENAMETOOLONG, which root gets too
  const std::string path = "/a/" + std::string(300, 'n') + "/x";
  Result<std::string> r = ResolveExistingPath(path, root_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kIo);
  EXPECT_EQ(r.status().message().rfind("cannot resolve " + path + ": lstat " + root_ + "/a/", 0), 0)
      << r.status().message();
}

}  // namespace
}  // namespace hangar
