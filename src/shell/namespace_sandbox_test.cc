#include "shell/namespace_sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"
#include "shell/network_namespace.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

// PARSE(ARGS): what ParseNamespaceSandboxArgs reads from "--sandbox ARGS... rest", its error in
// *ERROR and where it stopped in *AT.
NamespaceSandbox Parse(std::vector<std::string> args, std::string* error, int* at) {
  args.insert(args.begin(), {"hangar-confine", "--sandbox"});
  args.push_back("rest");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  NamespaceSandbox s;
  *at = 2;
  *error = ParseNamespaceSandboxArgs(int(argv.size()), argv.data(), at, &s);
  return s;
}

TEST(NamespaceSandboxArgs, ReadBackAsWritten) {
  NamespaceSandbox s;
  s.cut_network = false;
  s.shm_bytes = 64 << 20;
  s.hide_dirs = {"/s/spool", "/home/u/.ssh"};
  s.hide_files = {"/etc/shadow"};
  s.binds = {{7, "/s/spool/rooms/M", true, ""},
             {8, "/w", true, ""},
             {9, "/r", false, ""},
             {10, "/s/spool/running/M/run/last", true, "/s/spool/queued/M/run/last"}};
  s.socket = "/s/run/M/egress.sock";
  s.chdir = "/s/spool/rooms/M";
  std::string error;
  int at = 0;
  NamespaceSandbox got = Parse(NamespaceSandboxArgs(s), &error, &at);
  ASSERT_EQ(error, "");
  EXPECT_EQ(got.cut_network, false);
  EXPECT_EQ(got.shm_bytes, s.shm_bytes);
  EXPECT_EQ(got.hide_dirs, s.hide_dirs);
  EXPECT_EQ(got.hide_files, s.hide_files);
  EXPECT_EQ(got.binds, s.binds);
  EXPECT_EQ(got.socket, s.socket);
  EXPECT_EQ(got.chdir, s.chdir);
  EXPECT_EQ(at, 2 + int(NamespaceSandboxArgs(s).size()));  // at "rest"
}

TEST(NamespaceSandboxArgs, TheNetworkIsCutUnlessSaidOtherwise) {
  NamespaceSandbox s;
  s.chdir = "/r";
  EXPECT_EQ(NamespaceSandboxArgs(s), (std::vector<std::string>{"--chdir", "/r", "--"}));
  std::string error;
  int at = 0;
  EXPECT_TRUE(Parse({"--chdir", "/r", "--"}, &error, &at).cut_network);
  EXPECT_EQ(error, "");
}

TEST(NamespaceSandboxArgs, BadArgumentsSayWhich) {
  std::string error;
  int at = 0;
  Parse({"--chdir", "/r"}, &error, &at);  // no "--": "rest" is not an argument of its
  EXPECT_NE(error.find("unexpected rest"), std::string::npos) << error;
  Parse({"--bind", "2", "/r", "--chdir", "/r", "--"}, &error, &at);
  EXPECT_NE(error.find("a descriptor above 2"), std::string::npos) << error;
  Parse({"--bind", "7", "r", "--chdir", "/r", "--"}, &error, &at);
  EXPECT_NE(error.find("an absolute path"), std::string::npos) << error;
  Parse({"--hide-dir", "relative", "--chdir", "/r", "--"}, &error, &at);
  EXPECT_NE(error.find("--hide-dir: expected an absolute path"), std::string::npos) << error;
  Parse({"--shm", "64M", "--chdir", "/r", "--"}, &error, &at);
  EXPECT_NE(error.find("--shm: expected a size in bytes"), std::string::npos) << error;
  Parse({"--"}, &error, &at);
  EXPECT_NE(error.find("expected --chdir"), std::string::npos) << error;
  Parse({"--unshare-everything", "--chdir", "/r", "--"}, &error, &at);
  EXPECT_NE(error.find("unexpected --unshare-everything"), std::string::npos) << error;
}

