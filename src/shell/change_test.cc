// The change of a workspace mission, computed on a real repository made here: what the room holds
// against its base, never what the room's own git (config, index, hooks) would say.
#include "shell/change.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "base/sha256.h"
#include "shell/git.h"

namespace hangar {
namespace {

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

int Sh(const std::string& cmd) {
  return std::system(cmd.c_str());
}

class ChangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (GitProgram().empty()) GTEST_SKIP() << "skipped: git is not installed";
    ASSERT_FALSE(dir_.path().empty());
    src_ = dir_.path() + "/src";
    room_ = dir_.path() + "/room";
    run_ = dir_.path() + "/run";
    const std::string g = "git -C " + src_ + " -c user.name=t -c user.email=t@t ";
    ASSERT_EQ(Sh("mkdir -p " + src_ + " " + room_ + "/ops " + run_ + " && " + g +
                 "init -q -b main && printf 'a\\n' >" + src_ + "/a.txt && printf 'b\\n' >" + src_ +
                 "/b.txt && " + g + "add -A && " + g + "commit -q -m base"),
              0);
    GitCall c;
    c.git_dir = src_ + "/.git";
    c.args = {"rev-parse", "HEAD"};
    base_ = RunGit(c).out.substr(0, 40);
    // The room as the launch makes it (launch/checkout.h): its own repository borrowing the
    // source's objects, the base checked out.
    ASSERT_EQ(
        Sh("git init -q --template= " + room_ + " && echo " + src_ + "/.git/objects >" + room_ +
           "/.git/objects/info/alternates && git -C " + room_ + " checkout -q --detach " + base_),
        0);
    std::optional<PlanWorkspace> ws = PlanWorkspace{src_, src_ + "/.git/objects", base_};
    ob_.id = "M1";
    ob_.room = room_;
    ob_.run = run_;
    ob_.workspace = ws;
    ob_.room_own = {"ops", "MISSION.md"};
  }
  std::string InRoom(const std::string& cmd) {
    return "cd " + room_ + " && git -c user.name=d -c user.email=d@d " + cmd;
  }

  ScratchDir dir_{"change"};
  std::string src_, room_, run_, base_;
  Observe ob_;
};

