// RealEnv's reads on a scratch directory: ReadFile, and Env::Dir both as RealEnv holds it open and
// as Env's default gives it to Envs that have nothing better.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "env/env.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

class RealEnvReadTest : public ::testing::TestWithParam<bool> {
 protected:
  RealEnvReadTest() {
    std::filesystem::create_directories(root_ + "/m");
    Write("m/empty", "");
    Write("m/four", "1234");
    Write("m/big", std::string(100'000, 'x'));
    std::filesystem::create_symlink("four", root_ + "/m/link");
    mkfifo((root_ + "/m/fifo").c_str(), 0644);
  }
  void Write(const std::string& rel, const std::string& text) {
    std::ofstream(root_ + "/" + rel, std::ios::binary) << text;
  }
  // RealEnv's own Dir, or Env's default (by joined paths, for Envs that have nothing better).
  Result<std::unique_ptr<Env::Dir>> OpenDir(const std::string& path) {
    return GetParam() ? RealEnv()->Env::OpenDir(path) : RealEnv()->OpenDir(path);
  }

  ScratchDir scratch_{"env"};
  const std::string root_ = scratch_.path();
};

TEST_P(RealEnvReadTest, DirReadsFilesBelowItAsReadFileDoes) {
  Result<std::unique_ptr<Env::Dir>> dir = OpenDir(root_);
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  for (const char* rel : {"m/empty", "m/four", "m/big"}) {
    Result<std::string> a = (*dir)->ReadFile(rel, 1 << 20);
    Result<std::string> b = RealEnv()->ReadFile(root_ + "/" + rel, 1 << 20);
    ASSERT_TRUE(a.ok() && b.ok()) << rel;
    EXPECT_EQ(*a, *b) << rel;
  }
  EXPECT_EQ(*(*dir)->ReadFile("m/four", 4), "1234");
  EXPECT_EQ((*dir)->ReadFile("m/big", 99'999).status().code(), Code::kInvalid);
  EXPECT_EQ((*dir)->ReadFile("m/none", 10).status().code(), Code::kNotFound);
  // Never through a final symlink, never blocking on a FIFO; the error names the whole path.
  Status link = (*dir)->ReadFile("m/link", 10).status();
  EXPECT_EQ(link.code(), Code::kInvalid);
  EXPECT_NE(link.message().find(root_ + "/m/link"), std::string::npos) << link.message();
  EXPECT_EQ((*dir)->ReadFile("m/fifo", 10).status().code(), Code::kInvalid);
  EXPECT_EQ((*dir)->ReadFile("m", 10).status().code(), Code::kInvalid);  // a directory
}

TEST_P(RealEnvReadTest, OpenDirOfNothingIsNotFound) {
  EXPECT_EQ(OpenDir(root_ + "/none").status().code(), Code::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(HeldOpenOrByPath, RealEnvReadTest, ::testing::Bool());

TEST(RealEnvReadFile, ReadsWhatIsThereWhenFstatSaysNothing) {
  // A pseudo-file states size 0 yet has bytes: they are read to the end all the same.
  Result<std::string> status = RealEnv()->ReadFile("/proc/self/status", 1 << 20);
  ASSERT_TRUE(status.ok()) << status.status().message();
  EXPECT_NE(status->find("Name:"), std::string::npos);
}

TEST(RealEnvReadFile, ReadsWholeFilesOfAnySizeAndRefusesLargerThanAsked) {
  ScratchDir dir("readfile");
  for (size_t n : {size_t(0), size_t(1), size_t(65535), size_t(65536), size_t(200001)}) {
    const std::string path = dir.path() + "/f" + std::to_string(n);
    std::string text(n, 'x');
    for (size_t i = 0; i < n; i += 7) text[i] = char('a' + i % 26);
    std::ofstream(path) << text;
    Result<std::string> got = RealEnv()->ReadFile(path, 1 << 20);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(got.value(), text) << n;
    if (n > 0) {
      Result<std::string> small = RealEnv()->ReadFile(path, n - 1);
      EXPECT_FALSE(small.ok()) << n;
    }
  }
}

TEST(RealEnvListEntries, TellsDirectoriesFromFilesAndLinks) {
  ScratchDir dir("entries");
  ASSERT_EQ(mkdir((dir.path() + "/d").c_str(), 0755), 0);
  std::ofstream(dir.path() + "/f") << "x";
  ASSERT_EQ(symlink("d", (dir.path() + "/l").c_str()), 0);
  Result<std::vector<Env::DirEntry>> e = RealEnv()->ListEntries(dir.path());
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e->size(), 3u);
  EXPECT_EQ((*e)[0].name, "d");
  EXPECT_TRUE((*e)[0].dir);
  EXPECT_EQ((*e)[1].name, "f");
  EXPECT_FALSE((*e)[1].dir);
  EXPECT_EQ((*e)[2].name, "l");
  EXPECT_FALSE((*e)[2].dir);
}

// Lstat: what the daemon asks of a drop (a regular file linked into place?) and of an op request
// (left alone long enough?), never following a link.
TEST(RealEnvLstat, SaysTypeLinksAndTimeWithoutFollowing) {
  ScratchDir dir("lstat");
  const std::string f = dir.path() + "/f";
  std::ofstream(f) << "x";
  const TimeMs before = RealEnv()->Now();
  Result<Env::FileInfo> one = RealEnv()->Lstat(f);
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_TRUE(one->regular);
  EXPECT_EQ(one->links, 1u);
  EXPECT_LE(one->modified, before + 1000);
  EXPECT_GT(one->modified, before - 60000);
  ASSERT_EQ(link(f.c_str(), (dir.path() + "/g").c_str()), 0);
  EXPECT_EQ(RealEnv()->Lstat(f)->links, 2u);
  ASSERT_EQ(symlink("f", (dir.path() + "/l").c_str()), 0);
  EXPECT_FALSE(RealEnv()->Lstat(dir.path() + "/l")->regular) << "the link itself, not f";
  EXPECT_FALSE(RealEnv()->Lstat(dir.path() + "/missing").ok());
}

// One holder at a time, on a file (created) or a directory (never created); letting go frees it.
TEST(RealEnvLock, AnExclusiveLockIsHeldUntilItIsDestroyed) {
  ScratchDir scratch("envlock");
  const std::string file = scratch.path() + "/lock", dir = scratch.path() + "/anchor";
  std::filesystem::create_directory(dir);
  for (bool directory : {false, true}) {
    const std::string& path = directory ? dir : file;
    Result<std::unique_ptr<Env::Lock>> first = RealEnv()->LockExclusive(path, directory);
    ASSERT_TRUE(first.ok()) << first.status().message();
    Result<std::unique_ptr<Env::Lock>> second = RealEnv()->LockExclusive(path, directory);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), Code::kUnavailable) << second.status().message();
    first.value().reset();
    EXPECT_TRUE(RealEnv()->LockExclusive(path, directory).ok()) << path << " not let go";
  }
  EXPECT_TRUE(std::filesystem::is_regular_file(file));
  Result<std::unique_ptr<Env::Lock>> missing =
      RealEnv()->LockExclusive(scratch.path() + "/no-such-mount", true);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound) << missing.status().message();
  EXPECT_EQ(RealEnv()
                ->LockExclusive(scratch.path() + "/no-such-mount", true, "the anchor directory X")
                .status()
                .message()
                .rfind("cannot open the anchor directory X: ", 0),
            0u);  // errors name it as the caller does
  EXPECT_FALSE(std::filesystem::exists(scratch.path() + "/no-such-mount"));
}

TEST(RealEnvFilesystem, SaysWhichFilesystemHoldsAPath) {
  ScratchDir scratch("envfs");
  Result<uint64_t> here = RealEnv()->FilesystemOf(scratch.path());
  ASSERT_TRUE(here.ok()) << here.status().message();
  struct stat st {};
  ASSERT_EQ(stat("/proc/self", &st), 0);
  EXPECT_NE(*here, uint64_t(st.st_dev));  // procfs is never the scratch directory's
  EXPECT_EQ(RealEnv()->FilesystemOf(scratch.path() + "/absent").status().code(), Code::kNotFound);
}

// WriteFilesAtomic: every file in place with its bytes and no temporary left; a failure stops at
// its file, the ones before it written.
TEST(RealEnvWriteFiles, WritesEachInOrderAndStopsAtAFailure) {
  ScratchDir dir("writefiles");
  std::ofstream(dir.path() + "/b") << "old";
  ASSERT_TRUE(RealEnv()->WriteFilesAtomic(dir.path(), {{"b", "2"}, {"a", "1"}}).ok());
  Result<std::vector<std::string>> names = RealEnv()->ListDir(dir.path());
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/b", 10), "2");
  Status s = RealEnv()->WriteFilesAtomic(dir.path(), {{"c", "3"}, {"no/such", "4"}, {"d", "5"}});
  EXPECT_EQ(s.code(), Code::kNotFound) << s.message();
  EXPECT_TRUE(RealEnv()->Exists(dir.path() + "/c"));
  EXPECT_FALSE(RealEnv()->Exists(dir.path() + "/d"));
}

}  // namespace
}  // namespace hangar
