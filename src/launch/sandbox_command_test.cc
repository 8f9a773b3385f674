#include "launch/sandbox_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"
#include "shell/landlock.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;
using Argv = std::vector<std::string>;

// A scratch tree on the real disk (SandboxCommand asks the disk, not a chroot):
//   room/  run/  secrets/key  notes.txt  target/  hidden-link -> target  work/
class SandboxCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    dir_ = fs::canonical(scratch_.path());
    for (const char* d : {"/room", "/run", "/secrets", "/target", "/work"})
      fs::create_directory(dir_ + d);
    std::ofstream(dir_ + "/secrets/key") << "k";
    std::ofstream(dir_ + "/notes.txt") << "n";
    fs::create_directory_symlink(dir_ + "/target", dir_ + "/hidden-link");
  }

  Plan MakePlan() {
    Plan p;
    p.id = "M";
    p.argv = {"drone", "--flag", "two words"};
    p.room = dir_ + "/room";
    p.run = dir_ + "/run";
    p.network = "none";
    p.sandbox.engine = "bwrap";
    p.sandbox.bwrap = "/usr/bin/bwrap";
    p.sandbox.write = {p.room};
    return p;
  }

  // What every bwrap command starts with: a user namespace without capabilities, the machine.
  static Argv Head() {
    return {"/usr/bin/bwrap",
            "--unshare-user",
            "--disable-userns",
            "--cap-drop",
            "ALL",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc"};
  }

  // What every bwrap command ends with, after --unshare-net when there is one: hangar-confine
  // between bwrap and the drone, with unix sockets denied where the network is cut.
  Argv Tail(const char* sockets = "unix-deny") {
    return {"--chdir", dir_ + "/room",   "--",     kConfine,
            sockets,   "/usr/bin/drone", "--flag", "two words"};
  }

  // The number of the Nth descriptor the command binds.
  static std::string Fd(const DroneCommand& cmd, size_t n) {
    return n < cmd.fds.size() ? std::to_string(cmd.fds[n].get()) : "(none)";
  }

  // Whether FD is the file at PATH now (same device and inode).
  static bool SameFile(const UniqueFd& fd, const std::string& path) {
    struct stat a {
    }, b{};
    return fstat(fd.get(), &a) == 0 && stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
  }

  static constexpr const char* kConfine = "/opt/hangar/bin/hangar-confine";

  static Argv Cat(std::initializer_list<Argv> parts) {
    Argv out;
    for (const Argv& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  }

  ScratchDir scratch_{"sandbox"};
  std::string dir_;
};

TEST_F(SandboxCommandTest, EngineNoneRunsTheProgramAsThePlanSays) {
  Plan p = MakePlan();
  p.sandbox.engine = "none";
  p.sandbox.hide = {dir_ + "/secrets"};
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(cmd->exe, "/usr/bin/drone");
  EXPECT_EQ(cmd->argv, p.argv);  // argv[0] as the plan wrote it, not the path found
}

TEST_F(SandboxCommandTest, BwrapHidesBindsAndCutsTheNetwork) {
  Plan p = MakePlan();
  p.sandbox.hide = {dir_ + "/gone/away", dir_ + "/hidden-link", dir_ + "/notes.txt",
                    dir_ + "/secrets"};
  p.sandbox.write = {p.room, dir_ + "/work"};
  p.last_message = dir_ + "/run/last-message.txt";
  std::ofstream(p.last_message) << "";  // the supervisor made it
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(cmd->exe, "/usr/bin/bwrap");
  EXPECT_EQ(cmd->argv,
            Cat({Head(),
                 {
                     // gone/away does not exist: nothing to hide, left out
                     "--tmpfs",           dir_ + "/target",   // the link's target, not the link
                     "--tmpfs",           dir_ + "/secrets",  //
                     "--ro-bind",         "/dev/null",
                     dir_ + "/notes.txt",  // files after dirs
                     "--bind-fd",         Fd(*cmd, 0),
                     dir_ + "/room",  //
                     "--bind-fd",         Fd(*cmd, 1),
                     dir_ + "/work",  //
                     "--bind-fd",         Fd(*cmd, 2),
                     p.last_message,  //
                     "--remount-ro",      dir_ + "/target",
                     "--remount-ro",      dir_ + "/secrets",
                     "--remount-ro",      "/dev",  // the hiding tmpfs and /dev, read-only
                     "--unshare-pid",     "--unshare-ipc",
                     "--die-with-parent",
                     "--unshare-net",  //
                 },
                 Tail()}));
  ASSERT_EQ(cmd->fds.size(), 3u);
  EXPECT_TRUE(SameFile(cmd->fds[0], p.room));
  EXPECT_TRUE(SameFile(cmd->fds[1], dir_ + "/work"));
  EXPECT_TRUE(SameFile(cmd->fds[2], p.last_message));
  std::vector<int> inherit = cmd->inherit();
  EXPECT_EQ(inherit.size(), 3u);
  for (int fd : inherit) EXPECT_GT(fd, 2);
}

TEST_F(SandboxCommandTest, NamespacesHaveConfineMakeTheSameSandboxWithoutBwrap) {
  // Engine "namespaces": the hidden paths, binds and descriptors bwrap would get, said to
  // hangar-confine --sandbox (shell/namespace_sandbox.h), which makes them itself.
  Plan p = MakePlan();
  p.sandbox.engine = "namespaces";
  p.sandbox.bwrap = "";
  p.sandbox.hide = {dir_ + "/gone/away", dir_ + "/hidden-link", dir_ + "/notes.txt",
                    dir_ + "/secrets"};
  p.sandbox.write = {p.room, dir_ + "/work"};
  p.last_message = dir_ + "/run/last-message.txt";
  std::ofstream(p.last_message) << "";
  p.shm_mb = 64;
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(cmd->exe, kConfine);
  EXPECT_EQ(cmd->argv,
            Argv({kConfine,         "--sandbox",       "--shm",        std::to_string(64 << 20),
                  "--hide-dir",
                  dir_ + "/target",  // the link's target, not the link
                  "--hide-dir",     dir_ + "/secrets", "--hide-file",  dir_ + "/notes.txt",
                  "--bind",         Fd(*cmd, 0),       dir_ + "/room", "--bind",
                  Fd(*cmd, 1),      dir_ + "/work",    "--bind",       Fd(*cmd, 2),
                  p.last_message,   "--chdir",         dir_ + "/room", "--",
                  "unix-deny",      "/usr/bin/drone",  "--flag",       "two words"}));
  ASSERT_EQ(cmd->fds.size(), 3u);
  EXPECT_TRUE(SameFile(cmd->fds[0], p.room));
  EXPECT_TRUE(SameFile(cmd->fds[1], dir_ + "/work"));
  EXPECT_TRUE(SameFile(cmd->fds[2], p.last_message));
  // Network "host": the one thing said the other way (a missing word leaves it cut).
  p.network = "host";
  Result<DroneCommand> host = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(host->argv[2], "--share-net");
  EXPECT_EQ(std::find(host->argv.begin(), host->argv.end(), "unix-allow") - host->argv.begin(),
            ptrdiff_t(host->argv.size()) - 4);
}

// Before the launch's move (launch/supervisor.h, RunShimBegun) the run directory is elsewhere: the
// last-message file is opened there, and bound from there or, once moved, from its name, at its
// name. Nothing else of the plan is looked for there.
TEST_F(SandboxCommandTest, ALastMessageFileBeforeTheMoveIsBoundFromWhereItIs) {
  Plan p = MakePlan();
  p.sandbox.engine = "namespaces";
  p.sandbox.bwrap = "";
  p.last_message = dir_ + "/run/last-message.txt";  // its name after the move
  fs::create_directory(dir_ + "/queued");
  const std::string now = dir_ + "/queued/last-message.txt";
  std::ofstream(now) << "";
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0, dir_ + "/queued");
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  auto at = std::find(cmd->argv.begin(), cmd->argv.end(), "--bind-moving");
  ASSERT_NE(at, cmd->argv.end());
  ASSERT_GE(cmd->argv.end() - at, 4);
  EXPECT_EQ(*(at + 2), now);
  EXPECT_EQ(*(at + 3), p.last_message);
  ASSERT_EQ(cmd->fds.size(), 2u);
  EXPECT_TRUE(SameFile(cmd->fds[1], now));
  // Moved already: opened at its name, still said both ways.
  fs::rename(now, p.last_message);
  Result<DroneCommand> moved = SandboxCommand(p, "/usr/bin/drone", kConfine, 0, dir_ + "/queued");
  ASSERT_TRUE(moved.ok()) << moved.status().message();
  ASSERT_EQ(moved->fds.size(), 2u);
  EXPECT_TRUE(SameFile(moved->fds[1], p.last_message));
  // Where a path is before the move: only a file below the run directory, cut off its very path.
  EXPECT_EQ(InRunNow(p, dir_ + "/queued", p.last_message), now);
  EXPECT_EQ(InRunNow(p, dir_ + "/queued", dir_ + "/room/x"), dir_ + "/room/x");
  EXPECT_EQ(InRunNow(p, dir_ + "/queued", dir_ + "/run"), dir_ + "/run");
  EXPECT_EQ(InRunNow(p, dir_ + "/queued", dir_ + "/./run/x"), dir_ + "/./run/x");
  EXPECT_EQ(InRunNow(p, "", p.last_message), p.last_message);
  EXPECT_EQ(RunRelative(p, dir_ + "/run/a/b"), "a/b");
  EXPECT_EQ(RunRelative(p, dir_ + "/runner/a"), "");
}

