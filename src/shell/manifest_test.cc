#include "shell/manifest.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/scratch_dir_testutil.h"
#include "base/sha256.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

class RoomManifestTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"manifest"};
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    base_ = scratch_.path();
    room_ = base_ + "/room";
    ASSERT_EQ(mkdir(room_.c_str(), 0755), 0);
  }

  void Write(const std::string& rel, const std::string& data) {
    std::ofstream(room_ + "/" + rel, std::ios::binary) << data;
  }
  void Dir(const std::string& rel) { ASSERT_EQ(mkdir((room_ + "/" + rel).c_str(), 0755), 0); }

  static const json::Value* Find(const json::Value& m, const std::string& path) {
    for (const json::Value& e : m.find("manifest")->as_array()) {
      if (e.find("path")->as_string() == path) return &e;
    }
    return nullptr;
  }
  static std::vector<std::string> Paths(const json::Value& m) {
    std::vector<std::string> out;
    for (const json::Value& e : m.find("manifest")->as_array())
      out.push_back(e.find("path")->as_string());
    return out;
  }

  std::string base_, room_;
};

int OpenFds() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

TEST_F(RoomManifestTest, ListsEveryEntrySortedWithHashes) {
  Dir("src");
  Dir("src/deep");
  for (int i = 0; i < 1000; i++) Write("src/deep/f" + std::to_string(i), std::to_string(i));
  Write("hello.txt", "hello\n");
  Write(".hidden", "x");
  json::Value m = RoomManifest(room_, {});
  EXPECT_EQ(m.find("path")->as_string(), room_);
  EXPECT_EQ(m.find("entries")->as_int(), 1004);
  EXPECT_EQ(m.find("listed")->as_int(), 1004);
  EXPECT_EQ(m.find("omitted_entries")->as_int(), 0);
  EXPECT_EQ(m.find("unhashed_files")->as_int(), 0);
  EXPECT_TRUE(m.find("errors")->as_array().empty());
  std::vector<std::string> paths = Paths(m);
  EXPECT_TRUE(std::is_sorted(paths.begin(), paths.end()));
  const json::Value* hello = Find(m, "hello.txt");
  ASSERT_NE(hello, nullptr);
  EXPECT_EQ(hello->find("type")->as_string(), "file");
  EXPECT_EQ(hello->find("size")->as_int(), 6);
  EXPECT_EQ(hello->find("sha256")->as_string(),
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  ASSERT_NE(Find(m, ".hidden"), nullptr);
  const json::Value* deep = Find(m, "src/deep");
  ASSERT_NE(deep, nullptr);
  EXPECT_EQ(deep->find("type")->as_string(), "dir");
  EXPECT_EQ(deep->find("sha256"), nullptr);
  EXPECT_EQ(Find(m, "src/deep/f999")->find("sha256")->as_string(), Sha256Hex("999"));
}

TEST_F(RoomManifestTest, SortsByFullPathBytes) {
  Dir("a");
  Write("a/b", "");
  Write("a-x", "");
  Write("a0", "");
  json::Value m = RoomManifest(room_, {});
  EXPECT_EQ(Paths(m), (std::vector<std::string>{"a", "a-x", "a/b", "a0"}));
}

TEST_F(RoomManifestTest, RecordsSymlinkWithoutFollowing) {
  ASSERT_EQ(symlink("/etc/passwd", (room_ + "/passwd").c_str()), 0);
  ASSERT_EQ(symlink("/etc", (room_ + "/etc").c_str()), 0);
  json::Value m = RoomManifest(room_, {});
  const json::Value* link = Find(m, "passwd");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->find("type")->as_string(), "symlink");
  EXPECT_EQ(link->find("target")->as_string(), "/etc/passwd");
  EXPECT_EQ(link->find("sha256"), nullptr);
  EXPECT_EQ(Find(m, "etc/passwd"), nullptr);
  EXPECT_EQ(m.find("entries")->as_int(), 2);
  std::stringstream passwd;
  passwd << std::ifstream("/etc/passwd").rdbuf();
  EXPECT_EQ(json::Write(m).find(Sha256Hex(passwd.str())), std::string::npos);
}

