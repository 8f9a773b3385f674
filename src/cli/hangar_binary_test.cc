// Drives the built bin/hangar (beside this test binary) on scratch spools, as a user would.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/json.h"
#include "cli/scratch_spool_testutil.h"
#include "cli/spool_view.h"
#include "kernel/mission.h"

namespace hangar::cli {
namespace {

constexpr TimeMs kT0 = 1'800'000'000'000;

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string HangarBinary() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().string() + "/hangar";
}

struct Ran {
  int rc = -1;
  std::string out, err;
};

// A running `hangar` with stdin from a file and stdout/stderr to files under dir.
class Child {
 public:
  Child(const std::string& dir, const std::vector<std::string>& args, const std::string& input)
      : dir_(dir) {
    std::ofstream(dir_ + "/stdin", std::ios::binary) << input;
    std::vector<std::string> argv = {HangarBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) {
      dup2(open((dir_ + "/stdin").c_str(), O_RDONLY), 0);
      dup2(open((dir_ + "/stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
      dup2(open((dir_ + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
      std::vector<char*> cargv;
      for (std::string& a : argv) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      execv(cargv[0], cargv.data());
      _exit(127);
    }
  }
  Ran Finish() {
    int st = 0;
    waitpid(pid_, &st, 0);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, Slurp(dir_ + "/stdout"), Slurp(dir_ + "/stderr")};
  }

 private:
  std::string dir_;
  pid_t pid_;
};

class HangarBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(HangarBinary())) << HangarBinary() << " is not built";
  }
  Child Start(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--spool", s.spool()});
    const std::string dir = s.root() + "/run" + std::to_string(runs_++);
    std::filesystem::create_directories(dir);
    return Child(dir, args, input);
  }
  Ran Run(std::vector<std::string> args, const std::string& input = "") {
    return Start(args, input).Finish();
  }
  json::Value ParsedOut(const Ran& r) {
    auto v = json::Parse(r.out);
    EXPECT_TRUE(v.ok()) << r.out;
    return v.ok() ? *v : json::Value();
  }
  std::vector<std::string> Incoming() {
    std::vector<std::string> names;
    for (const char* d : {"incoming/new", "incoming/tmp"})
      for (auto& e : std::filesystem::directory_iterator(s.spool() + "/" + d))
        names.push_back(e.path().string());
    return names;
  }
  std::string Mission(const std::string& id_field = "") {
    return ScratchSpool::MissionText("fake", id_field);
  }

  ScratchSpool s;
  int runs_ = 0;
};

TEST_F(HangarBinaryTest, SubmitDropsTheExactBytesAndPrintsTheId) {
  const std::string bytes = Mission();
  s.Write(s.root() + "/m.json", bytes);
  Ran r = Run({"--no-wait", "submit", s.root() + "/m.json"});  // no hangard here to take it in
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string id = r.out.substr(0, r.out.size() - 1);
  EXPECT_EQ(r.out, id + "\n");
  EXPECT_TRUE(ValidId(id));
  EXPECT_EQ(Slurp(s.spool() + "/incoming/new/" + id), bytes);
  EXPECT_EQ(Incoming().size(), 1u);  // nothing left in incoming/tmp
}

TEST_F(HangarBinaryTest, SubmitFromStdinWithJsonNamesTheFile) {
  Ran r = Run({"--json", "--no-wait", "submit", "-"}, Mission("m-given"));
  ASSERT_EQ(r.rc, 0) << r.err;
  json::Value v = ParsedOut(r);
  EXPECT_EQ(StringField(v, "id"), "m-given");
  EXPECT_EQ(Slurp(s.spool() + "/" + StringField(v, "file")), Mission("m-given"));
}

TEST_F(HangarBinaryTest, SubmitInvalidNamesTheFieldAndWritesNothing) {
  s.Write(s.root() + "/bad.json",
          "{\"hangar\":1,\"requester\":\"a\",\"drone\":\"fake\",\"future\":\"f\",\"now\":\"n\","
          "\"max_minutes\":3,\"done_when\":[{\"run\":[\"true\"],\"rc\":300}]}");
  Ran r = Run({"submit", s.root() + "/bad.json"});
  EXPECT_EQ(r.rc, 65);
  EXPECT_EQ(r.err, "hangar: cannot submit " + s.root() +
                       "/bad.json: done_when[0].rc: expected an exit status from 0 to 255\n");
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(Incoming().empty());
}

TEST_F(HangarBinaryTest, SubmitRefusesAnIdAlreadyInTheSpool) {
  s.AddMission(Phase::kQueued, "dup", kT0);
  Ran r = Run({"submit", "-"}, Mission("dup"));
  EXPECT_EQ(r.rc, 65);
  EXPECT_NE(r.err.find("id dup is already in the spool (queued)"), std::string::npos) << r.err;
  EXPECT_TRUE(Incoming().empty());
}

TEST_F(HangarBinaryTest, SubmitChecksTheDroneAgainstTheConfig) {
  s.Write("hangar.conf", "{\"hangar\":1,\"profiles\":{\"codex\":{\"argv\":[\"codex\",\"exec\"]}}}");
  Ran r = Run({"submit", "-"}, Mission());
  EXPECT_EQ(r.rc, 65);
  EXPECT_NE(r.err.find("drone: no profile \"fake\""), std::string::npos) << r.err;
  s.Write("hangar.conf", "{\"hangar\":2}");
  EXPECT_EQ(Run({"submit", "-"}, Mission()).rc, 78);
  EXPECT_TRUE(Incoming().empty());
  EXPECT_EQ(Run({"--config", s.root() + "/absent.conf", "submit", "-"}, Mission()).rc, 78);
}

TEST_F(HangarBinaryTest, SubmitRefusesWhatIsNoRegularFile) {
  EXPECT_EQ(Run({"submit", s.root()}).rc, 66);
  EXPECT_EQ(Run({"submit", s.root() + "/absent.json"}).rc, 66);
}

TEST_F(HangarBinaryTest, LsShowStatusGiveJson) {
  s.AddMission(Phase::kQueued, "q1", kT0);
  s.AddReturned("r1", kT0, "done");
  s.Write("notify/r1.json",
          "{\"hangar\":1,\"id\":\"r1\",\"dir\":\"/in\",\"reason\":\"inbox full\"}");

  json::Value ls = ParsedOut(Run({"ls", "--json"}));
  ASSERT_TRUE(ls.is_array());
  ASSERT_EQ(ls.as_array().size(), 2u);
  EXPECT_EQ(StringField(ls.as_array()[1], "outcome"), "done");
  EXPECT_EQ(StringField(ls.as_array()[1], "time"), FormatTime(kT0));

  json::Value show = ParsedOut(Run({"--json", "show", "r1"}));
  EXPECT_EQ(StringField(show, "state"), "returned");
  EXPECT_EQ(StringField(*show.find("return"), "outcome"), "done");
  EXPECT_EQ(StringField(*show.find("mission"), "drone"), "fake");
  EXPECT_TRUE(show.find("why")->is_null());

  json::Value st = ParsedOut(Run({"status", "--json"}));
  EXPECT_EQ(*st.find("kernel")->find("alive"), json::Value(false));
  EXPECT_EQ(*st.find("counts")->find("queued"), json::Value(1));
  EXPECT_EQ(StringField(*st.find("oldest")->find("queued"), "id"), "q1");
  EXPECT_TRUE(st.find("oldest")->find("hold")->is_null());
  ASSERT_EQ(st.find("notify_waiting")->as_array().size(), 1u);
  EXPECT_EQ(StringField(st.find("notify_waiting")->as_array()[0], "reason"), "inbox full");
}

TEST_F(HangarBinaryTest, LsAndShowForPeople) {
  s.AddMission(Phase::kQueued, "q1", kT0);
  Ran ls = Run({"ls"});
  EXPECT_EQ(ls.rc, 0);
  EXPECT_EQ(ls.out.substr(0, ls.out.find('\n')), "ID  STATE   AGE  ELAPSED  DRONE  OUTCOME  WHY");
  EXPECT_EQ(Run({"ls", "nonsense"}).rc, 64);
  EXPECT_EQ(Run({"show", "q1"}).rc, 0);
  Ran missing = Run({"show", "nope"});
  EXPECT_EQ(missing.rc, 66);
  EXPECT_EQ(missing.err, "hangar: cannot show nope: no such mission in " + s.spool() + "\n");
}

TEST_F(HangarBinaryTest, LsListsOldestFirstAcrossTheStatesAsked) {
  s.AddMission(Phase::kQueued, "z-old", kT0);
  s.AddMission(Phase::kQueued, "a-new", kT0 + 2000);
  s.AddReturned("m-mid", kT0 + 1000, "done");
  s.AddMission(Phase::kHold, "h1", kT0 + 500);
  std::string got;
  const json::Value listed = ParsedOut(Run({"ls", "--json", "queued", "returned"}));
  for (const json::Value& r : listed.as_array()) got += StringField(r, "id") + " ";
  EXPECT_EQ(got, "z-old m-mid a-new ");  // by intake time, not by id; hold not asked for
  Ran lines = Run({"ls", "--json-lines", "queued"});
  ASSERT_EQ(lines.rc, 0);
  EXPECT_EQ(std::count(lines.out.begin(), lines.out.end(), '\n'), 2);
  EXPECT_EQ(lines.out.substr(0, 15), "{\"drone\":\"fake\"");
  EXPECT_EQ(Run({"ls", "--since", "yesterday"}).rc, 64);
  EXPECT_EQ(ParsedOut(Run({"ls", "--json", "--requester", "bob"})).as_array().size(), 0u);
  EXPECT_EQ(ParsedOut(Run({"ls", "--json", "--requester", "alice"})).as_array().size(), 4u);
}

TEST_F(HangarBinaryTest, ACommandsHelpNamesItsRequiredOptionsAndTheGlobalOnes) {
  Ran help = Run({"grant", "--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("--mission TEXT"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("Global options (before or after the command):"), std::string::npos);
  EXPECT_NE(help.out.find("--spool TEXT"), std::string::npos) << help.out;
  EXPECT_NE(Run({"logs", "--help"}).out.find("--no-wait"), std::string::npos);
}

TEST_F(HangarBinaryTest, StatusSeesALiveKernelByItsLock) {
  s.Write("hangard.json", "{\"hangar\":1,\"pid\":4242,\"started\":\"2027-01-15T08:00:00.000Z\"}");
  int fd = open(s.layout().LockFile().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  Ran r = Run({"status", "--json"});
  close(fd);
  EXPECT_EQ(r.rc, 0);
  json::Value k = *ParsedOut(r).find("kernel");
  EXPECT_EQ(*k.find("alive"), json::Value(true));
  EXPECT_EQ(*k.find("pid"), json::Value(4242));
  EXPECT_EQ(Run({"--spool", s.root() + "/absent", "status"}).rc, 66);
}

// Without --no-wait the command waits for hangard's answer; none comes here: exit 75, saying
// where the request waits.
TEST_F(HangarBinaryTest, AControlRequestNobodyAnswersTimesOut) {
  s.AddMission(Phase::kRunning, "r1", kT0);
  Ran r = Run({"--answer-wait", "0.1", "cancel", "r1"});
  EXPECT_EQ(r.rc, 75);
  EXPECT_NE(r.err.find("hangard did not answer"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("control/new/cancel.r1."), std::string::npos) << r.err;
  Ran sub = Run({"--answer-wait", "0.1", "submit", "-"}, Mission("w1"));
  EXPECT_EQ(sub.rc, 75);
  EXPECT_NE(sub.err.find("did not take it in"), std::string::npos) << sub.err;
}

TEST_F(HangarBinaryTest, CancelDropsAControlRequest) {
  s.AddMission(Phase::kRunning, "r1", kT0);
  Ran r = Run({"--no-wait", "cancel", "r1"});  // no hangard here to answer
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("cancel r1: requested in control/new/cancel.r1.")) << r.out;
  std::vector<std::filesystem::path> files;
  for (auto& e : std::filesystem::directory_iterator(s.spool() + "/control/new"))
    files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(files[0].filename().string().starts_with("cancel.r1."));
  auto req = json::Parse(Slurp(files[0]));
  ASSERT_TRUE(req.ok());
  EXPECT_EQ(StringField(*req, "request"), "cancel");
  EXPECT_EQ(StringField(*req, "id"), "r1");
  EXPECT_FALSE(StringField(*req, "by").empty());
  EXPECT_TRUE(ParseTime(StringField(*req, "time")));
  EXPECT_TRUE(std::filesystem::is_empty(s.spool() + "/control/tmp"));
}

TEST_F(HangarBinaryTest, CancelRefusesWhatIsNotWaitingOrRunning) {
  s.AddReturned("r1", kT0, "done");
  Ran r = Run({"cancel", "r1"});
  EXPECT_EQ(r.rc, 66);
  EXPECT_EQ(r.err, "hangar: cannot cancel r1: already returned\n");
  EXPECT_EQ(Run({"cancel", "nope"}).rc, 66);
  EXPECT_TRUE(std::filesystem::is_empty(s.spool() + "/control/new"));
}

TEST_F(HangarBinaryTest, WaitExitsZeroOnlyWhenDone) {
  s.AddReturned("ok", kT0, "done");
  s.AddReturned("bad", kT0, "failed");
  s.AddMission(Phase::kDenied, "no", kT0);
  s.Write("denied/no/why.json",
          "{\"hangar\":1,\"id\":\"no\",\"field\":\"acts\",\"reason\":\"not allowed\"}");
  Ran ok = Run({"wait", "ok"});
  EXPECT_EQ(ok.rc, 0);
  EXPECT_EQ(ok.out, "ok done\n");
  Ran bad = Run({"--json", "wait", "bad"});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(StringField(ParsedOut(bad), "outcome"), "failed");
  Ran no = Run({"wait", "no"});
  EXPECT_EQ(no.rc, 1);
  EXPECT_EQ(no.out, "no denied: acts: not allowed\n");
}

TEST_F(HangarBinaryTest, WaitTimesOutOnAQueuedMission) {
  s.AddMission(Phase::kQueued, "q1", kT0);
  auto start = std::chrono::steady_clock::now();
  Ran r = Run({"wait", "q1", "--timeout", "0.2"});
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.rc, 75);
  EXPECT_NE(r.err.find("timed out after 0.2 s (still queued)"), std::string::npos) << r.err;
  EXPECT_GE(took, 0.2);  // it did wait; how much longer is the machine's business
}

TEST_F(HangarBinaryTest, WaitWakesWhenTheMissionReturns) {
  s.AddMission(Phase::kRunning, "r1", kT0);
  Child waiter = Start({"wait", "r1", "--timeout", "20"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // As the kernel does: move the directory, then the return appears in it.
  std::filesystem::rename(s.layout().MissionDir(Phase::kRunning, "r1"),
                          s.layout().MissionDir(Phase::kReturned, "r1"));
  s.Write("returned/r1/.return.json.tmp", "{\"hangar\":1,\"outcome\":\"done\"}");
  std::filesystem::rename(s.spool() + "/returned/r1/.return.json.tmp",
                          s.spool() + "/returned/r1/return.json");
  Ran r = waiter.Finish();
  EXPECT_EQ(r.rc, 0) << r.err;  // 0 is the return seen; its 20 s timeout would have given 75
}

TEST_F(HangarBinaryTest, UsageErrorsExit64) {
  EXPECT_EQ(Run({}).rc, 64);
  EXPECT_EQ(Run({"frobnicate"}).rc, 64);
  EXPECT_EQ(Run({"wait", "q1", "--timeout", "-3"}).rc, 64);
  EXPECT_EQ(Run({"wait", "../x"}).rc, 64);
  Ran help = Run({"--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("submit"), std::string::npos);
}

}  // namespace
}  // namespace hangar::cli