TEST_F(SandboxCommandTest, WithLandlockConfineHidesEveryPathAndFilesGetNoMount) {
  // A mount over a file is detached when the host replaces the file by rename (shell/landlock.h):
  // with Landlock, confine enters a ruleset that hides every hidden path, existing or not, and no
  // file is mounted over.
  Plan p = MakePlan();
  p.sandbox.hide = {dir_ + "/gone/away", dir_ + "/hidden-link", dir_ + "/notes.txt",
                    dir_ + "/secrets"};
  p.sandbox.write = {p.room, dir_ + "/work"};
  p.last_message = dir_ + "/run/last-message.txt";
  std::ofstream(p.last_message) << "";
  p.sandbox.landlock_abi = kLandlockHidesFrom;
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, kLandlockHidesFrom);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(cmd->argv, Cat({Head(),
                            {
                                "--tmpfs",
                                dir_ + "/target",  // directories still get a tmpfs
                                "--tmpfs",
                                dir_ + "/secrets",  //
                                "--bind-fd",
                                Fd(*cmd, 0),
                                dir_ + "/room",  //
                                "--bind-fd",
                                Fd(*cmd, 1),
                                dir_ + "/work",  //
                                "--bind-fd",
                                Fd(*cmd, 2),
                                p.last_message,  //
                                "--remount-ro",
                                dir_ + "/target",
                                "--remount-ro",
                                dir_ + "/secrets",
                                "--remount-ro",
                                "/dev",
                                "--unshare-pid",
                                "--unshare-ipc",
                                "--die-with-parent",
                                "--unshare-net",  //
                                "--chdir",
                                dir_ + "/room",
                                "--",
                                kConfine,
                                "--landlock",
                                Fd(*cmd, 3),  // the ruleset (shell/landlock_test.cc)
                                "unix-deny",
                                "/usr/bin/drone",
                                "--flag",
                                "two words",
                            }}));
  ASSERT_EQ(cmd->fds.size(), 4u);
  EXPECT_EQ(cmd->inherit().size(), 4u);  // the ruleset reaches confine
}