TEST_F(RoomManifestTest, OddNamesAreListed) {
  Write("two\nlines", "n");
  Write("bad\xff", "b");
  ASSERT_EQ(symlink("t\xfe", (room_ + "/link").c_str()), 0);
  json::Value m = RoomManifest(room_, {});
  EXPECT_NE(Find(m, "two\nlines"), nullptr);
  const json::Value* bad = Find(m, "bad\xEF\xBF\xBD");
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->find("path_b64")->as_string(), "YmFk/w==");
  EXPECT_EQ(bad->find("sha256")->as_string(), Sha256Hex("b"));
  const json::Value* link = Find(m, "link");
  EXPECT_EQ(link->find("target")->as_string(), "t\xEF\xBF\xBD");
  EXPECT_EQ(link->find("target_b64")->as_string(), "dP4=");
  EXPECT_TRUE(json::ValidUtf8(json::Write(m)));
}

TEST_F(RoomManifestTest, SpecialFilesAreListedNeverOpened) {
  ASSERT_EQ(mkfifo((room_ + "/fifo").c_str(), 0600), 0);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string sock = room_ + "/sock";
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  memcpy(addr.sun_path, sock.c_str(), sock.size());
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  close(s);
  json::Value m = RoomManifest(room_, {});  // a FIFO opened for reading would block here
  EXPECT_EQ(Find(m, "fifo")->find("type")->as_string(), "fifo");
  EXPECT_EQ(Find(m, "fifo")->find("sha256"), nullptr);
  EXPECT_EQ(Find(m, "fifo")->find("mode")->as_string(), "0600");
  EXPECT_EQ(Find(m, "sock")->find("type")->as_string(), "socket");
  EXPECT_TRUE(m.find("errors")->as_array().empty());
}

TEST_F(RoomManifestTest, ModeIsFourOctalDigits) {
  Write("run.sh", "#!/bin/sh\n");
  ASSERT_EQ(chmod((room_ + "/run.sh").c_str(), 04750), 0);
  json::Value m = RoomManifest(room_, {});
  EXPECT_EQ(Find(m, "run.sh")->find("mode")->as_string(), "4750");
}

