#include "launch/slurm_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

using Argv = std::vector<std::string>;
using State = EngineReport::State;

// What Slurm 22.05.8 printed on a one-node cluster (scripts/slurm-test-cluster), recorded as
// docs/slurm.md describes. The tests run from the repository root, as the compiler was given
// this file's path relative to it.
std::string Recorded(const std::string& name) {
  std::filesystem::path p = std::filesystem::path(__FILE__).parent_path() / "testdata/slurm" / name;
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// H:M:S on 2026-11-30 UTC (1795996800 s after the epoch), the day the jobs were recorded.
constexpr TimeMs At(int h, int m, int s) {
  return (1795996800LL + h * 3600 + m * 60 + s) * 1000;
}

// Slurm prints local time; the recordings were made in UTC, so the tests read them in UTC.
class SlurmRecorded : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = getenv("TZ");
    if (tz) old_tz_ = tz;
    had_tz_ = tz != nullptr;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (had_tz_)
      setenv("TZ", old_tz_.c_str(), 1);
    else
      unsetenv("TZ");
    tzset();
  }

  // The one report squeue printed in FILE.
  static EngineReport Squeue(const std::string& file) {
    std::string text = Recorded(file);
    EXPECT_FALSE(text.empty()) << "missing src/launch/testdata/slurm/" << file;
    Result<std::vector<EngineReport>> r = ParseSqueue(text);
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok() || r->size() != 1) {
      ADD_FAILURE() << file << ": expected one job";
      return {};
    }
    return r->front();
  }
  static EngineReport Scontrol(const std::string& file) {
    std::string text = Recorded(file);
    EXPECT_FALSE(text.empty()) << "missing src/launch/testdata/slurm/" << file;
    Result<EngineReport> r = ParseScontrolShowJob(text);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : EngineReport{};
  }
  static EngineReport Sacct(const std::string& file, const std::string& id) {
    std::string text = Recorded(file);
    EXPECT_FALSE(text.empty()) << "missing src/launch/testdata/slurm/" << file;
    Result<EngineReport> r = ParseSacctCompletion(text, id);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : EngineReport{};
  }

 private:
  bool had_tz_ = false;
  std::string old_tz_;
};

Plan MakePlan() {
  Plan p;
  p.id = "W-1";
  p.attempt = 2;
  p.room = "/srv/hangar/rooms/W-1";
  p.run = "/srv/hangar/spool/running/W-1/run";
  p.deadline_ms = 90 * 1000;
  p.enforced_deadline_ms = 120 * 1000;  // as BuildPlan rounds it for Slurm
  return p;
}

TEST(SlurmJob, JobNameIsHangarIdAttempt) {
  EXPECT_EQ(JobName("W-1", 1), "hangar-W-1-1");
  EXPECT_EQ(JobName("W-1-other", 1), "hangar-W-1-other-1");
}

TEST(SlurmJob, MinutesRoundUp) {
  EXPECT_EQ(SlurmMinutes(1), 1);
  EXPECT_EQ(SlurmMinutes(60000), 1);
  EXPECT_EQ(SlurmMinutes(60001), 2);
  EXPECT_EQ(SlurmMinutes(3600000), 60);
  EXPECT_EQ(SlurmMinutes(0), 1);  // never --time=0: that is no limit at all
}

TEST(SlurmJob, BatchScriptQuotesEveryArgument) {
  EXPECT_EQ(BatchScript("/opt/han gar/bin/hangar-shim", "/srv/it's/plan.json", "ab12"),
            "#!/bin/sh\nexec '/opt/han gar/bin/hangar-shim' '--exec' '/srv/it'\\''s/plan.json' "
            "'ab12'\n");
}