TEST_F(SandboxCommandTest, WithLandlockAndNothingHiddenConfineGetsNoRuleset) {
  Plan p = MakePlan();
  p.sandbox.landlock_abi = kLandlockHidesFrom;
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, kLandlockHidesFrom);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(cmd->argv,
            Cat({Head(),
                 {"--bind-fd", Fd(*cmd, 0), dir_ + "/room", "--remount-ro", "/dev", "--unshare-pid",
                  "--unshare-ipc", "--die-with-parent", "--unshare-net"},
                 Tail()}));
}

TEST_F(SandboxCommandTest, EgressNeedsLandlock) {
  // Egress's forwarder runs beside the drone outside the filter: without Landlock's rule against
  // tracing a less restricted process, the drone could drive it. No egress launch then.
  Plan p = MakePlan();
  p.network = "egress";
  p.egress.socket = dir_ + "/run/egress.sock";
  p.egress.forwarder = "/usr/bin/socat";
  p.egress.port = 3128;
  p.sandbox.hide = {dir_ + "/secrets"};
  Result<DroneCommand> without = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_FALSE(without.ok());
  EXPECT_NE(without.status().message().find("network \"egress\" needs a Landlock ruleset"),
            std::string::npos)
      << without.status().message();
  p.sandbox.landlock_abi = kLandlockHidesFrom;
  Result<DroneCommand> with = SandboxCommand(p, "/usr/bin/drone", kConfine, kLandlockHidesFrom);
  ASSERT_TRUE(with.ok()) << with.status().message();
  const Argv& a = with->argv;
  auto at = std::find(a.begin(), a.end(), kConfine);
  ASSERT_NE(at, a.end());
  EXPECT_EQ(Argv(at, at + 7), (Argv{kConfine, "--forward", "3128", "/usr/bin/socat",
                                    p.egress.socket, "--landlock", Fd(*with, 1)}));
}