TEST_F(RoomManifestTest, EntryLimitCountsWhatItOmits) {
  for (const char* name : {"a", "b", "c", "d", "e"}) Write(name, "12345");
  json::Value m = RoomManifest(room_, {.max_entries = 3});
  EXPECT_EQ(Paths(m), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(m.find("entries")->as_int(), 5);
  EXPECT_EQ(m.find("listed")->as_int(), 3);
  EXPECT_EQ(m.find("omitted_entries")->as_int(), 2);
  EXPECT_EQ(m.find("omitted_bytes")->as_int(), 10);
  EXPECT_EQ(m.find("bytes")->as_int(), 25);
}

TEST_F(RoomManifestTest, OmittedDirectoriesAreStillWalked) {
  Dir("a");
  Write("a/x", "123");
  Write("a/y", "45");
  json::Value m = RoomManifest(room_, {.max_entries = 1});
  EXPECT_EQ(Paths(m), std::vector<std::string>{"a"});
  EXPECT_EQ(m.find("entries")->as_int(), 3);
  EXPECT_EQ(m.find("omitted_bytes")->as_int(), 5);
}

TEST_F(RoomManifestTest, HashBudgetLeavesLaterFilesUnhashed) {
  for (const char* name : {"a", "b", "c", "d"}) Write(name, "0123456789");
  Write("e", "");
  json::Value m = RoomManifest(room_, {.max_hash_bytes = 25});
  EXPECT_EQ(Find(m, "a")->find("sha256")->as_string(), Sha256Hex("0123456789"));
  EXPECT_TRUE(Find(m, "b")->find("sha256")->is_string());
  EXPECT_TRUE(Find(m, "c")->find("sha256")->is_null());
  EXPECT_TRUE(Find(m, "d")->find("sha256")->is_null());
  EXPECT_TRUE(Find(m, "e")->find("sha256")->is_null());  // spent means spent, however small
  EXPECT_EQ(m.find("unhashed_files")->as_int(), 3);
  EXPECT_EQ(m.find("unhashed_bytes")->as_int(), 20);
  EXPECT_EQ(m.find("listed")->as_int(), 5);
}

TEST_F(RoomManifestTest, DeepNestingKeepsFewFdsOpen) {
  std::string path;
  for (int i = 0; i < 250; i++) {
    path += (i ? "/d" : "d");
    Dir(path);
  }
  Write(path + "/leaf", "hello\n");
  int before = OpenFds();
  json::Value m = RoomManifest(room_, {});
  EXPECT_EQ(OpenFds(), before);
  EXPECT_EQ(m.find("entries")->as_int(), 251);
  EXPECT_TRUE(m.find("errors")->as_array().empty());
  const json::Value* leaf = Find(m, path + "/leaf");
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(leaf->find("sha256")->as_string(),
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
}

TEST_F(RoomManifestTest, SymlinkedRoomIsRefused) {
  Write("secret", "s");
  std::string link = base_ + "/link";
  ASSERT_EQ(symlink(room_.c_str(), link.c_str()), 0);
  json::Value m = RoomManifest(link, {});
  EXPECT_TRUE(m.find("manifest")->as_array().empty());
  EXPECT_EQ(m.find("entries")->as_int(), 0);
  ASSERT_EQ(m.find("errors")->as_array().size(), 1u);
  EXPECT_EQ(m.find("errors")->as_array()[0].as_string(),
            "cannot open room " + link + ": a symbolic link, not followed");
}

TEST_F(RoomManifestTest, MissingRoomIsAnError) {
  json::Value m = RoomManifest(base_ + "/nope", {});
  EXPECT_TRUE(m.find("manifest")->as_array().empty());
  EXPECT_EQ(m.find("errors")->as_array()[0].as_string(),
            "cannot open room " + base_ + "/nope: No such file or directory");
}

TEST_F(RoomManifestTest, UnreadableDirectoryIsReported) {
  Dir("a");
  Dir("a/locked");
  Write("a/locked/x", "x");
  ASSERT_EQ(chmod((room_ + "/a/locked").c_str(), 0), 0);
  ASSERT_EQ(chmod(base_.c_str(), 0755), 0);
  const std::string want = "cannot open dir a/locked: Permission denied";
  // Root reads any directory, so the walk runs as nobody in a child when the test runs as root.
  pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
    json::Value m = RoomManifest(room_, {});
    const json::Array& errors = m.find("errors")->as_array();
    bool listed = Find(m, "a/locked") != nullptr && Find(m, "a/locked/x") == nullptr;
    _exit(listed && errors.size() == 1 && errors[0].as_string() == want ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  chmod((room_ + "/a/locked").c_str(), 0755);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: cannot become nobody, 1: not \"" << want << "\"";
}

TEST(OpenDirBeneathTest, RefusesSymlinkComponents) {
  Result<UniqueFd> root = OpenRoom("/");
  ASSERT_TRUE(root.ok());
  char tmpl[] = "/tmp/hangar-beneath-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string base = tmpl;
  ASSERT_EQ(symlink("/etc", (base + "/etc").c_str()), 0);
  Result<UniqueFd> dir = OpenRoom(base);
  ASSERT_TRUE(dir.ok());
  Result<UniqueFd> via = OpenDirBeneath(dir->get(), "etc");
  EXPECT_EQ(via.status().message(), "cannot open dir etc: a symbolic link, not followed");
  EXPECT_EQ(OpenDirBeneath(dir->get(), "x/y", "r").status().message(),
            "cannot open dir r/x: No such file or directory");
  EXPECT_EQ(OpenDirBeneath(dir->get(), "x/y").status().code(), Code::kNotFound);
  EXPECT_FALSE(OpenDirBeneath(dir->get(), "..").ok());
  EXPECT_TRUE(OpenDirBeneath(dir->get(), "").ok());
  std::filesystem::remove_all(base);
}

TEST(ReplaceInvalidUtf8Test, ReplacesMaximalInvalidPrefixes) {
  EXPECT_EQ(ReplaceInvalidUtf8("ok \xC3\xA9"), "ok \xC3\xA9");
  EXPECT_EQ(ReplaceInvalidUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong
  EXPECT_EQ(ReplaceInvalidUtf8("a\xE2\x82"), "a\xEF\xBF\xBD");            // cut short
  EXPECT_EQ(ReplaceInvalidUtf8("\xED\xA0\x80"),
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");                   // a surrogate
  EXPECT_EQ(ReplaceInvalidUtf8("\xF4\x90\x80\x80x").substr(12), "x");  // above U+10FFFF
  EXPECT_TRUE(json::ValidUtf8(ReplaceInvalidUtf8("\xF0\x9F\x98")));
}

}  // namespace
}  // namespace hangar
