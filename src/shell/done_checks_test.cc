#include "shell/done_checks.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/scratch_dir_testutil.h"
#include "base/sha256.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

const std::map<std::string, std::string> kEnv = {{"PATH", "/usr/bin:/bin"}, {"LANG", "C"}};

int OpenFds() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

// True when PID is gone or a zombie: killed, waiting for its new parent to reap it.
bool Dead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  return line.substr(line.rfind(')') + 2, 1) == "Z";
}

// The sandbox checks run in: bwrap, and bin/hangar-confine beside this test binary.
CheckSandbox Sandbox(std::vector<std::string> hide = {}) {
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  return {"/usr/bin/bwrap", (self.parent_path() / "hangar-confine").string(), std::move(hide)};
}

// Whether a process whose command line holds TOKEN still runs (a zombie does not count).
bool Running(const std::string& token) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = e.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(token) != std::string::npos && !Dead(std::stoi(pid))) return true;
  }
  return false;
}

DoneCheck File(const std::string& path) {
  DoneCheck c;
  c.kind = DoneCheck::Kind::kFile;
  c.file = path;
  return c;
}

DoneCheck RunCheck(std::vector<std::string> argv, int rc = 0, int64_t timeout_ms = 60000) {
  DoneCheck c;
  c.kind = DoneCheck::Kind::kRun;
  c.argv = std::move(argv);
  c.rc = rc;
  c.timeout_ms = timeout_ms;
  return c;
}

class RunDoneChecksTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"checks"};
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    base_ = scratch_.path();
    room_ = base_ + "/room";
    out_ = base_ + "/run";
    ASSERT_EQ(mkdir(room_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(out_.c_str(), 0755), 0);
  }
  void TearDown() override {
    int status = 0;
    EXPECT_EQ(waitpid(-1, &status, WNOHANG), -1) << "a child was left behind";
    EXPECT_EQ(errno, ECHILD);
  }

  void Write(const std::string& rel, const std::string& data) {
    std::ofstream(room_ + "/" + rel, std::ios::binary) << data;
  }
  json::Value One(const DoneCheck& c) {
    CheckRun run = RunDoneChecks(room_, {c}, kEnv, out_, Sandbox());
    EXPECT_EQ(run.results.as_array().size(), 1u);
    EXPECT_EQ(run.all_passed, run.results.as_array()[0].find("passed")->as_bool());
    return run.results.as_array()[0];
  }
  std::string Detail(const std::string& path) {
    return One(File(path)).find("detail")->as_string();
  }

  std::string base_, room_, out_;
};

TEST_F(RunDoneChecksTest, NoChecksAllPass) {
  CheckRun run = RunDoneChecks(room_, {}, kEnv, out_, Sandbox());
  EXPECT_TRUE(run.all_passed);
  EXPECT_TRUE(run.results.as_array().empty());
}

TEST_F(RunDoneChecksTest, FileChecks) {
  ASSERT_EQ(mkdir((room_ + "/src").c_str(), 0755), 0);
  Write("src/report.md", "done\n");
  json::Value r = One(File("src/report.md"));
  EXPECT_TRUE(r.find("passed")->as_bool());
  EXPECT_EQ(r.find("detail")->as_string(), "regular file, 5 bytes");
  EXPECT_EQ(json::Write(*r.find("check")), R"({"file":"src/report.md"})");
  EXPECT_EQ(Detail("src/nope.md"), "missing");
  EXPECT_EQ(Detail("nodir/report.md"), "missing");
  EXPECT_EQ(Detail("src"), "a directory, not a regular file");
  EXPECT_EQ(Detail("src/report.md/x"), "cannot open dir src/report.md: Not a directory");
  EXPECT_EQ(Detail("../room/src/report.md"), "cannot open dir ..: \"..\" leaves the room");
  EXPECT_EQ(Detail("/etc/passwd"), "not a path inside the room");
}

TEST_F(RunDoneChecksTest, FileChecksNeverFollowSymlinks) {
  ASSERT_EQ(symlink("/etc", (room_ + "/dir").c_str()), 0);
  ASSERT_EQ(symlink("/etc/passwd", (room_ + "/passwd").c_str()), 0);
  json::Value r = One(File("dir/passwd"));
  EXPECT_FALSE(r.find("passed")->as_bool());
  EXPECT_EQ(r.find("detail")->as_string(), "cannot open dir dir: a symbolic link, not followed");
  EXPECT_EQ(Detail("passwd"), "a symbolic link, not followed");
}