TEST_F(ChangeTest, ListsTheCommitsTheUncommittedFilesAndOnePatchOfBoth) {
  Write(room_ + "/a.txt", "a\nmore\n");
  ASSERT_EQ(Sh(InRoom("commit -q -am 'edit a'")), 0);
  Write(room_ + "/c.txt", "new\n");
  ASSERT_EQ(Sh("rm " + room_ + "/b.txt"), 0);
  Write(room_ + "/MISSION.md", "hangar's own\n");
  json::Value c = ObserveChange(ob_);
  ASSERT_TRUE(c.find("error")->is_null()) << json::Write(c);
  EXPECT_EQ(c.find("base")->as_string(), base_);
  ASSERT_EQ(c.find("commits")->as_array().size(), 1u);
  EXPECT_EQ(c.find("commits")->as_array()[0].find("subject")->as_string(), "edit a");
  std::string files;
  for (const json::Value& f : c.find("files")->as_array())
    files += f.find("status")->as_string() + ":" + f.find("path")->as_string() + " ";
  EXPECT_EQ(files, "M:a.txt D:b.txt A:c.txt ");  // MISSION.md and ops/ are hangar's, not the change
  EXPECT_EQ(c.find("uncommitted")->as_array().size(), 2u);
  std::ifstream in(run_ + "/change.patch", std::ios::binary);
  std::string patch((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(c.find("patch")->find("sha256")->as_string(), Sha256Hex(patch));
  EXPECT_NE(patch.find("+more"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(run_ + "/change.git"));  // the scratch repository goes
}

TEST_F(ChangeTest, TheRoomsOwnGitCannotHideOrForgeTheChange) {
  Write(room_ + "/a.txt", "changed\n");
  // A room index that says nothing changed, a config with an fsmonitor and an external diff,
  // and alternates pointed elsewhere: hangar reads none of them.
  ASSERT_EQ(Sh(InRoom("config core.fsmonitor 'touch " + dir_.path() + "/ran #' && " +
                      "git config diff.external 'touch " + dir_.path() + "/ran #'")),
            0);
  Write(room_ + "/.git/objects/info/alternates", dir_.path() + "/elsewhere\n");
  json::Value c = ObserveChange(ob_);
  ASSERT_TRUE(c.find("error")->is_null()) << json::Write(c);
  ASSERT_EQ(c.find("files")->as_array().size(), 1u);
  EXPECT_EQ(c.find("files")->as_array()[0].find("path")->as_string(), "a.txt");
  EXPECT_TRUE(c.find("room_objects"));  // the room's objects were not borrowed
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/ran"));
}

TEST_F(ChangeTest, AnObjectTheDronePlantedUnderTheFilesIdIsNotWhatThePatchHolds) {
  // The drone's final a.txt, and in the room's object store, under that content's id, an object
  // holding other bytes (git reads a blob without checking its hash): were the room's objects
  // borrowed for the tree, `git add` would find the id present and the patch would carry the fake.
  Write(room_ + "/a.txt", "the real edit\n");
  ASSERT_EQ(Sh(InRoom("commit -q -am 'a commit, so that the room objects are borrowed'")), 0);
  Write(room_ + "/a.txt", "the real edit\nand more\n");
  GitCall h;
  h.git_dir = room_ + "/.git";
  h.args = {"hash-object", room_ + "/a.txt"};
  const std::string id = RunGit(h).out.substr(0, 40);
  const std::string fake = dir_.path() + "/fake";
  ASSERT_EQ(Sh("git init -q " + fake + " && printf 'FORGED\\n' >" + fake + "/z && git -C " + fake +
               " hash-object -w z >" + fake + "/id && mkdir -p " + room_ + "/.git/objects/" +
               id.substr(0, 2) + " && cp " + fake + "/.git/objects/$(cut -c1-2 " + fake +
               "/id)/$(cut -c3- " + fake + "/id) " + room_ + "/.git/objects/" + id.substr(0, 2) +
               "/" + id.substr(2)),
            0);
  json::Value c = ObserveChange(ob_);
  ASSERT_TRUE(c.find("error")->is_null()) << json::Write(c);
  EXPECT_FALSE(c.find("room_objects"));  // the room's objects were borrowed, for the commits
  ASSERT_EQ(c.find("commits")->as_array().size(), 1u);
  std::ifstream in(run_ + "/change.patch", std::ios::binary);
  std::string patch((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(patch.find("+and more"), std::string::npos) << patch;
  EXPECT_EQ(patch.find("FORGED"), std::string::npos) << patch;
  EXPECT_EQ(c.find("files")->as_array()[0].find("added")->as_int(), 2);
}

TEST_F(ChangeTest, WhatTheRoomsGitignoreHidesIsListedAndHangarsFilesStayOut) {
  // A new directory the drone hides with its own .gitignore, and a top .gitignore that tries to
  // bring hangar's MISSION.md into the change.
  ASSERT_EQ(Sh("mkdir -p " + room_ + "/hid"), 0);
  Write(room_ + "/hid/.gitignore", "*\n");
  Write(room_ + "/hid/tool.sh", "hidden\n");
  Write(room_ + "/.gitignore", "!MISSION.md\n");
  Write(room_ + "/MISSION.md", "hangar's own\n");
  json::Value c = ObserveChange(ob_);
  ASSERT_TRUE(c.find("error")->is_null()) << json::Write(c);
  std::string files, ignored;
  for (const json::Value& f : c.find("files")->as_array())
    files += f.find("path")->as_string() + " ";
  for (const json::Value& f : c.find("ignored")->as_array()) ignored += f.as_string() + " ";
  EXPECT_EQ(files, ".gitignore ");
  EXPECT_EQ(ignored, "hid/.gitignore hid/tool.sh ");
}

TEST(JudgeChange, PassesOnlyInsideItsGlobsAndSize) {
  Result<json::Value> change = json::Parse(
      R"({"files":[{"status":"M","path":"src/a.c"},{"status":"R","from":"src/b.c","path":"ci.yml"}],
          "files_omitted":0,"error":null})");
  ASSERT_TRUE(change.ok());
  DoneCheck c;
  c.kind = DoneCheck::Kind::kChanged;
  c.paths = {"src/*"};
  json::Object r = JudgeChange(c, *change);
  EXPECT_FALSE(r["passed"].as_bool());
  EXPECT_EQ(r["detail"].as_string(), "ci.yml changed, outside the check's paths");
  c.paths = {"src/*", "ci.yml"};
  EXPECT_TRUE(JudgeChange(c, *change)["passed"].as_bool());
  c.max_files = 1;
  EXPECT_EQ(JudgeChange(c, *change)["detail"].as_string(), "2 files changed, more than 1");
  EXPECT_FALSE(JudgeChange(c, nullptr)["passed"].as_bool());  // nothing computed: never passes
}

}  // namespace
}  // namespace hangar
