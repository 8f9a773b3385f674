#include "shell/notify.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

// RealEnv, with every call recorded (paths relative to the inbox) and one kind of call failing.
class RecordingEnv : public Env {
 public:
  explicit RecordingEnv(std::string base) : base_(std::move(base)) {}
  std::vector<std::string> calls;
  std::string fail;  // "maildir", "write", ...: that call fails without doing anything

  TimeMs Now() override { return RealEnv()->Now(); }
  Status WriteFileAtomic(const std::string& dir, const std::string& name,
                         std::string_view data) override {
    if (Record("write " + Rel(dir) + "/" + name)) return Status::Io("cannot write: injected");
    return RealEnv()->WriteFileAtomic(dir, name, data);
  }
  Status CreateFileAtomic(const std::string& dir, const std::string& name, std::string_view data,
                          mode_t mode) override {
    Record("create-atomic " + Rel(dir) + "/" + name);
    return RealEnv()->CreateFileAtomic(dir, name, data, mode);
  }
  Status CreateExclusive(const std::string& dir, const std::string& name,
                         std::string_view data) override {
    Record("create " + Rel(dir) + "/" + name);
    return RealEnv()->CreateExclusive(dir, name, data);
  }
  Status Rename(const std::string& from, const std::string& to) override {
    if (Record("rename " + Rel(from) + " " + Rel(to))) return Status::Io("cannot rename: injected");
    return RealEnv()->Rename(from, to);
  }
  Status RenameNoReplace(const std::string& from, const std::string& to) override {
    if (Record("rename-noreplace " + Rel(from) + " " + Rel(to)))
      return Status::Io("cannot rename: injected");
    return RealEnv()->RenameNoReplace(from, to);
  }
  Status MakeDir(const std::string& path) override {
    if (Record("mkdir " + Rel(path))) return Status::Io("cannot mkdir: injected");
    return RealEnv()->MakeDir(path);
  }
  Status Remove(const std::string& path) override { return RealEnv()->Remove(path); }
  Status RemoveTree(const std::string& path) override { return RealEnv()->RemoveTree(path); }
  Status AppendDurable(const std::string& path, std::string_view data) override {
    return RealEnv()->AppendDurable(path, data);
  }
  Status Truncate(const std::string& path, uint64_t size) override {
    return RealEnv()->Truncate(path, size);
  }
  Status WriteMaildir(const std::string& dir, const std::string& name, std::string_view data,
                      int64_t owner = -1) override {
    if (Record("maildir " + Rel(dir) + "/new/" + name)) return Status::Io("cannot write: injected");
    return RealEnv()->WriteMaildir(dir, name, data, owner);
  }
  Result<uint64_t> FileSize(const std::string& path) override { return RealEnv()->FileSize(path); }
  Result<std::string> ReadAt(const std::string& path, uint64_t offset, size_t n) override {
    return RealEnv()->ReadAt(path, offset, n);
  }
  Result<std::string> ReadFile(const std::string& path, size_t max_bytes) override {
    return RealEnv()->ReadFile(path, max_bytes);
  }
  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    return RealEnv()->ListDir(path);
  }
  Result<std::vector<DirEntry>> ListEntries(const std::string& path) override {
    return RealEnv()->ListEntries(path);
  }
  bool Exists(const std::string& path) override { return RealEnv()->Exists(path); }

 private:
  bool Record(const std::string& call) {
    calls.push_back(call);
    return call.rfind(fail + " ", 0) == 0;
  }
  std::string Rel(const std::string& path) {
    return path.rfind(base_, 0) == 0 ? path.substr(base_.size()) : path;
  }
  std::string base_;
};

class DeliverMaildirTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"notify"};
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    // Canonical: delivery follows no symlink, not even one above the scratch directory.
    base_ = std::filesystem::canonical(scratch_.path()).string();
    inbox_ = base_ + "/inbox";
    ASSERT_EQ(mkdir(inbox_.c_str(), 0755), 0);
  }

  std::string Read(const std::string& rel) {
    std::stringstream s;
    s << std::ifstream(inbox_ + "/" + rel).rdbuf();
    return s.str();
  }
  std::vector<std::string> List(const std::string& rel) {
    return RealEnv()->ListDir(inbox_ + "/" + rel).value();
  }
  // DIR/tmp and DIR/new, as a requester makes them.
  static void MakeMaildir(const std::string& dir) {
    std::filesystem::create_directories(dir + "/tmp");
    std::filesystem::create_directories(dir + "/new");
  }

  std::string base_, inbox_;
};

TEST_F(DeliverMaildirTest, DeliversThroughTmpIntoNew) {
  MakeMaildir(inbox_);
  RecordingEnv env(inbox_);
  ASSERT_TRUE(DeliverMaildir(&env, inbox_, "M1.json", "{\"id\":\"M1\"}\n").ok());
  EXPECT_EQ(Read("new/M1.json"), "{\"id\":\"M1\"}\n");
  EXPECT_TRUE(List("tmp").empty());
  EXPECT_EQ(env.calls, (std::vector<std::string>{"maildir /new/M1.json"}));
  ASSERT_TRUE(DeliverMaildir(&env, inbox_, "M2.json", "2").ok());
  EXPECT_EQ(List("new"), (std::vector<std::string>{"M1.json", "M2.json"}));
  struct stat st {};
  ASSERT_EQ(stat((inbox_ + "/new/M2.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST_F(DeliverMaildirTest, MissingDirIsAnError) {
  Status s = DeliverMaildir(RealEnv(), base_ + "/nope", "M1.json", "x");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.message(), "cannot open dir " + base_ + "/nope: No such file or directory");
  EXPECT_FALSE(std::filesystem::exists(base_ + "/nope"));
}

// Regression (issue 17): hangard created DIR/tmp and DIR/new, so a notify.dir of "/etc" made a
// root hangard create /etc/tmp and /etc/new and write there. It creates no directory now.
TEST_F(DeliverMaildirTest, MissingTmpOrNewIsAnErrorAndNothingIsCreated) {
  Status s = DeliverMaildir(RealEnv(), inbox_, "M1.json", "x");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.message(), "cannot open dir " + inbox_ + "/tmp: No such file or directory");
  EXPECT_TRUE(List("").empty());
  ASSERT_EQ(mkdir((inbox_ + "/tmp").c_str(), 0755), 0);
  s = DeliverMaildir(RealEnv(), inbox_, "M1.json", "x");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.message(), "cannot open dir " + inbox_ + "/new: No such file or directory");
  EXPECT_EQ(List(""), std::vector<std::string>{"tmp"});
  EXPECT_TRUE(List("tmp").empty());
}

// Regression (issue 17): a new/ symlinked elsewhere made a root hangard write where it points.
TEST_F(DeliverMaildirTest, NoSymlinkIsFollowedOnTheWay) {
  const std::string elsewhere = base_ + "/elsewhere";
  MakeMaildir(elsewhere);
  const auto planted = [&](const std::string& link, const std::string& target) {
    std::filesystem::remove_all(inbox_);
    ASSERT_EQ(mkdir(inbox_.c_str(), 0755), 0);
    MakeMaildir(inbox_);
    std::filesystem::remove_all(inbox_ + "/" + link);
    ASSERT_EQ(symlink(target.c_str(), (inbox_ + "/" + link).c_str()), 0);
  };
  for (const char* sub : {"new", "tmp"}) {
    planted(sub, elsewhere + "/" + sub);
    Status s = DeliverMaildir(RealEnv(), inbox_, "M1.json", "x");
    EXPECT_EQ(s.code(), Code::kInvalid) << sub;
    EXPECT_EQ(s.message(),
              "cannot open dir " + inbox_ + "/" + sub + ": a symbolic link, not followed");
  }
  // The inbox itself, or a directory above it, a symlink to a real maildir.
  const std::string link = base_ + "/link";
  ASSERT_EQ(symlink(elsewhere.c_str(), link.c_str()), 0);
  for (const std::string& dir : {link, link + "/../elsewhere", base_ + "/./link"}) {
    Status s = DeliverMaildir(RealEnv(), dir, "M1.json", "x");
    EXPECT_EQ(s.code(), Code::kInvalid) << dir;
  }
  EXPECT_EQ(DeliverMaildir(RealEnv(), link, "M1.json", "x").message(),
            "cannot open dir " + link + ": a symbolic link, not followed");
  EXPECT_TRUE(RealEnv()->ListDir(elsewhere + "/new").value().empty());
  EXPECT_TRUE(RealEnv()->ListDir(elsewhere + "/tmp").value().empty());
  EXPECT_EQ(DeliverMaildir(RealEnv(), "inbox", "M1.json", "x").code(), Code::kInvalid);
}