// Never less than the plan (a Slurm node's kernel may not be hangard's host's): a plan that names
// a ruleset is not run where the kernel cannot make one, and nothing starts; where the kernel can,
// the ruleset hides whatever the plan says (a plan from a host without Landlock, or one written
// before plans said), for the ruleset needs ABI 2's rights only.
TEST_F(SandboxCommandTest, NeverLessLandlockThanThePlanAndAsMuchAsTheKernelCan) {
  Plan p = MakePlan();
  p.sandbox.hide = {dir_ + "/secrets"};
  auto ruled = [&](int plan_abi, int kernel_abi) -> Result<bool> {
    p.sandbox.landlock_abi = plan_abi;
    Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, kernel_abi);
    if (!cmd.ok()) return cmd.status();
    return std::count(cmd->argv.begin(), cmd->argv.end(), "--landlock") == 1;
  };
  for (int kernel : {0, 1}) {
    Result<bool> r = ruled(7, kernel);
    ASSERT_FALSE(r.ok()) << kernel;
    EXPECT_EQ(r.status().code(), Code::kUnavailable);
    EXPECT_EQ(r.status().message(),
              std::string("the plan's sandbox hides paths by a Landlock ruleset (ABI 7 on "
                          "hangard's host), and this kernel has ") +
                  (kernel ? "ABI 1, too old to make it" : "no Landlock") +
                  ": the drone is not run in less of a sandbox than its plan");
  }
  EXPECT_TRUE(*ruled(7, 3)) << "a node with another ABI of 2 or later makes the same ruleset";
  EXPECT_TRUE(*ruled(0, 7)) << "hangard's host had none: the node's kernel hides more";
  EXPECT_TRUE(*ruled(kLandlockUnsaid, 7)) << "a plan of hangar-kernel/3: as its supervisor did";
  EXPECT_FALSE(*ruled(kLandlockUnsaid, 0));
  EXPECT_FALSE(*ruled(0, 1));
}

TEST_F(SandboxCommandTest, AFileHiddenBeforeItsDirectoryGetsNoMountInsideTheTmpfs) {
  // Directories are mounted first: a file inside one, named before it, is hidden by its tmpfs
  // (a /dev/null bind there would make its name appear in the empty directory).
  Plan p = MakePlan();
  p.sandbox.hide = {dir_ + "/secrets/key", dir_ + "/secrets"};
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(std::count(cmd->argv.begin(), cmd->argv.end(), dir_ + "/secrets/key"), 0);
  EXPECT_EQ(std::count(cmd->argv.begin(), cmd->argv.end(), dir_ + "/secrets"), 2);  // tmpfs, ro
}

TEST_F(SandboxCommandTest, LastMessageInTheRoomAndHostNetworkAddNothing) {
  Plan p = MakePlan();
  p.last_message = dir_ + "/room/last-message.txt";  // the room's bind covers it
  p.network = "host";
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(cmd->argv, Cat({Head(),
                            {"--bind-fd", Fd(*cmd, 0), dir_ + "/room", "--remount-ro", "/dev",
                             "--unshare-pid", "--unshare-ipc", "--die-with-parent"},
                            Tail("unix-allow")}));
}

TEST_F(SandboxCommandTest, WritesAreBoundInThePlansOrder) {
  Plan p = MakePlan();
  fs::create_directory(dir_ + "/more");
  p.sandbox.write = {p.room, dir_ + "/work", dir_ + "/more"};
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(cmd->argv,
            Cat({Head(),
                 {"--bind-fd", Fd(*cmd, 0), dir_ + "/room", "--bind-fd", Fd(*cmd, 1),
                  dir_ + "/work", "--bind-fd", Fd(*cmd, 2), dir_ + "/more", "--remount-ro", "/dev",
                  "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--unshare-net"},
                 Tail()}));
}

