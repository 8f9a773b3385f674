// RealEnv's reads on a scratch directory: ReadFile, and Env::Dir both as RealEnv holds it open and
// as Env's default gives it to Envs that have nothing better.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

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

// WriteFilesDirsLater: a batch across directories and across its parts of 64 files, each file in
// place with its bytes and no temporary left; one directory's failure stops that directory at its
// file (the files before it written, those after it not) and no other.
TEST(RealEnvWriteFiles, ABatchAcrossDirectoriesStopsOnlyTheDirectoryThatFailed) {
  ScratchDir dir("writebatch");
  std::vector<std::string> dirs, names;
  for (int d = 0; d < 5; ++d) {
    dirs.push_back(dir.path() + "/d" + std::to_string(d));
    ASSERT_TRUE(RealEnv()->MakeDir(dirs.back()).ok());
  }
  for (int f = 0; f < 40; ++f) names.push_back("f" + std::to_string(f));
  std::vector<Env::DirFiles> batch;
  for (int d = 0; d < 5; ++d) {
    Env::Files files;
    for (const std::string& n : names) files.emplace_back(n, dirs[d]);
    batch.push_back({dirs[d], files});
  }
  // Directory 2 fails at its 31st file (a part later than its first files) and directory 4 at its
  // first.
  batch[2].files[30].first = "no/such";
  batch[4].files[0].first = "no/such";
  std::vector<Status> r = RealEnv()->WriteFilesDirsLater(batch);
  ASSERT_EQ(r.size(), 5u);
  for (int d = 0; d < 5; ++d) {
    Result<std::vector<std::string>> there = RealEnv()->ListDir(dirs[d]);
    ASSERT_TRUE(there.ok());
    std::set<std::string> got(there->begin(), there->end());
    const size_t want = d == 2 ? 30 : d == 4 ? 0 : 40;
    EXPECT_EQ(got.size(), want) << dirs[d];  // and no temporary name left
    for (size_t f = 0; f < want; ++f) {
      EXPECT_EQ(got.count(names[f]), 1u) << dirs[d] << "/" << names[f];
      EXPECT_EQ(*RealEnv()->ReadFile(dirs[d] + "/" + names[f], 1000), dirs[d]);
    }
    if (d == 2 || d == 4) {
      EXPECT_EQ(r[d].code(), Code::kNotFound) << r[d].message();
      EXPECT_NE(r[d].message().find(dirs[d] + "/.no/such.tmp."), std::string::npos)
          << r[d].message();
    } else {
      EXPECT_TRUE(r[d].ok()) << r[d].message();
    }
  }
}

// Whatever a hostile writer of the directory planted at a write's temporary name (a FIFO, to block
// hangard's open or make it fail) is taken away first: both writers still put their bytes in place,
// and nothing is left at the temporary name. (A retry writes MISSION.md into a room the attempt
// before's drone could write.)
TEST(RealEnvWriteFiles, AFifoPlantedAtTheTemporaryNameNeitherBlocksNorStopsTheWrite) {
  ScratchDir dir("plantedfifo");
  for (const char* name : {"one", "two"})
    ASSERT_EQ(mkfifo(AtomicTmpPath(dir.path(), name).c_str(), 0666), 0) << name;
  ASSERT_TRUE(RealEnv()->WriteFileAtomic(dir.path(), "one", "1").ok());
  std::vector<Status> r = RealEnv()->WriteFilesDirsLater({{dir.path(), {{"two", "2"}}}});
  ASSERT_TRUE(r.at(0).ok()) << r[0].message();
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/one", 10), "1");
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/two", 10), "2");
  Result<std::vector<std::string>> names = RealEnv()->ListDir(dir.path());
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"one", "two"}));
}