TEST_F(RunDoneChecksTest, RunCheckPassesAndKeepsItsOutput) {
  Write("marker", "in the room\n");
  json::Value r = One(RunCheck({"sh", "-c", "cat marker; echo err >&2; cat; exit 3"}, 3));
  EXPECT_TRUE(r.find("passed")->as_bool());
  EXPECT_EQ(r.find("rc")->as_int(), 3);
  EXPECT_TRUE(r.find("signal")->is_null());
  EXPECT_FALSE(r.find("timed_out")->as_bool());
  EXPECT_TRUE(r.find("error")->is_null());
  const std::string want = "in the room\nerr\n";  // stdin is /dev/null: cat ends at once
  EXPECT_EQ(ReadText(out_ + "/check-1.out"), want);
  const json::Value& out = *r.find("output");
  EXPECT_EQ(out.find("file")->as_string(), "check-1.out");
  EXPECT_EQ(out.find("size")->as_int(), int64_t(want.size()));
  EXPECT_EQ(out.find("sha256")->as_string(), Sha256Hex(want));
}

TEST_F(RunDoneChecksTest, RunCheckSeesOnlyItsEnvironment) {
  setenv("HANGAR_TEST_LEAK", "1", 1);
  One(RunCheck({"env"}));
  unsetenv("HANGAR_TEST_LEAK");
  // PWD is bubblewrap's (--chdir), nothing of this process's.
  EXPECT_EQ(ReadText(out_ + "/check-1.out"), "LANG=C\nPATH=/usr/bin:/bin\nPWD=" + room_ + "\n");
}

TEST_F(RunDoneChecksTest, WrongStatusFails) {
  json::Value r = One(RunCheck({"false"}));
  EXPECT_FALSE(r.find("passed")->as_bool());
  EXPECT_EQ(r.find("rc")->as_int(), 1);
  EXPECT_TRUE(r.find("error")->is_null());
}

TEST_F(RunDoneChecksTest, SignalledFails) {
  // Inside the sandbox's pid namespace the check is bubblewrap's child: bwrap tells a death by
  // signal N as its own exit status 128 + N.
  json::Value r = One(RunCheck({"sh", "-c", "kill -TERM $$"}, 0));
  EXPECT_FALSE(r.find("passed")->as_bool());
  EXPECT_EQ(r.find("rc")->as_int(), 128 + SIGTERM);
}

// The background sleeps are told apart by their odd durations (a pid inside the sandbox's pid
// namespace names nothing outside it).
TEST_F(RunDoneChecksTest, TimeoutKillsTheWholeGroup) {
  json::Value r = One(RunCheck({"sh", "-c", "sleep 30.0417 & echo started; sleep 30"}, 0, 300));
  EXPECT_FALSE(r.find("passed")->as_bool());
  EXPECT_TRUE(r.find("timed_out")->as_bool());
  EXPECT_EQ(r.find("signal")->as_int(), SIGKILL);
  EXPECT_GE(r.find("duration_ms")->as_int(), 300);
  // The background sleep was there to be killed, not killed before it began.
  EXPECT_EQ(ReadText(out_ + "/check-1.out"), "started\n");
  for (int i = 0; i < 100 && Running("30.0417"); i++) usleep(10000);
  EXPECT_FALSE(Running("30.0417"));
}

TEST_F(RunDoneChecksTest, LeftoversAreKilledAfterANormalExit) {
  json::Value r = One(RunCheck({"sh", "-c", "sleep 30.0419 & echo started"}));
  EXPECT_TRUE(r.find("passed")->as_bool());
  EXPECT_LT(r.find("duration_ms")->as_int(), 5000);
  for (int i = 0; i < 100 && Running("30.0419"); i++) usleep(10000);
  EXPECT_FALSE(Running("30.0419"));
}

TEST_F(RunDoneChecksTest, ProgramNotFound) {
  json::Value r = One(RunCheck({"no-such-program-hangar"}));
  EXPECT_FALSE(r.find("passed")->as_bool());
  EXPECT_TRUE(r.find("rc")->is_null());
  EXPECT_TRUE(r.find("output")->is_null());
  EXPECT_EQ(r.find("error")->as_string(),
            "cannot run no-such-program-hangar: program not found in PATH");
  CheckRun none = RunDoneChecks(room_, {RunCheck({"true"})}, {}, out_, Sandbox());  // no PATH, no lookup
  EXPECT_FALSE(none.all_passed);
}

TEST_F(RunDoneChecksTest, ExecFailureIsReportedAndReaped) {
  Write("notexec", "no shebang, no ELF\n");
  ASSERT_EQ(chmod((room_ + "/notexec").c_str(), 0755), 0);
  json::Value r = One(RunCheck({"./notexec"}));
  EXPECT_FALSE(r.find("passed")->as_bool());
  EXPECT_EQ(r.find("rc")->as_int(), 127);  // hangar-confine could not execute it
  EXPECT_EQ(ReadText(out_ + "/check-1.out"),
            "hangar-confine: cannot execute ./notexec: Exec format error\n");
}

