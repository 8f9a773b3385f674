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
  std::string fail;  // "write", "rename" or "mkdir": that call fails without doing anything

  TimeMs Now() override { return RealEnv()->Now(); }
  Status WriteFileAtomic(const std::string& dir, const std::string& name,
                         std::string_view data) override {
    if (Record("write " + Rel(dir) + "/" + name)) return Status::Io("cannot write: injected");
    return RealEnv()->WriteFileAtomic(dir, name, data);
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
  Status AppendDurable(const std::string& path, std::string_view data) override {
    return RealEnv()->AppendDurable(path, data);
  }
  Status Truncate(const std::string& path, uint64_t size) override {
    return RealEnv()->Truncate(path, size);
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
    base_ = scratch_.path();
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

  std::string base_, inbox_;
};

TEST_F(DeliverMaildirTest, DeliversThroughTmpIntoNew) {
  RecordingEnv env(inbox_);
  ASSERT_TRUE(DeliverMaildir(&env, inbox_, "M1.json", "{\"id\":\"M1\"}\n").ok());
  EXPECT_EQ(Read("new/M1.json"), "{\"id\":\"M1\"}\n");
  EXPECT_TRUE(List("tmp").empty());
  EXPECT_EQ(env.calls, (std::vector<std::string>{"mkdir /tmp", "mkdir /new", "write /tmp/M1.json",
                                                 "rename /tmp/M1.json /new/M1.json"}));
  env.calls.clear();
  ASSERT_TRUE(DeliverMaildir(&env, inbox_, "M2.json", "2").ok());  // tmp/ and new/ are there now
  EXPECT_EQ(env.calls.size(), 2u);
  EXPECT_EQ(List("new"), (std::vector<std::string>{"M1.json", "M2.json"}));
}

TEST_F(DeliverMaildirTest, MissingDirIsAnError) {
  Status s = DeliverMaildir(RealEnv(), base_ + "/nope", "M1.json", "x");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.message(), "cannot deliver M1.json to " + base_ + "/nope: no such directory");
  EXPECT_FALSE(std::filesystem::exists(base_ + "/nope"));
}

TEST_F(DeliverMaildirTest, UnwritableDirIsAnError) {
  RecordingEnv env(inbox_);
  env.fail = "mkdir";
  EXPECT_EQ(DeliverMaildir(&env, inbox_, "M1.json", "x").message(), "cannot mkdir: injected");
  EXPECT_TRUE(List("").empty());
  if (geteuid() == 0) return;  // root writes anywhere: the injected failure stands for it
  ASSERT_EQ(chmod(inbox_.c_str(), 0555), 0);
  Status s = DeliverMaildir(RealEnv(), inbox_, "M1.json", "x");
  chmod(inbox_.c_str(), 0755);
  EXPECT_EQ(s.code(), Code::kIo);
}

TEST_F(DeliverMaildirTest, ReplacesAnOlderCopyAtomically) {
  ASSERT_TRUE(DeliverMaildir(RealEnv(), inbox_, "M1.json", "old").ok());
  RecordingEnv env(inbox_);
  env.fail = "rename";  // a crash between the write and the rename
  EXPECT_FALSE(DeliverMaildir(&env, inbox_, "M1.json", "new").ok());
  EXPECT_EQ(Read("new/M1.json"), "old");
  env.fail = "";
  ASSERT_TRUE(DeliverMaildir(&env, inbox_, "M1.json", "new").ok());
  EXPECT_EQ(Read("new/M1.json"), "new");
  EXPECT_EQ(List("new"), std::vector<std::string>{"M1.json"});
  EXPECT_TRUE(List("tmp").empty());
}

TEST_F(DeliverMaildirTest, NameMustBePlain) {
  for (const char* name : {"", ".", "..", "../x", "a/b"}) {
    EXPECT_EQ(DeliverMaildir(RealEnv(), inbox_, name, "x").code(), Code::kInvalid) << name;
  }
  EXPECT_TRUE(List("").empty());
}

}  // namespace
}  // namespace hangar