// CreateExclusives: each key created with its bytes, one already there said Exists and left as it
// is while the others go on; any other failure stops the batch there, and no key after it is made.
// CreateExclusives holds at most a part of the batch open at once (64 descriptors): a turn that
// launches hundreds of missions (slots in the hundreds, a deep queue) must not run out of
// descriptors, which would be a failure of the spool and stop hangard's work. Here 150 keys under
// a limit of the descriptors already open plus 70.
TEST(RealEnvCreateExclusives, ABigBatchHoldsOnlyAPartOpenAtOnce) {
  ScratchDir dir("manykeys");
  std::vector<std::string> names;
  for (int i = 0; i < 150; ++i) names.push_back("k" + std::to_string(i));
  std::ofstream(dir.path() + "/k100") << "old";
  Env::Files files;
  for (const std::string& n : names) files.emplace_back(n, n);
  size_t open_now = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) open_now += e.exists();
  struct rlimit was;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &was), 0);
  struct rlimit low = was;
  low.rlim_cur = std::min<rlim_t>(was.rlim_cur, open_now + 70);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<Status> r = RealEnv()->CreateExclusives(dir.path(), files);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &was), 0);
  ASSERT_EQ(r.size(), 150u);
  for (int i = 0; i < 150; ++i) {
    if (i == 100) {
      EXPECT_EQ(r[i].code(), Code::kExists) << r[i].message();
      continue;
    }
    ASSERT_TRUE(r[i].ok()) << i << ": " << r[i].message();
    EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/" + names[i], 10), names[i]);
  }
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/k100", 10), "old");
}

TEST(RealEnvCreateExclusives, MakesEachKeyOnceAndStopsAtAFailure) {
  ScratchDir dir("keys");
  std::ofstream(dir.path() + "/b") << "old";
  std::vector<Status> r =
      RealEnv()->CreateExclusives(dir.path(), {{"a", "1"}, {"b", "2"}, {"c", "3"}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].ok()) << r[0].message();
  EXPECT_EQ(r[1].code(), Code::kExists) << r[1].message();
  EXPECT_NE(r[1].message().find(dir.path() + "/b"), std::string::npos) << r[1].message();
  EXPECT_TRUE(r[2].ok()) << r[2].message();
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/a", 10), "1");
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/b", 10), "old");
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/c", 10), "3");
  r = RealEnv()->CreateExclusives(dir.path(), {{"d", "4"}, {"no/such", "5"}, {"e", "6"}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].ok()) << r[0].message();
  EXPECT_EQ(r[1].code(), Code::kNotFound) << r[1].message();
  EXPECT_EQ(r[2].code(), Code::kNotFound) << r[2].message();
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/d", 10), "4");
  EXPECT_FALSE(RealEnv()->Exists(dir.path() + "/e"));
  EXPECT_TRUE(RealEnv()->CreateExclusives(dir.path(), {}).empty());
}

// WriteTogether: every file in place, every key made (one there already said Exists), and a
// directory that cannot be synced said in `dirs` without stopping the files or the keys.
TEST(RealEnvWriteTogether, WritesTheFilesMakesTheKeysAndSyncsTheDirectories) {
  ScratchDir dir("together");
  for (const char* d : {"/d", "/e", "/k"}) ASSERT_TRUE(RealEnv()->MakeDir(dir.path() + d).ok());
  std::ofstream(dir.path() + "/k/k2") << "old";
  Env::Together t{
      {dir.path() + "/d", dir.path() + "/gone", dir.path() + "/e"},
      {{dir.path() + "/d", {{"a", "1"}, {"b", "2"}}}, {dir.path() + "/e", {{"c", "3"}}}},
      dir.path() + "/k",
      {{"k1", "x"}, {"k2", "y"}, {"k3", "z"}},
      {{0, {dir.path() + "/e", {{"r1", "R"}}}}, {1, {dir.path() + "/e", {{"r2", "S"}}}}}};
  Env::TogetherDone r = RealEnv()->WriteTogether(t);
  EXPECT_EQ(r.dirs.code(), Code::kNotFound) << r.dirs.message();
  EXPECT_NE(r.dirs.message().find(dir.path() + "/gone"), std::string::npos) << r.dirs.message();
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_TRUE(r.files[0].ok() && r.files[1].ok());
  ASSERT_EQ(r.keys.size(), 3u);
  EXPECT_TRUE(r.keys[0].ok()) << r.keys[0].message();
  EXPECT_EQ(r.keys[1].code(), Code::kExists) << r.keys[1].message();
  EXPECT_TRUE(r.keys[2].ok()) << r.keys[2].message();
  for (const char* f : {"/d/a", "/d/b", "/e/c", "/k/k1", "/k/k2", "/k/k3"})
    EXPECT_TRUE(RealEnv()->Exists(dir.path() + f)) << f;
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/d/b", 10), "2");
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/k/k2", 10), "old");
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/k/k3", 10), "z");
  Result<std::vector<std::string>> d = RealEnv()->ListDir(dir.path() + "/d");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->size(), 2u) << "no temporary name left";
  // A keyed file is written for the key made (k1), not for the one that was there (k2).
  ASSERT_EQ(r.keyed.size(), 2u);
  EXPECT_TRUE(r.keyed[0].ok()) << r.keyed[0].message();
  EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/e/r1", 10), "R");
  EXPECT_EQ(r.keyed[1].code(), Code::kNotFound) << r.keyed[1].message();
  EXPECT_FALSE(RealEnv()->Exists(dir.path() + "/e/r2"));
  EXPECT_EQ(RealEnv()->ListDir(dir.path() + "/e")->size(), 2u) << "c and r1, no temporary name";
}