// A symlink planted at tmp/NAME or new/NAME is replaced, never written through.
TEST_F(DeliverMaildirTest, ASymlinkAtTheFileNameIsReplacedNotFollowed) {
  MakeMaildir(inbox_);
  const std::string target = base_ + "/target";
  { std::ofstream(target) << "keep"; }
  ASSERT_EQ(symlink(target.c_str(), (inbox_ + "/tmp/M1.json").c_str()), 0);
  ASSERT_EQ(symlink(target.c_str(), (inbox_ + "/new/M2.json").c_str()), 0);
  ASSERT_TRUE(DeliverMaildir(RealEnv(), inbox_, "M1.json", "one").ok());
  ASSERT_TRUE(DeliverMaildir(RealEnv(), inbox_, "M2.json", "two").ok());
  EXPECT_EQ(Read("new/M1.json"), "one");
  EXPECT_EQ(Read("new/M2.json"), "two");
  EXPECT_FALSE(std::filesystem::is_symlink(inbox_ + "/new/M2.json"));
  std::stringstream kept;
  kept << std::ifstream(target).rdbuf();
  EXPECT_EQ(kept.str(), "keep");
  EXPECT_TRUE(List("tmp").empty());
}

TEST_F(DeliverMaildirTest, UnwritableDirIsAnError) {
  MakeMaildir(inbox_);
  RecordingEnv env(inbox_);
  env.fail = "maildir";
  EXPECT_EQ(DeliverMaildir(&env, inbox_, "M1.json", "x").message(), "cannot write: injected");
  EXPECT_TRUE(List("new").empty());
  if (geteuid() == 0) return;  // root writes anywhere: the injected failure stands for it
  ASSERT_EQ(chmod((inbox_ + "/tmp").c_str(), 0555), 0);
  Status s = DeliverMaildir(RealEnv(), inbox_, "M1.json", "x");
  chmod((inbox_ + "/tmp").c_str(), 0755);
  EXPECT_EQ(s.code(), Code::kIo);
  EXPECT_TRUE(List("new").empty());
}

TEST_F(DeliverMaildirTest, ReplacesAnOlderCopyAtomically) {
  MakeMaildir(inbox_);
  ASSERT_TRUE(DeliverMaildir(RealEnv(), inbox_, "M1.json", "old").ok());
  // What a crash between the write and the rename leaves: a copy in tmp/, the old one in new/.
  { std::ofstream(inbox_ + "/tmp/M1.json") << "half"; }
  EXPECT_EQ(Read("new/M1.json"), "old");
  ASSERT_TRUE(DeliverMaildir(RealEnv(), inbox_, "M1.json", "new").ok());
  EXPECT_EQ(Read("new/M1.json"), "new");
  EXPECT_EQ(List("new"), std::vector<std::string>{"M1.json"});
  EXPECT_TRUE(List("tmp").empty());
}

TEST_F(DeliverMaildirTest, NameMustBePlain) {
  MakeMaildir(inbox_);
  for (const char* name : {"", ".", "..", "../x", "a/b"}) {
    EXPECT_EQ(DeliverMaildir(RealEnv(), inbox_, name, "x").code(), Code::kInvalid) << name;
  }
  EXPECT_TRUE(List("new").empty());
  EXPECT_TRUE(List("tmp").empty());
}

}  // namespace
}  // namespace hangar