// The check's program may be the drone's (./check.sh) or steered by the drone's files: it reads
// no more than the drone could, writes nothing, reaches no socket and holds no capability.
TEST_F(RunDoneChecksTest, ACheckRunsInTheDronesSandbox) {
  const std::string secret = base_ + "/secret";
  ASSERT_EQ(mkdir(secret.c_str(), 0755), 0);
  std::ofstream(secret + "/key") << "TOPSECRET";
  Write("check.sh",
        "#!/bin/sh\ncat " + secret + "/key; echo planted >planted; echo out >" + base_ + "/proof;"
        " grep -E '^Cap(Eff|Bnd)' /proc/self/status;"
        " python3 -c 'import socket; socket.socket(socket.AF_UNIX)' 2>/dev/null || echo no-unix\n");
  ASSERT_EQ(chmod((room_ + "/check.sh").c_str(), 0755), 0);
  // In bubblewrap, and in hangar-confine's own sandbox (a drone of engine "namespaces").
  for (const bool own : {false, true}) {
    CheckSandbox sandbox = Sandbox({secret});
    if (own) sandbox.bwrap.clear();
    sandbox.namespaces = own;
    CheckRun run = RunDoneChecks(room_, {RunCheck({"./check.sh"})}, kEnv, out_, sandbox);
    const std::string out = ReadText(out_ + "/check-1.out");
    EXPECT_EQ(out.find("TOPSECRET"), std::string::npos) << own << out;
    EXPECT_FALSE(std::filesystem::exists(room_ + "/planted")) << own;
    EXPECT_FALSE(std::filesystem::exists(base_ + "/proof")) << own;
    EXPECT_NE(out.find("CapEff:\t0000000000000000\nCapBnd:\t0000000000000000"),
              std::string::npos)
        << own << out;
    EXPECT_NE(out.find("no-unix"), std::string::npos) << own << out;
  }
}

TEST_F(RunDoneChecksTest, NoBubblewrapRunsNoCheck) {
  CheckSandbox none = Sandbox();
  none.bwrap.clear();
  CheckRun run = RunDoneChecks(room_, {RunCheck({"true"}), File("x")}, kEnv, out_, none);
  EXPECT_FALSE(run.all_passed);
  EXPECT_EQ(run.results.as_array()[0].find("error")->as_string(),
            "cannot run true: bubblewrap (bwrap) is not installed, and a check never runs "
            "unsandboxed");
}

TEST_F(RunDoneChecksTest, MixedChecksNumberOutputsByPosition) {
  Write("a", "");
  CheckRun run =
      RunDoneChecks(room_, {File("a"), RunCheck({"echo", "two"}), File("b")}, kEnv, out_,
                    Sandbox());
  EXPECT_FALSE(run.all_passed);
  const json::Array& rs = run.results.as_array();
  EXPECT_TRUE(rs[0].find("passed")->as_bool());
  EXPECT_TRUE(rs[1].find("passed")->as_bool());
  EXPECT_FALSE(rs[2].find("passed")->as_bool());
  EXPECT_EQ(ReadText(out_ + "/check-2.out"), "two\n");
  EXPECT_FALSE(std::filesystem::exists(out_ + "/check-1.out"));
}

TEST_F(RunDoneChecksTest, SymlinkedRoomFailsEveryCheck) {
  std::string link = base_ + "/link";
  ASSERT_EQ(symlink(room_.c_str(), link.c_str()), 0);
  CheckRun run = RunDoneChecks(link, {RunCheck({"true"})}, kEnv, out_, Sandbox());
  EXPECT_FALSE(run.all_passed);
  EXPECT_EQ(run.results.as_array()[0].find("error")->as_string(),
            "cannot open room " + link + ": a symbolic link, not followed");
}

TEST_F(RunDoneChecksTest, ParallelRunsNeitherWaitForNorLeakIntoEachOther) {
  int fds = OpenFds();
  ASSERT_EQ(mkdir((base_ + "/run2").c_str(), 0755), 0);
  CheckRun slow, fast;
  // Ordering, not timing: the fast run starts once the slow check runs, and the slow check runs
  // until the fast run has ended and said so with the file "go" in the room. A run that waited
  // for another's child would hold the fast one until the slow one's timeout: then the slow check
  // times out and ends first.
  std::atomic<int> order{0};
  int fast_done = 0, slow_done = 0;
  std::thread a([&] {
    DoneCheck waits =
        RunCheck({"sh", "-c", "echo waiting; until [ -e go ]; do sleep 0.01; done"}, 0, 30000);
    slow = RunDoneChecks(room_, {waits}, kEnv, out_, Sandbox());
    slow_done = ++order;
  });
  std::thread b([&] {
    for (int i = 0; i < 3000 && ReadText(out_ + "/check-1.out") != "waiting\n"; i++) usleep(10000);
    std::vector<DoneCheck> many(20, RunCheck({"true"}));
    fast = RunDoneChecks(room_, many, kEnv, base_ + "/run2", Sandbox());
    fast_done = ++order;
    Write("go", "");
  });
  a.join();
  b.join();
  EXPECT_TRUE(fast.all_passed);
  EXPECT_TRUE(slow.all_passed);
  EXPECT_FALSE(slow.results.as_array()[0].find("timed_out")->as_bool());
  EXPECT_LT(fast_done, slow_done) << "a run waited for another's child";
  EXPECT_EQ(OpenFds(), fds);
}

}  // namespace
}  // namespace hangar