TEST_F(SandboxCommandTest, MissingWriteIsRefused) {
  Plan p = MakePlan();
  p.sandbox.write = {p.room, dir_ + "/no-such-dir"};
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_FALSE(cmd.ok());
  EXPECT_EQ(cmd.status().code(), Code::kNotFound);
  EXPECT_EQ(cmd.status().message(), "cannot bind " + dir_ +
                                        "/no-such-dir writable into the sandbox: No such file or "
                                        "directory");
}

TEST_F(SandboxCommandTest, WriteSwappedForASymlinkIsRefused) {
  // The gate judged dir_/work; since then it became a link to a directory elsewhere.
  Plan p = MakePlan();
  fs::remove(dir_ + "/work");
  fs::create_directory_symlink(dir_ + "/secrets", dir_ + "/work");
  p.sandbox.write = {p.room, dir_ + "/work"};
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_FALSE(cmd.ok());
  EXPECT_EQ(cmd.status().code(), Code::kInvalid);
  EXPECT_NE(
      cmd.status().message().find("write " + dir_ + "/work now resolves to " + dir_ + "/secrets"),
      std::string::npos)
      << cmd.status().message();
}

TEST_F(SandboxCommandTest, ThePlansLimitsSizeDevShm) {
  Plan p = MakePlan();
  p.shm_mb = 64;
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(cmd->argv, Cat({Head(),
                            {"--size", "67108864", "--tmpfs", "/dev/shm", "--bind-fd", Fd(*cmd, 0),
                             dir_ + "/room", "--remount-ro", "/dev", "--unshare-pid",
                             "--unshare-ipc", "--die-with-parent", "--unshare-net"},
                            Tail()}));
}

TEST_F(SandboxCommandTest, LinkInAnEarlierComponentIsRefused) {
  // Not only the last component: a link anywhere on the way is a path the gate did not judge.
  Plan p = MakePlan();
  fs::create_directory(dir_ + "/target/inner");
  p.sandbox.write = {p.room, dir_ + "/hidden-link/inner"};
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_FALSE(cmd.ok());
  EXPECT_NE(cmd.status().message().find("now resolves to " + dir_ + "/target/inner"),
            std::string::npos)
      << cmd.status().message();
}

TEST_F(SandboxCommandTest, SwapAfterTheCommandIsBuiltDoesNotMoveTheBind) {
  // bwrap binds what was opened: a directory swapped for a link to a secret once the command is
  // built (the race of renameat2(RENAME_EXCHANGE) in a loop) leaves the descriptor on the
  // directory the gate judged, never on the secret.
  Plan p = MakePlan();
  p.sandbox.write = {p.room, dir_ + "/work"};
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  struct stat judged {};
  ASSERT_EQ(stat((dir_ + "/work").c_str(), &judged), 0);
  fs::rename(dir_ + "/work", dir_ + "/work.old");
  fs::create_directory_symlink(dir_ + "/secrets", dir_ + "/work");
  struct stat bound {};
  ASSERT_EQ(fstat(cmd->fds[1].get(), &bound), 0);
  EXPECT_EQ(bound.st_ino, judged.st_ino);
  EXPECT_FALSE(SameFile(cmd->fds[1], dir_ + "/work"));  // now the secret, which is not bound
}

TEST_F(SandboxCommandTest, RoomThatIsALinkIsRefused) {
  Plan p = MakePlan();
  fs::remove(dir_ + "/room");
  fs::create_directory_symlink(dir_ + "/secrets", dir_ + "/room");
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_FALSE(cmd.ok());
  EXPECT_NE(cmd.status().message().find("a symbolic link, not followed"), std::string::npos)
      << cmd.status().message();
}

TEST_F(SandboxCommandTest, UnknownEngineIsRefused) {
  Plan p = MakePlan();
  p.sandbox.engine = "firejail";
  Result<DroneCommand> cmd = SandboxCommand(p, "/usr/bin/drone", kConfine, 0);
  ASSERT_FALSE(cmd.ok());
  EXPECT_EQ(cmd.status().code(), Code::kInvalid);
  EXPECT_EQ(cmd.status().message(), "sandbox engine \"firejail\" is unknown");
}

}  // namespace
}  // namespace hangar
