// The launch's checkout of a workspace mission, on a real repository made here: a fresh room
// becomes a checkout of the commit, a retried room stays as its drone left it, and any other .git
// in the room fails the launch, naming it, with no git run in it.
#include "launch/checkout.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/scratch_dir_testutil.h"
#include "shell/git.h"

namespace hangar {
namespace {

int Sh(const std::string& cmd) {
  return std::system(cmd.c_str());
}

class CheckoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (GitProgram().empty()) GTEST_SKIP() << "skipped: git is not installed";
    ASSERT_FALSE(dir_.path().empty());
    const std::string src = dir_.path() + "/src";
    const std::string g = "git -C " + src + " -c user.name=t -c user.email=t@t ";
    ASSERT_EQ(Sh("mkdir -p " + src + " && " + g + "init -q -b main && printf 'a\\n' >" + src +
                 "/a.txt && " + g + "add -A && " + g + "commit -q -m base"),
              0);
    GitCall c;
    c.git_dir = src + "/.git";
    c.args = {"rev-parse", "HEAD"};
    plan_.id = "M1";
    plan_.room = dir_.path() + "/room";
    plan_.workspace = PlanWorkspace{src, src + "/.git/objects", RunGit(c).out.substr(0, 40)};
    ASSERT_EQ(Sh("mkdir -p " + plan_.room), 0);
  }
  std::string Head() {
    GitCall c;
    c.git_dir = plan_.room + "/.git";
    c.args = {"rev-parse", "HEAD"};
    return RunGit(c).out.substr(0, 40);
  }

  ScratchDir dir_{"checkout"};
  Plan plan_;
};

TEST_F(CheckoutTest, MakesTheRoomACheckoutOfTheCommitBorrowingTheSourcesObjects) {
  ASSERT_TRUE(MakeCheckout(plan_).ok());
  EXPECT_EQ(ReadText(plan_.room + "/a.txt"), "a\n");
  EXPECT_EQ(Head(), plan_.workspace->commit);
  EXPECT_EQ(ReadText(plan_.room + "/.git/objects/info/alternates"),
            plan_.workspace->objects + "\n");
  // Nothing of it is registered in the source: no worktree to prune.
  EXPECT_NE(Sh("test -e " + plan_.workspace->git + "/.git/worktrees"), 0);
}

TEST_F(CheckoutTest, ACommitHoldingWhatHangarPutsInTheRoomFailsNamingIt) {
  // git would replace the room's empty ops/ (the window's requests) by the commit's file ops.
  const std::string src = plan_.workspace->git;
  const std::string g = "git -C " + src + " -c user.name=t -c user.email=t@t ";
  ASSERT_EQ(Sh("printf x >" + src + "/ops && " + g + "add ops && " + g + "commit -q -m ops"), 0);
  GitCall c;
  c.git_dir = src + "/.git";
  c.args = {"rev-parse", "HEAD"};
  plan_.workspace->commit = RunGit(c).out.substr(0, 40);
  ASSERT_EQ(Sh("mkdir -p " + plan_.room + "/ops"), 0);
  Status s = MakeCheckout(plan_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the commit holds ops"), std::string::npos) << s.message();
  EXPECT_EQ(Sh("test -d " + plan_.room + "/ops"), 0);
}

TEST_F(CheckoutTest, ARetriedRoomStaysAsItsDroneLeftIt) {
  ASSERT_TRUE(MakeCheckout(plan_).ok());
  ASSERT_EQ(Sh("cd " + plan_.room + " && printf 'drone\\n' >>a.txt && git -c user.name=d " +
               "-c user.email=d@d commit -q -am drone && printf 'left\\n' >b.txt"),
            0);
  const std::string drone_head = Head();
  ASSERT_NE(drone_head, plan_.workspace->commit);
  Status s = MakeCheckout(plan_);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Head(), drone_head);
  EXPECT_EQ(ReadText(plan_.room + "/a.txt"), "a\ndrone\n");
  EXPECT_EQ(ReadText(plan_.room + "/b.txt"), "left\n");
}

TEST_F(CheckoutTest, NoGitRunsInADroneLeftGitWithoutACommit) {
  // A drone's .git with HEAD on an unborn branch and a smudge filter in its config: were the
  // checkout to run git there, the filter would run outside the sandbox.
  const std::string proof = dir_.path() + "/filter-ran";
  ASSERT_EQ(Sh("git init -q --template= " + plan_.room + " && echo " + plan_.workspace->objects +
               " >" + plan_.room + "/.git/objects/info/alternates && git -C " + plan_.room +
               " config filter.x.smudge 'touch " + proof + "; cat' && mkdir -p " + plan_.room +
               "/.git/info && echo '* filter=x' >" + plan_.room + "/.git/info/attributes"),
            0);
  Status s = MakeCheckout(plan_);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("remove " + plan_.room + "/.git"), std::string::npos) << s.message();
  EXPECT_NE(Sh("test -e " + proof), 0) << "the drone's smudge filter ran";
}

TEST_F(CheckoutTest, AnyOtherGitInTheRoomFailsNamingIt) {
  // A .git that borrows from elsewhere and has no commit: not this checkout's start.
  ASSERT_EQ(Sh("git init -q --template= " + plan_.room + " && echo /elsewhere >" + plan_.room +
               "/.git/objects/info/alternates"),
            0);
  Status s = MakeCheckout(plan_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the room holds a .git"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("remove " + plan_.room + "/.git"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace hangar