// A key is a point of no return: after a file that could not be written, no key is made, and
// each says why, and no keyed file is written; the other directories' files are written all the
// same. Past 64 files and keys (the descriptors held open at once) the same holds, by the calls in
// turn.
TEST(RealEnvWriteTogether, AFileThatFailsTakesNoKeyInSmallAndBigBatches) {
  for (const int many : {2, 70}) {
    ScratchDir dir("together-fail");
    for (const char* d : {"/d", "/k"}) ASSERT_TRUE(RealEnv()->MakeDir(dir.path() + d).ok());
    std::vector<std::string> names;
    for (int i = 0; i < many; ++i) names.push_back("f" + std::to_string(i));
    Env::Files files, keys;
    for (const std::string& n : names) files.emplace_back(n, n);
    for (const std::string& n : names) keys.emplace_back(n, n);
    Env::Together t{{},
                    {{dir.path() + "/d", files}, {dir.path() + "/no/such", {{"x", "1"}}}},
                    dir.path() + "/k",
                    keys,
                    {{0, {dir.path() + "/d", {{"keyed", "K"}}}}}};
    Env::TogetherDone r = RealEnv()->WriteTogether(t);
    ASSERT_EQ(r.files.size(), 2u);
    EXPECT_TRUE(r.files[0].ok()) << many << ": " << r.files[0].message();
    EXPECT_EQ(r.files[1].code(), Code::kNotFound) << many;
    ASSERT_EQ(r.keys.size(), size_t(many));
    for (const Status& k : r.keys) {
      EXPECT_EQ(k.code(), Code::kIo) << many;
      EXPECT_NE(k.message().find("not created: "), std::string::npos) << k.message();
    }
    EXPECT_EQ(RealEnv()->ListDir(dir.path() + "/k")->size(), 0u) << many;
    EXPECT_EQ(RealEnv()->ListDir(dir.path() + "/d")->size(), size_t(many)) << many << ": no keyed";
    ASSERT_EQ(r.keyed.size(), 1u);
    EXPECT_EQ(r.keyed[0].code(), Code::kNotFound) << many;
    // Without the failing directory, every key is made.
    t.files.pop_back();
    ScratchDir again("together-ok");
    ASSERT_TRUE(RealEnv()->MakeDir(again.path() + "/k").ok());
    t.key_dir = again.path() + "/k";
    r = RealEnv()->WriteTogether(t);
    for (const Status& k : r.keys) EXPECT_TRUE(k.ok()) << many << ": " << k.message();
    EXPECT_TRUE(r.keyed.at(0).ok()) << many << ": " << r.keyed[0].message();
    EXPECT_EQ(*RealEnv()->ReadFile(dir.path() + "/d/keyed", 10), "K");
    EXPECT_EQ(RealEnv()->ListDir(again.path() + "/k")->size(), size_t(many)) << many;
  }
}