TEST(NamespaceSandboxProbe, SaysWhatTheHostRefuses) {
  // As the test's user, and (root) as nobody: the same probe the sandbox's first steps are. It
  // passes where hangar-confine --sandbox runs (the tests below), and names the step otherwise.
  for (const int64_t uid : {int64_t(-1), geteuid() == 0 ? int64_t(65534) : int64_t(-1)}) {
    const std::string why = NamespaceSandboxUnavailable(uid, uid);
    if (!why.empty()) {
      EXPECT_EQ(why.rfind("cannot ", 0), 0u) << why;
      GTEST_SKIP() << "this host refuses the sandbox: " << why;
    }
  }
  // A drone user this process cannot become (it is nobody, or drops to nobody): the step is named.
  const pid_t child = fork();
  if (child == 0) {
    if (geteuid() == 0 && setresuid(65534, 65534, 65534) != 0) _exit(2);
    _exit(NamespaceSandboxUnavailable(0, 0).find("cannot become the drone's user") == 0 ? 0 : 1);
  }
  int status = -1;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// hangar-confine, built beside the test binary.
std::string Confine() {
  return fs::read_symlink("/proc/self/exe").parent_path() / "hangar-confine";
}

struct Ran {
  int status = -1;
  std::string err;
};

// Runs CHILD in a forked child whose stderr is ERR_FILE (CHILD executes a program or exits; 127
// when it returns), and gives its wait status and what it wrote there.
Ran RunForked(const std::string& err_file, const std::function<void()>& child) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(err, 2);
    child();
    _exit(127);
  }
  Ran r;
  waitpid(pid, &r.status, 0);
  std::ifstream in(err_file);
  std::stringstream text;
  text << in.rdbuf();
  r.err = text.str();
  return r;
}

// Runs hangar-confine --sandbox ARGS -- unix-deny PROGRAM..., inheriting FD (and, with
// IGNORE_SIGCHLD, SIGCHLD ignored, as a careless caller could leave it).
Ran RunConfine(const std::vector<std::string>& args, int fd, const std::string& err_file,
               bool ignore_sigchld = false) {
  std::vector<std::string> all = {Confine(), "--sandbox"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  return RunForked(err_file, [&] {
    fcntl(fd, F_SETFD, 0);
    if (ignore_sigchld) signal(SIGCHLD, SIG_IGN);
    execv(argv[0], argv.data());
  });
}

// A scratch room and its descriptor, for the attacks below.
class NamespaceSandboxRoom : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::canonical(scratch_.path());
    room_ = dir_ + "/room";
    fs::create_directory(room_);
    fd_ = open(room_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd_, 3);
  }
  void TearDown() override { close(fd_); }

  // Runs SCRIPT in the sandbox with the room bound, and ARGS before the room's bind.
  Ran Run(const std::string& script, std::vector<std::string> args = {},
          bool ignore_sigchld = false) {
    args.insert(args.end(), {"--bind", std::to_string(fd_), room_, "--chdir", room_, "--",
                             "unix-deny", "/bin/sh", "-c", script});
    Ran r = RunConfine(args, fd_, dir_ + "/err", ignore_sigchld);
    if (r.err.find("cannot unshare") != std::string::npos) skip_ = true;
    return r;
  }
  std::string Read(const std::string& name) {
    std::ifstream in(room_ + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  ScratchDir scratch_{"nssandbox"};
  std::string dir_, room_;
  int fd_ = -1;
  bool skip_ = false;
};

TEST_F(NamespaceSandboxRoom, ARoomSwappedAfterHangarOpenedItIsNotBound) {
  // The attack: hangar opens the room, the drone's requester (or a drone before) swaps the path
  // for another directory before the sandbox binds it by path. The proof: the program, which
  // would write into the room it was given, never runs.
  fs::rename(room_, dir_ + "/room.judged");
  fs::create_directory(room_);  // another directory at the judged path
  Ran r = Run("echo ran > " + room_ + "/proof");
  if (skip_) GTEST_SKIP() << "no user namespaces here: " << r.err;
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 126) << r.status << " " << r.err;
  EXPECT_NE(r.err.find("is no longer the file hangar opened"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(room_ + "/proof"));
  EXPECT_FALSE(fs::exists(dir_ + "/room.judged/proof"));
}

TEST_F(NamespaceSandboxRoom, TheRoomIsWritableAndNothingElseIsAndTheDroneHoldsNoCapability) {
  Ran r = Run("echo in > in; echo out > " + dir_ +
              "/out; grep CapEff /proc/self/status > caps; ls /proc | grep -c '^[0-9]' > pids; "
              "exit 3");
  if (skip_) GTEST_SKIP() << "no user namespaces here: " << r.err;
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3) << r.status << " " << r.err;
  EXPECT_EQ(Read("in"), "in\n");
  EXPECT_FALSE(fs::exists(dir_ + "/out"));
  EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
  EXPECT_EQ(Read("caps"), "CapEff:\t0000000000000000\n");
  // Its own PID namespace: the sandbox's first process, the shell and the ls (and the grep).
  EXPECT_LE(std::stoi(Read("pids")), 4) << Read("pids");
}