// sh itself reads the script back into the same arguments.
TEST(SlurmJob, BatchScriptRoundTripsThroughSh) {
  ScratchDir scratch("slurm-script");
  ASSERT_FALSE(scratch.path().empty());
  std::string script = scratch.path() + "/job.sh";
  std::ofstream(script) << BatchScript("/bin/echo", "/a dir/it's $HOME `x` \"q\"/plan.json", "ab");
  FILE* p = popen(("/bin/sh " + script).c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[256] = {};
  size_t n = fread(buf, 1, sizeof buf - 1, p);
  pclose(p);
  EXPECT_EQ(std::string(buf, n), "--exec /a dir/it's $HOME `x` \"q\"/plan.json ab\n");
}

TEST(SlurmJob, SbatchArgv) {
  SlurmOptions o;
  EXPECT_EQ(
      SbatchArgv(MakePlan(), "/srv/hangar/spool/running/W-1/run/job.sh", o),
      (Argv{"sbatch", "--parsable", "--job-name=hangar-W-1-2", "--time=2",
            "--chdir=/srv/hangar/rooms/W-1", "--output=/srv/hangar/spool/running/W-1/run/slurm.out",
            "--error=/srv/hangar/spool/running/W-1/run/slurm.err", "--export=NONE", "--no-requeue",
            "/srv/hangar/spool/running/W-1/run/job.sh"}));
  o.partition = "debug";
  o.sbatch = "/opt/slurm/bin/sbatch";
  Argv argv = SbatchArgv(MakePlan(), "/s/job.sh", o);
  EXPECT_EQ(argv.front(), "/opt/slurm/bin/sbatch");
  EXPECT_EQ(argv[argv.size() - 2], "--partition=debug");
  EXPECT_EQ(argv.back(), "/s/job.sh");
  Plan limited = MakePlan();
  limited.memory_mb = 2048;
  argv = SbatchArgv(limited, "/s/job.sh", o);
  EXPECT_EQ(argv[argv.size() - 2], "--mem=2048M") << "the job's memory is the plan's";
}

// sbatch would expand %j in --output; %% is a plain % (tried on the test cluster).
TEST(SlurmJob, SbatchOutputPathsKeepTheirPercent) {
  Plan p = MakePlan();
  p.run = "/srv/100%j run";
  Argv argv = SbatchArgv(p, "/s/job.sh", SlurmOptions{});
  EXPECT_EQ(argv[5], "--output=/srv/100%%j run/slurm.out");
  EXPECT_EQ(argv[6], "--error=/srv/100%%j run/slurm.err");
}

TEST(SlurmJob, ObservingArgv) {
  SlurmOptions o;
  const std::string f =
      "JobID:|,Name:|,State:|,exit_code:|,Reason:|,StartTime:|,EndTime:|,NodeList:";
  EXPECT_EQ(SqueueArgv({"15", "16"}, o),
            (Argv{"squeue", "-h", "-t", "all", "-j", "15,16", "-O", f}));
  EXPECT_EQ(SqueueByNameArgv("hangar-W-1-1", o),
            (Argv{"squeue", "-h", "--me", "-t", "all", "-n", "hangar-W-1-1", "-O", f}));
  EXPECT_EQ(ScontrolShowArgv("15", o), (Argv{"scontrol", "-o", "show", "job", "15"}));
  EXPECT_EQ(SacctCompletionArgv("15", o),
            (Argv{"sacct", "-c", "-j", "15", "-n", "-P", "-o",
                  "JobID,JobName,State,ExitCode,Start,End,NodeList"}));
  EXPECT_EQ(ScancelArgv("15", o), (Argv{"scancel", "15"}));
  o.squeue = "/x/squeue";
  o.scontrol = "/x/scontrol";
  o.sacct = "/x/sacct";
  o.scancel = "/x/scancel";
  EXPECT_EQ(SqueueArgv({"1"}, o).front(), "/x/squeue");
  EXPECT_EQ(SqueueByNameArgv("n", o).front(), "/x/squeue");
  EXPECT_EQ(ScontrolShowArgv("1", o).front(), "/x/scontrol");
  EXPECT_EQ(SacctCompletionArgv("1", o).front(), "/x/sacct");
  EXPECT_EQ(ScancelArgv("1", o).front(), "/x/scancel");
}

TEST(SlurmJob, ParseSbatch) {
  Result<std::string> id = ParseSbatch(Recorded("sbatch-parsable.txt"));
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(*id, "15");
  ASSERT_TRUE(ParseSbatch("123;cluster\n").ok());
  EXPECT_EQ(*ParseSbatch("123;cluster\n"), "123");
  for (const char* bad : {"", "\n", "abc\n", "12a\n", "123;\n", "123\n456\n",
                          "sbatch: error: Batch job submission failed\n"}) {
    Result<std::string> r = ParseSbatch(bad);
    EXPECT_EQ(r.status().code(), Code::kInvalid) << bad;
  }
  EXPECT_NE(ParseSbatch("x\n").status().message().find("job id"), std::string::npos);
}

TEST(SlurmJob, EngineStateNames) {
  EXPECT_STREQ(EngineStateName(State::kUnknown), "unknown");
  EXPECT_STREQ(EngineStateName(State::kPending), "pending");
  EXPECT_STREQ(EngineStateName(State::kRunning), "running");
  EXPECT_STREQ(EngineStateName(State::kEnded), "ended");
}

// --- squeue -----------------------------------------------------------------------------------

TEST_F(SlurmRecorded, SqueuePending) {
  EngineReport r = Squeue("squeue-pending.txt");
  EXPECT_EQ(r.state, State::kPending);
  EXPECT_EQ(r.id, "13");
  EXPECT_EQ(r.name, "hangar-weird-1");
  EXPECT_EQ(r.exit.started, 0);  // squeue's StartTime for a pending job is a guess
  EXPECT_FALSE(r.exit.rc);
}

TEST_F(SlurmRecorded, SqueueRunning) {
  EngineReport r = Squeue("squeue-running.txt");
  EXPECT_EQ(r.state, State::kRunning);
  EXPECT_EQ(r.id, "11");
  EXPECT_EQ(r.name, "hangar-tmo1-1");
  EXPECT_EQ(r.exit.started, At(11, 52, 5));
  EXPECT_EQ(r.exit.ended, 0);  // its EndTime is the time limit
  EXPECT_FALSE(r.exit.rc);
}

TEST_F(SlurmRecorded, SqueueCompleted) {
  EngineReport r = Squeue("squeue-completed.txt");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_EQ(r.id, "1");
  EXPECT_EQ(r.name, "hangar-ok-mission-1");
  EXPECT_EQ(r.exit.rc, 0);
  EXPECT_FALSE(r.exit.signal);
  EXPECT_FALSE(r.exit.timed_out);
  EXPECT_FALSE(r.exit.cancelled);
  EXPECT_EQ(r.exit.started, At(11, 50, 21));
  EXPECT_EQ(r.exit.ended, At(11, 50, 29));
  EXPECT_EQ(r.exit.error, "");
  EXPECT_EQ(r.detail, "State=COMPLETED Reason=None");
}

TEST_F(SlurmRecorded, SqueueFailedDecodesTheWaitStatus) {
  EngineReport r = Squeue("squeue-failed.txt");  // exit_code 768
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_EQ(r.exit.rc, 3);
  EXPECT_FALSE(r.exit.signal);
  EXPECT_EQ(r.exit.started, At(11, 50, 21));
  EXPECT_EQ(r.exit.ended, At(11, 50, 25));
  EXPECT_EQ(r.detail, "State=FAILED Reason=NonZeroExitCode");
}

TEST_F(SlurmRecorded, SqueueTimeout) {
  EngineReport r = Squeue("squeue-timeout.txt");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_TRUE(r.exit.timed_out);
  EXPECT_FALSE(r.exit.cancelled);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_EQ(r.exit.signal, 15);
  EXPECT_EQ(r.exit.started, At(11, 50, 25));
  EXPECT_EQ(r.exit.ended, At(11, 51, 28));
  EXPECT_EQ(r.detail, "State=TIMEOUT Reason=TimeLimit");
}

TEST_F(SlurmRecorded, SqueueCancelled) {
  EngineReport r = Squeue("squeue-cancelled.txt");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_TRUE(r.exit.cancelled);
  EXPECT_FALSE(r.exit.timed_out);
  EXPECT_EQ(r.exit.signal, 15);
  EXPECT_EQ(r.exit.started, At(11, 50, 30));
  EXPECT_EQ(r.exit.ended, At(11, 50, 39));
}

// Cancelled while pending: no node, exit_code 0, StartTime = EndTime = the cancel. Not rc 0.
TEST_F(SlurmRecorded, SqueueCancelledBeforeItRan) {
  EngineReport r = Squeue("squeue-cancelled-pending.txt");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_TRUE(r.exit.cancelled);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_FALSE(r.exit.signal);
  EXPECT_EQ(r.exit.started, 0);
  EXPECT_EQ(r.exit.ended, At(11, 52, 46));
  EXPECT_EQ(r.exit.error, "");
}

// `kill -TERM` of the job's process from outside: FAILED, Reason=JobLaunchFailure, exit_code 15.
TEST_F(SlurmRecorded, SqueueSignalled) {
  EngineReport r = Squeue("squeue-signalled.txt");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_EQ(r.exit.signal, 15);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_FALSE(r.exit.cancelled);
  EXPECT_FALSE(r.exit.timed_out);
  EXPECT_EQ(r.exit.ended, At(11, 50, 46));
}

// squeue -j lists the jobs it still has in its own order, silently leaving out unknown ids.
TEST_F(SlurmRecorded, SqueueManyJobs) {
  Result<std::vector<EngineReport>> r = ParseSqueue(Recorded("squeue-many.txt"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::map<std::string, State> states;
  for (const EngineReport& e : *r) states[e.id] = e.state;
  EXPECT_EQ(states, (std::map<std::string, State>{{"1", State::kEnded},
                                                  {"2", State::kEnded},
                                                  {"3", State::kEnded},
                                                  {"4", State::kEnded},
                                                  {"5", State::kEnded},
                                                  {"11", State::kRunning},
                                                  {"12", State::kRunning},
                                                  {"13", State::kPending},
                                                  {"14", State::kEnded}}));
}

// squeue -O Name without a width cuts names to 20 characters; "Name:|" prints them whole.
TEST_F(SlurmRecorded, SqueueNameIsNotCutTo20Characters) {
  EXPECT_EQ(Squeue("squeue-timeout.txt").name, "hangar-timeout-mission-1");
}

// squeue -n matches the exact name: hangar-W-1-other-1 and hangar-W-1-10 were queued too.
TEST_F(SlurmRecorded, SqueueByNameMatchesTheExactName) {
  Result<std::vector<EngineReport>> r = ParseSqueue(Recorded("squeue-by-name.txt"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  for (const EngineReport& e : *r) EXPECT_EQ(e.name, "hangar-W-1-1");
  EXPECT_EQ((*r)[0].id, "7");
  EXPECT_EQ((*r)[1].id, "10");
}

// squeue -j with only unknown ids exits 1, prints nothing on stdout: no reports.
TEST_F(SlurmRecorded, SqueueUnknownIdIsNoReport) {
  EXPECT_NE(Recorded("squeue-unknown-id.stderr.txt").find("Invalid job id specified"),
            std::string::npos);
  Result<std::vector<EngineReport>> r = ParseSqueue("");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
}

TEST_F(SlurmRecorded, SqueueCoreDumpIsTheSignal) {
  Result<std::vector<EngineReport>> r =
      ParseSqueue("9|hangar-W-1-1|FAILED|139|None|2026-11-30T11:50:21|2026-11-30T11:50:22|vm\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->front().exit.signal, 11);
  EXPECT_FALSE(r->front().exit.rc);
}

// What the job's state must be for a line; the message names the field that is wrong.
TEST_F(SlurmRecorded, SqueueMalformed) {
  const std::string ok =
      "9|hangar-W-1-1|COMPLETED|0|None|2026-11-30T11:50:21|2026-11-30T11:50:22|vm";
  ASSERT_TRUE(ParseSqueue(ok).ok());
  struct Case {
    std::string line, names;
  };
  for (const Case& c : std::vector<Case>{
           {"9|hangar-W-1-1|COMPLETED|0|None|2026-11-30T11:50:21|2026-11-30T11:50:22", "8 fields"},
           {ok + "|extra", "8 fields"},
           {"9a|hangar-W-1-1|COMPLETED|0|None|2026-11-30T11:50:21|2026-11-30T11:50:22|vm", "JobID"},
           {"|hangar-W-1-1|COMPLETED|0|None|2026-11-30T11:50:21|2026-11-30T11:50:22|vm", "JobID"},
           {"9|hangar-W-1-1|DONE|0|None|2026-11-30T11:50:21|2026-11-30T11:50:22|vm", "State"},
           {"9|hangar-W-1-1|COMPLETED|x|None|2026-11-30T11:50:21|2026-11-30T11:50:22|vm",
            "exit_code"},
           {"9|hangar-W-1-1|COMPLETED|-1|None|2026-11-30T11:50:21|2026-11-30T11:50:22|vm",
            "exit_code"},
           {"9|hangar-W-1-1|COMPLETED|0|None|2026-13-30T11:50:21|2026-11-30T11:50:22|vm",
            "StartTime"},
           {"9|hangar-W-1-1|COMPLETED|0|None|2026-11-30T11:50:21|11:50:22|vm", "EndTime"},
       }) {
    Result<std::vector<EngineReport>> r = ParseSqueue(c.line + "\n");
    ASSERT_FALSE(r.ok()) << c.line;
    EXPECT_EQ(r.status().code(), Code::kInvalid);
    EXPECT_NE(r.status().message().find("cannot parse squeue output: "), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find(c.names), std::string::npos) << r.status().message();
  }
}

// --- scontrol ---------------------------------------------------------------------------------

TEST_F(SlurmRecorded, ScontrolPending) {
  EngineReport r = Scontrol("scontrol-pending.txt");  // its paths hold spaces, ' and %
  EXPECT_EQ(r.state, State::kPending);
  EXPECT_EQ(r.id, "13");
  EXPECT_EQ(r.name, "hangar-weird-1");
  EXPECT_EQ(r.exit.started, 0);
}

TEST_F(SlurmRecorded, ScontrolRunning) {
  EngineReport r = Scontrol("scontrol-running.txt");
  EXPECT_EQ(r.state, State::kRunning);
  EXPECT_EQ(r.id, "11");
  EXPECT_EQ(r.exit.started, At(11, 52, 5));
}

TEST_F(SlurmRecorded, ScontrolCompleted) {
  EngineReport r = Scontrol("scontrol-completed.txt");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_EQ(r.id, "1");
  EXPECT_EQ(r.name, "hangar-ok-mission-1");
  EXPECT_EQ(r.exit.rc, 0);
  EXPECT_FALSE(r.exit.signal);
  EXPECT_EQ(r.exit.started, At(11, 50, 21));
  EXPECT_EQ(r.exit.ended, At(11, 50, 29));
  EXPECT_EQ(r.detail, "State=COMPLETED Reason=None");
}

TEST_F(SlurmRecorded, ScontrolFailed) {
  EngineReport r = Scontrol("scontrol-failed.txt");  // ExitCode=3:0
  EXPECT_EQ(r.exit.rc, 3);
  EXPECT_FALSE(r.exit.signal);
}

TEST_F(SlurmRecorded, ScontrolTimeout) {
  EngineReport r = Scontrol("scontrol-timeout.txt");  // ExitCode=0:15
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_TRUE(r.exit.timed_out);
  EXPECT_EQ(r.exit.signal, 15);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_EQ(r.exit.ended, At(11, 51, 28));
}

TEST_F(SlurmRecorded, ScontrolCancelled) {
  EngineReport r = Scontrol("scontrol-cancelled.txt");
  EXPECT_TRUE(r.exit.cancelled);
  EXPECT_EQ(r.exit.signal, 15);
  EXPECT_EQ(r.exit.started, At(11, 50, 30));
}

TEST_F(SlurmRecorded, ScontrolCancelledBeforeItRan) {
  EngineReport r = Scontrol("scontrol-cancelled-pending.txt");
  EXPECT_TRUE(r.exit.cancelled);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_EQ(r.exit.started, 0);
  EXPECT_EQ(r.exit.ended, At(11, 52, 46));
}

TEST_F(SlurmRecorded, ScontrolSignalled) {
  EngineReport r = Scontrol("scontrol-signalled.txt");
  EXPECT_EQ(r.exit.signal, 15);
  EXPECT_FALSE(r.exit.cancelled);
  EXPECT_EQ(r.detail, "State=FAILED Reason=JobLaunchFailure");
}

// A job Slurm forgot (MinJobAge after its end) or never had: NotFound, from stderr.
TEST_F(SlurmRecorded, ScontrolPurgedIsNotFound) {
  for (const char* file : {"scontrol-purged.stderr.txt", "scontrol-unknown-id.stderr.txt"}) {
    std::string text = Recorded(file);
    ASSERT_FALSE(text.empty()) << file;
    EXPECT_EQ(ParseScontrolShowJob(text).status().code(), Code::kNotFound) << file;
  }
}

TEST_F(SlurmRecorded, ScontrolMalformed) {
  const std::string line = Recorded("scontrol-failed.txt");
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = line;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? s : s.replace(at, from.size(), to);
  };
  struct Case {
    std::string text, names;
  };
  for (const Case& c : std::vector<Case>{
           {"", "JobId"},
           {"garbage\n", "JobId"},
           {line + line, "JobId"},
           {replaced("JobId=2 ", "JobId=x2 "), "JobId"},
           {replaced(" UserId=", " User="), "JobName"},
           {replaced("JobState=FAILED", "JobState=EXPLODED"), "JobState"},
           {replaced("ExitCode=3:0", "ExitCode=3"), "ExitCode"},
           {replaced("ExitCode=3:0", "Exit=3:0"), "ExitCode"},
           {replaced("EndTime=2026-11-30T11:50:25", "EndTime=yesterday"), "EndTime"},
           {replaced(" NodeList=vm", ""), "NodeList"},
       }) {
    Result<EngineReport> r = ParseScontrolShowJob(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), Code::kInvalid) << r.status().message();
    EXPECT_NE(r.status().message().find("cannot parse scontrol output: " + c.names),
              std::string::npos)
        << r.status().message();
  }
}

// --- sacct -c (jobcomp/filetxt) ---------------------------------------------------------------

TEST_F(SlurmRecorded, SacctCompleted) {
  EngineReport r = Sacct("sacct-completed.txt", "1");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_EQ(r.id, "1");
  EXPECT_EQ(r.name, "hangar-ok-mission-1");
  EXPECT_EQ(r.exit.rc, 0);
  EXPECT_EQ(r.exit.started, At(11, 50, 21));
  EXPECT_EQ(r.exit.ended, At(11, 50, 29));
  EXPECT_EQ(r.detail, "State=COMPLETED");
}

TEST_F(SlurmRecorded, SacctFailed) {
  EngineReport r = Sacct("sacct-failed.txt", "2");
  EXPECT_EQ(r.exit.rc, 3);
  EXPECT_FALSE(r.exit.signal);
}

// The completion log writes ExitCode=0:0 for a job Slurm timed out or cancelled, though it was
// killed by SIGTERM (squeue and scontrol say 15): that 0:0 is no exit status.
TEST_F(SlurmRecorded, SacctTimeoutHasNoExitStatus) {
  EngineReport r = Sacct("sacct-timeout.txt", "3");
  EXPECT_TRUE(r.exit.timed_out);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_FALSE(r.exit.signal);
  EXPECT_EQ(r.exit.started, At(11, 50, 25));
  EXPECT_EQ(r.exit.ended, At(11, 51, 28));
}

TEST_F(SlurmRecorded, SacctCancelledHasNoExitStatus) {
  EngineReport r = Sacct("sacct-cancelled.txt", "4");
  EXPECT_TRUE(r.exit.cancelled);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_FALSE(r.exit.signal);
}

TEST_F(SlurmRecorded, SacctCancelledBeforeItRan) {
  EngineReport r = Sacct("sacct-cancelled-pending.txt", "14");
  EXPECT_TRUE(r.exit.cancelled);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_EQ(r.exit.started, 0);
  EXPECT_EQ(r.exit.ended, At(11, 52, 46));
}

TEST_F(SlurmRecorded, SacctSignalled) {
  EngineReport r = Sacct("sacct-signalled.txt", "5");
  EXPECT_EQ(r.exit.signal, 15);
  EXPECT_FALSE(r.exit.rc);
}

// Only the line of the exact id counts: asked for 1, the lines of 10 and 11 are other jobs.
TEST_F(SlurmRecorded, SacctMatchesTheExactId) {
  const std::string text =
      "10|hangar-W-1-1|COMPLETED|0:0|2026-11-30T11:51:46|2026-11-30T11:51:47|vm\n"
      "11|hangar-W-1-other-1|FAILED|3:0|2026-11-30T11:51:46|2026-11-30T11:51:47|vm\n";
  EXPECT_EQ(ParseSacctCompletion(text, "1").status().code(), Code::kNotFound);
  Result<EngineReport> r = ParseSacctCompletion(text, "11");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->name, "hangar-W-1-other-1");
  EXPECT_EQ(r->exit.rc, 3);
}

// A requeued job (or an id Slurm gave again after its state was wiped) has several lines: the
// last is the newest.
TEST_F(SlurmRecorded, SacctTakesTheLastLineOfTheId) {
  const std::string text =
      "2|hangar-W-1-1|FAILED|3:0|2026-11-30T11:50:21|2026-11-30T11:50:25|vm\n"
      "2|hangar-W-1-1|COMPLETED|0:0|2026-11-30T11:51:21|2026-11-30T11:51:25|vm\n";
  Result<EngineReport> r = ParseSacctCompletion(text, "2");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit.rc, 0);
}

// sacct -c prints nothing, exit 0, for an id the log does not have.
TEST_F(SlurmRecorded, SacctNoLineIsNotFound) {
  EXPECT_EQ(ParseSacctCompletion("", "99").status().code(), Code::kNotFound);
  EXPECT_EQ(ParseSacctCompletion(Recorded("sacct-completed.txt"), "99").status().code(),
            Code::kNotFound);
}

TEST_F(SlurmRecorded, SacctMalformed) {
  struct Case {
    std::string text, names;
  };
  for (const Case& c : std::vector<Case>{
           {"1|hangar-W-1-1|COMPLETED|0:0|2026-11-30T11:50:21|2026-11-30T11:50:29\n", "7 fields"},
           {"1|hangar-W-1-1|COMPLETED|0|2026-11-30T11:50:21|2026-11-30T11:50:29|vm\n", "ExitCode"},
           {"1|hangar-W-1-1|COMPLETED|0:x|2026-11-30T11:50:21|2026-11-30T11:50:29|vm\n",
            "ExitCode"},
           {"1|hangar-W-1-1|COMPLETED+|0:0|2026-11-30T11:50:21|2026-11-30T11:50:29|vm\n", "State"},
           {"1|hangar-W-1-1|COMPLETED|0:0|2026-11-30 11:50:21|2026-11-30T11:50:29|vm\n", "Start"},
           {"1|hangar-W-1-1|COMPLETED|0:0|2026-11-30T11:50:21|2026-11-30T25:50:29|vm\n", "End"},
           // A malformed line of another job is still malformed output.
           {"1|hangar-W-1-1|COMPLETED|0:0|2026-11-30T11:50:21|2026-11-30T11:50:29|vm\n"
            "x|hangar-W-1-1|COMPLETED|0:0|2026-11-30T11:50:21|2026-11-30T11:50:29|vm\n",
            "JobID"},
       }) {
    Result<EngineReport> r = ParseSacctCompletion(c.text, "1");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), Code::kInvalid) << r.status().message();
    EXPECT_NE(r.status().message().find("cannot parse sacct output: "), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find(c.names), std::string::npos) << r.status().message();
  }
}

// "CANCELLED by 0" (sacct's accounting form) is CANCELLED.
TEST_F(SlurmRecorded, CancelledByUidIsCancelled) {
  Result<EngineReport> r = ParseSacctCompletion(
      "4|hangar-W-1-1|CANCELLED by 0|0:15|2026-11-30T11:50:30|2026-11-30T11:50:39|vm\n", "4");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->exit.cancelled);
  EXPECT_EQ(r->exit.signal, 15);
}

}  // namespace
}  // namespace hangar