// SyncDirs: Ok when every directory is there; else the error of the first in the list's order that
// failed, whichever thread met it first, and THEN is not reached.
TEST(RealEnvSyncDirs, SaysTheFirstDirectoryThatFailed) {
  ScratchDir dir("syncdirs");
  std::vector<std::string> dirs;
  for (int d = 0; d < 12; ++d) {
    dirs.push_back(dir.path() + "/d" + std::to_string(d));
    ASSERT_TRUE(RealEnv()->MakeDir(dirs.back()).ok());
  }
  EXPECT_TRUE(RealEnv()->SyncDirs(dirs, dir.path()).ok());
  EXPECT_TRUE(RealEnv()->SyncDirs(dirs, "").ok());
  dirs[7] = dir.path() + "/gone7";
  dirs[9] = dir.path() + "/gone9";
  Status s = RealEnv()->SyncDirs(dirs, dir.path());
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("/gone7"), std::string::npos) << s.message();
  s = RealEnv()->SyncDirs({dir.path()}, dir.path() + "/gone-then");
  EXPECT_NE(s.message().find("/gone-then"), std::string::npos) << s.message();
  // No directory, no call: THEN is not fsynced either (as FaultEnv counts it, env.h).
  EXPECT_TRUE(RealEnv()->SyncDirs({}, dir.path() + "/gone-then").ok());
}

// SyncPaths: files and directories alike (a supervisor's exit.json and its run/); the error of the
// first path that failed, a symbolic link refused (O_NOFOLLOW: a link in a run/ would fsync its
// target and leave the name unsynced).
TEST(RealEnvSyncPaths, SyncsFilesAndDirectoriesAndSaysTheFirstThatFailed) {
  ScratchDir dir("syncpaths");
  const std::string file = dir.path() + "/exit.json";
  ASSERT_TRUE(RealEnv()->WriteFileVisible(dir.path(), "exit.json", "{}").ok());
  EXPECT_TRUE(RealEnv()->SyncPaths({file, dir.path()}).ok());
  EXPECT_TRUE(RealEnv()->SyncPaths({}).ok());
  ASSERT_EQ(symlink(file.c_str(), (dir.path() + "/link").c_str()), 0);
  Status s = RealEnv()->SyncPaths({file, dir.path() + "/gone", dir.path() + "/link"});
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("/gone"), std::string::npos) << s.message();
  s = RealEnv()->SyncPaths({dir.path() + "/link", file});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/link"), std::string::npos) << s.message();
}

// The lines and the ledger entries of one commit (daemon/daemon.cc, CommitRecords): each part
// appended to its file, made when absent, with a status each; one that cannot be opened or is a
// symbolic link fails alone.
TEST(RealEnvAppendTogether, AppendsEachPartAndSaysWhichFailed) {
  ScratchDir dir("append-together");
  const std::string a = dir.path() + "/a.jsonl", b = dir.path() + "/b.jsonl";
  std::ofstream(a) << "old\n";
  std::vector<Status> r = RealEnv()->AppendTogether({{a, "one\n"}, {b, "two\n"}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[0].ok()) << r[0].message();
  EXPECT_TRUE(r[1].ok()) << r[1].message();
  auto read = [](const std::string& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(a), "old\none\n");
  EXPECT_EQ(read(b), "two\n");
  const std::string link = dir.path() + "/link.jsonl";
  std::filesystem::create_symlink(a, link);
  r = RealEnv()->AppendTogether({{dir.path() + "/no/such", "x"}, {b, "three\n"}, {link, "y"}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].code(), Code::kNotFound) << r[0].message();
  EXPECT_NE(r[0].message().find("/no/such"), std::string::npos) << r[0].message();
  EXPECT_TRUE(r[1].ok()) << r[1].message();
  EXPECT_FALSE(r[2].ok()) << "a symbolic link was followed";
  EXPECT_EQ(read(b), "two\nthree\n");
  EXPECT_EQ(read(a), "old\none\n");
  EXPECT_TRUE(RealEnv()->AppendTogether({}).empty());
}

}  // namespace
}  // namespace hangar