TEST_F(NamespaceSandboxRoom, ADeviceNodeOutsideDevDoesNotOpen) {
  // The attack: a device node on a filesystem the host did not mount nodev (a build chroot's
  // /dev, an unpacked root filesystem). Without nodev on the machine's mounts, a root-run drone
  // could open a disk's node and write it raw; the proof here is that the open succeeds.
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  ASSERT_EQ(mknod((dir_ + "/null-node").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  Ran r = Run("echo x > " + dir_ + "/null-node && echo opened > proof");
  if (skip_) GTEST_SKIP() << "no user namespaces here: " << r.err;
  EXPECT_FALSE(fs::exists(room_ + "/proof")) << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
}

TEST_F(NamespaceSandboxRoom, TheHostsDeviceNodesWorkButDoNotChange) {
  // The attack: a root-run drone owns the host's /dev/null, bound into its /dev; chmod 000 would
  // break every program of the machine. The proof, harmless if it succeeds: its time set to 2001.
  if (geteuid() != 0) GTEST_SKIP() << "only a root-run drone owns /dev/null";
  struct stat before {};
  ASSERT_EQ(stat("/dev/null", &before), 0);
  Ran r = Run("echo x > /dev/null && echo wrote > wrote; TZ=UTC touch -d 2001-01-01 /dev/null");
  if (skip_) GTEST_SKIP() << "no user namespaces here: " << r.err;
  struct stat after {};
  ASSERT_EQ(stat("/dev/null", &after), 0);
  EXPECT_EQ(Read("wrote"), "wrote\n") << r.err;
  EXPECT_NE(after.st_mtime, 978307200) << r.err;  // 2001-01-01 UTC
  EXPECT_EQ(after.st_mode, before.st_mode);
  EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
}

TEST_F(NamespaceSandboxRoom, HiddenPathsAreHiddenUnderProcToo) {
  // bwrap mounts its /proc before the hidden paths; hidden under the host's /proc and then covered
  // by the new one, /proc/version would be read. A file elsewhere is hidden before the binds.
  std::ofstream(dir_ + "/secret.txt") << "TOPSECRET\n";
  Ran r = Run(
      "cat /proc/version > version; ls /proc/driver > driver; cat " + dir_ + "/secret.txt > secret",
      {"--hide-file", "/proc/version", "--hide-dir", "/proc/driver", "--hide-file",
       dir_ + "/secret.txt"});
  if (skip_) GTEST_SKIP() << "no user namespaces here: " << r.err;
  EXPECT_EQ(Read("version"), "") << r.err;
  EXPECT_EQ(Read("driver"), "") << r.err;
  EXPECT_EQ(Read("secret"), "") << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
}

TEST_F(NamespaceSandboxRoom, AHiddenPathGoneSinceItWasListedIsPassedOver) {
  // A user removed between the shim's listing and the sandbox (userdel -r while a launch starts):
  // the drone runs, and what is there is still hidden, under /proc too.
  std::ofstream(dir_ + "/secret.txt") << "TOPSECRET\n";
  fs::create_directory(dir_ + "/vault");
  std::ofstream(dir_ + "/vault/key") << "TOPSECRET\n";
  Ran r = Run("echo ran > ran; cat " + dir_ + "/secret.txt > secret; cat " + dir_ +
                  "/vault/key > key; cat /proc/version > version",
              {"--hide-dir", dir_ + "/gone-home/.aws", "--hide-file", dir_ + "/gone-file",
               "--hide-dir", "/proc/gone", "--hide-file", dir_ + "/secret.txt", "--hide-dir",
               dir_ + "/vault", "--hide-file", "/proc/version"});
  if (skip_) GTEST_SKIP() << "no user namespaces here: " << r.err;
  ASSERT_EQ(Read("ran"), "ran\n") << r.err;
  EXPECT_EQ(Read("secret"), "") << r.err;
  EXPECT_EQ(Read("key"), "") << r.err;
  EXPECT_EQ(Read("version"), "") << r.err;
}

// A hidden directory removed on the host after its cover was mounted, before the covers are made
// read-only (another test's user deleted while a launch started: make test's crash sweep met it):
// that cover went with its mount point and is passed over, and the others are still made
// read-only.
TEST(NamespaceSandboxCovers, ACoverWhosePathWasRemovedMeanwhileIsPassedOver) {
  ScratchDir scratch{"nscovers"};
  const std::string dir = fs::canonical(scratch.path());
  fs::create_directories(dir + "/home/.aws");
  fs::create_directory(dir + "/kept");
  int ready[2], go[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(go), 0);
  const std::string err_file = dir + "/err";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(30);
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) _exit(3);
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) _exit(4);
    for (const std::string& d : {dir + "/home/.aws", dir + "/kept"})
      if (mount("tmpfs", d.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0) _exit(5);
    char c = 'r';
    if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) _exit(6);
    const std::string why = ReadOnlyCovers({dir + "/home/.aws", dir + "/kept"});
    if (!why.empty()) {
      std::ofstream(err_file) << why;
      _exit(1);
    }
    const int fd = open((dir + "/kept/x").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    _exit(fd < 0 && errno == EROFS ? 0 : 2);
  }
  char c = 0;
  const bool up = read(ready[0], &c, 1) == 1;
  if (up) fs::remove_all(dir + "/home");  // on the host, while the child's cover is mounted
  EXPECT_EQ(write(go[1], "g", 1), 1);
  int status = -1;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "no user namespaces here";
  ASSERT_TRUE(up) << "the child did not mount its covers (exit " << WEXITSTATUS(status) << ")";
  std::ifstream in(err_file);
  std::stringstream why;
  why << in.rdbuf();
  EXPECT_EQ(WEXITSTATUS(status), 0) << "exit " << WEXITSTATUS(status) << ": " << why.str();
}

TEST_F(NamespaceSandboxRoom, TheNamespacesFirstProcessHoldsNoCapability) {
  // PID 1 of the drone's namespace holds the mounts' rights until it drops them: a drone that
  // reached it could lay the hidden paths open.
  Ran r = Run("grep -E '^Cap(Eff|Prm|Bnd)' /proc/1/status > caps");
  if (skip_) GTEST_SKIP() << "no user namespaces here: " << r.err;
  EXPECT_EQ(Read("caps"),
            "CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n")
      << r.err;
}

TEST_F(NamespaceSandboxRoom, TheDronesExitStatusComesBackWithSigchldIgnored) {
  Ran r = Run("exit 3", {}, true);
  if (skip_) GTEST_SKIP() << "no user namespaces here: " << r.err;
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3) << r.status << " " << r.err;
}

// Runs SCRIPT in the sandbox SPEC made in a forked child, as the supervisor's child for a drone
// makes it (no hangar-confine executed), after entering NET (-1: none); why it refused in err.
Ran RunEntered(const NamespaceSandbox& spec, int net, const std::string& script,
               const std::string& err_file) {
  return RunForked(err_file, [&] {
    if (net >= 0 && setns(net, CLONE_NEWNET) != 0) _exit(100);
    const std::string why = EnterNamespaceSandbox(spec);
    if (!why.empty()) {
      (void)!write(2, why.data(), why.size());
      _exit(126);
    }
    execl("/bin/sh", "sh", "-c", script.c_str(), nullptr);
  });
}

TEST_F(NamespaceSandboxRoom, ANetworkEnteredBeforeIsTheDronesAndMustBeCut) {
  NamespaceSandbox spec;
  spec.network_entered = true;
  spec.binds = {{fd_, room_, true, ""}};
  spec.chdir = room_;
  const std::string script =
      "readlink /proc/self/ns/net > ns; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' > "
      "interfaces";
  // Said entered but not: the host's network is refused before anything runs (a host with an
  // interface but the loopback).
  bool host_has_more = false;
  for (const auto& e : fs::directory_iterator("/sys/class/net"))
    host_has_more = host_has_more || e.path().filename() != "lo";
  if (host_has_more) {
    Ran r = RunEntered(spec, -1, script, dir_ + "/err");
    EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 126) << r.status << " " << r.err;
    EXPECT_NE(r.err.find("the network is not cut: it has "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(room_ + "/ns"));
  }
  // Entered (root): the drone is in that namespace, none made in its place, the loopback alone.
  std::string why;
  const int net = MakeNetworkNamespace(&why);
  if (net == -1) GTEST_SKIP() << "no network namespace made ahead for this user: " << why;
  ASSERT_GE(net, 0) << why;
  struct stat made {};
  ASSERT_EQ(fstat(net, &made), 0);
  Ran r = RunEntered(spec, net, script, dir_ + "/err");
  close(net);
  if (r.err.find("cannot unshare") != std::string::npos) GTEST_SKIP() << r.err;
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.status << " " << r.err;
  EXPECT_EQ(Read("ns"), "net:[" + std::to_string(made.st_ino) + "]\n");
  EXPECT_EQ(Read("interfaces"), "lo\n");
}

}  // namespace
}  // namespace hangar
