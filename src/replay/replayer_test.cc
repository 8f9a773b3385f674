// The replay against a history recorded as hangard records it (a ledger and a signal record on a
// scratch spool, each decision's line with its entries, which carry its hash): the same setup
// replays with every step the same, across a restart; another policy names the step and the rule
// that decide otherwise, and one that allows what was held is widening; a decision whose entries
// never reached the ledger is taken as hangard stopping before them when a start follows (a whole
// batch of them too), and refused when more decisions follow that are no part of its batch; a
// record that is not the ledger's history is refused.
#include "replay/replayer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"
#include "env/env.h"
#include "kernel/kernel_testutil.h"
#include "ledger/signal_reader.h"
#include "ledger/store.h"
#include "replay/record_harness.h"

namespace hangar::replay {
namespace {

constexpr TimeMs kT = 1'700'000'000'000;
constexpr const char* kHoldPush = R"({"hangar_policy":1,"acts":{"hold":["push"]}})";

std::string Mission(const std::string& id, const std::string& extra = "") {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1" +
         extra + "}";
}

// The history recorded as hangard records it (replay/record_harness.h), its failures the test's.
class Recorder {
 public:
  explicit Recorder(std::string spool)
      : spool_(std::move(spool)), harness_(RealEnv(), spool_, Facts(spool_)) {}
  void Start(TimeMs ledger_time = 0) {
    Status s = harness_.Start(ledger_time);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  void Step(const Signal& sig, bool commit = true) {
    Result<std::vector<Action>> acts = harness_.Step(
        sig, commit ? RecordHarness::Entries::kCommit : RecordHarness::Entries::kLose);
    ASSERT_TRUE(acts.ok()) << acts.status().message();
  }
  // Decided within a batch: its entries wait for the next Step's commit, or are lost to a Start.
  void Stage(const Signal& sig) {
    Result<std::vector<Action>> acts = harness_.Step(sig, RecordHarness::Entries::kStage);
    ASSERT_TRUE(acts.ok()) << acts.status().message();
  }
  const std::string& spool() const { return spool_; }

 private:
  static SetupFacts Facts(const std::string& spool) {
    SetupFacts f;
    f.config_file = spool + "/hangar.conf";
    f.config_text = R"({"hangar":1,"slots":2,"policy":")" + spool +
                    R"(/policy.json","profiles":{"script":{"argv":["/bin/true"]}}})";
    f.policy_file = spool + "/policy.json";
    f.policy_text = kHoldPush;
    f.spool = spool;
    f.home = "/";
    f.bwrap = "/usr/bin/bwrap";
    f.approvers = {0};
    return f;
  }
  std::string spool_;
  RecordHarness harness_;
};

class ReplayerTest : public ::testing::Test {
 protected:
  ScratchDir dir_{"replayer"};
  Recorder rec_{dir_.path()};

  // A day's work: one mission done, one held and approved, one rejected, a restart, one more.
  void Workload() {
    rec_.Start();
    rec_.Step(Ready{kT});
    rec_.Step(Dropped{"a.json", Mission("A"), "", kT + 1, {}, kRoot});
    rec_.Step(LaunchDone{"A", true, false, true, "", kT + 2});
    rec_.Step(Dropped{"h.json", Mission("H", R"(,"acts":["push"])"), "", kT + 3, {}, kRoot});
    rec_.Step(
        ControlDropped{"c1", R"({"hangar":1,"request":"approve","id":"H"})", "", kT + 4, kRoot});
    rec_.Step(Dropped{"bad.json", "{not json", "", kT + 5, {}, kRoot});
    ExitInfo e;
    e.rc = 0;
    rec_.Step(DroneExited{"A", e, kT + 6});
    rec_.Step(Observed{"A", Observation{}, kT + 7});
    rec_.Start(kT + 7);
    rec_.Step(Ready{kT + 8});
    rec_.Step(Dropped{"b.json", Mission("B"), "", kT + 9, {}, kRoot});
  }
  Result<Summary> Run(ReplayOptions options = {}, std::vector<Step>* changed = nullptr) {
    ledger::LedgerStore store(RealEnv(), rec_.spool(), "live");
    if (Status s = store.OpenForReading(); !s.ok()) return s;
    LiveLedger live;
    if (Status s = live.Load(store); !s.ok()) return s;
    ledger::SignalReader reader(RealEnv(), rec_.spool() + "/signals/live");
    if (Status s = reader.Open(); !s.ok()) return s;
    return Replay(
        reader, live, options,
        [&](const Step& s) {
          if (changed && s.cls != StepClass::kSame) changed->push_back(s);
        },
        [](const Record&, const Step&) { return Status::Ok(); });
  }
};

TEST_F(ReplayerTest, TheSameSetupReplaysEveryStepTheSame) {
  Workload();
  Result<Summary> s = Run();
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->signals, 10);
  EXPECT_EQ(s->same, 10);
  EXPECT_EQ(s->differ, 0);
  EXPECT_EQ(s->starts, 2);
  EXPECT_EQ(s->builds, std::vector<std::string>{std::string(kKernelBuild)});
}

// The comparing goes on its own thread (replay/comparer.h), chunk by chunk: across many chunks
// every step still comes out once and in order, and the first failure of the record sink ends the
// replay with it, no step after it reported.
TEST_F(ReplayerTest, StepsComeOutInOrderAndASinkFailureEndsTheReplay) {
  rec_.Start();
  rec_.Step(Ready{kT});
  ExitInfo e;
  e.rc = 0;
  TimeMs t = kT;
  const int kMissions = 400;  // 1,601 signals: some 25 chunks
  for (int i = 0; i < kMissions; ++i) {
    const std::string id = "M" + std::to_string(i);
    rec_.Step(Dropped{id + ".json", Mission(id), "", ++t, {}, kRoot});
    rec_.Step(LaunchDone{id, true, false, true, "", ++t});
    rec_.Step(DroneExited{id, e, ++t});
    rec_.Step(Observed{id, Observation{}, ++t});
  }
  ledger::LedgerStore store(RealEnv(), rec_.spool(), "live");
  ASSERT_TRUE(store.OpenForReading().ok());
  LiveLedger live;
  ASSERT_TRUE(live.Load(store).ok());
  for (int64_t fail_at : {int64_t(0), int64_t(700)}) {  // 0: never
    ledger::SignalReader reader(RealEnv(), rec_.spool() + "/signals/live");
    ASSERT_TRUE(reader.Open().ok());
    std::vector<int64_t> lines;
    int64_t records = 0, failed_line = 0;
    Result<Summary> s = Replay(
        reader, live, {}, [&](const Step& st) { lines.push_back(st.n); },
        [&](const Record&, const Step& st) {
          if (++records != fail_at) return Status::Ok();
          failed_line = st.n;
          return Status::Io("the replay's ledger: disk full");
        });
    if (fail_at == 0) {
      ASSERT_TRUE(s.ok()) << s.status().message();
      EXPECT_EQ(s->signals, 1 + 4 * kMissions);
      EXPECT_EQ(s->same, s->signals);
      ASSERT_EQ(lines.size(), size_t(s->signals));
    } else {
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.status().message(), "the replay's ledger: disk full");
      ASSERT_GT(failed_line, 0);
      ASSERT_FALSE(lines.empty());
      EXPECT_LT(lines.back(), failed_line) << "a step at or after the failure was reported";
    }
    for (size_t i = 1; i < lines.size(); ++i) ASSERT_EQ(lines[i], lines[i - 1] + 1) << i;
  }
}

TEST_F(ReplayerTest, ToStopsAfterTheDecisionsUpToThatSeq) {
  Workload();
  ReplayOptions to;
  to.to = 3;
  Result<Summary> s = Run(to);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_GT(s->signals, 0);
  EXPECT_LT(s->signals, 10) << "the rest of the record is not fed";
  EXPECT_EQ(s->differ, 0);
}

TEST_F(ReplayerTest, FromReportsAndCountsTheLaterStepsOnly) {
  Workload();
  ReplayOptions deny;  // H differs at its drop (after ledger seq 2): before FROM, not reported
  deny.policy_file = dir_.path() + "/deny.json";
  deny.policy_text = R"({"hangar_policy":1,"acts":{"deny":["push"]}})";
  deny.from = 6;
  std::vector<Step> changed;
  Result<Summary> s = Run(deny, &changed);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->fed, 10);
  EXPECT_LT(s->signals, 10);
  for (const Step& c : changed) EXPECT_GE(c.ledger_seq + 1, 6);
  EXPECT_EQ(s->differ, int64_t(changed.size()));
}

TEST_F(ReplayerTest, AnotherPolicyNamesTheStepAndTheRule) {
  Workload();
  ReplayOptions deny;
  deny.policy_file = dir_.path() + "/deny.json";
  deny.policy_text = R"({"hangar_policy":1,"acts":{"deny":["push"]}})";
  std::vector<Step> changed;
  Result<Summary> s = Run(deny, &changed);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_FALSE(changed.empty());
  EXPECT_EQ(changed[0].missions, std::vector<std::string>{"H"});
  EXPECT_EQ(changed[0].was, "mission.held");
  EXPECT_EQ(changed[0].would, "mission.denied");
  EXPECT_EQ(changed[0].rules_would, "acts.deny.push");
  EXPECT_EQ(changed[0].cls, StepClass::kDecisionDiffers);
  EXPECT_EQ(changed[0].part, "the actions");
  EXPECT_FALSE(changed[0].widening);
  for (const Step& c : changed) {
    if (c.cls != StepClass::kStateDiffers) {
      EXPECT_EQ(c.missions, std::vector<std::string>{"H"}) << "only H asked to push: line " << c.n;
    }
  }

  ReplayOptions allow = deny;
  allow.policy_text = R"({"hangar_policy":1,"acts":{"allow":["push"]}})";
  changed.clear();
  ASSERT_TRUE(Run(allow, &changed).ok());
  ASSERT_FALSE(changed.empty());
  EXPECT_EQ(changed[0].would, "mission.accepted,mission.launched");
  EXPECT_TRUE(changed[0].widening);

  ReplayOptions unknown = deny;  // held still, as an unknown act: the state differs only
  unknown.policy_text = R"({"hangar_policy":1,"acts":{"unknown":"hold"}})";
  changed.clear();
  ASSERT_TRUE(Run(unknown, &changed).ok());
  ASSERT_FALSE(changed.empty());
  EXPECT_EQ(changed[0].cls, StepClass::kStateDiffers);
  EXPECT_EQ(changed[0].rules_was, "acts.hold.push");
  EXPECT_EQ(changed[0].rules_would, "acts.unknown");
  EXPECT_EQ(changed[0].part, "the gate's rules");
}

TEST_F(ReplayerTest, EntriesLostToAStopBeforeAStartReplayAsTheKernelBehaved) {
  rec_.Start();
  rec_.Step(Ready{kT});
  rec_.Step(Dropped{"a.json", Mission("A"), "", kT + 1, {}, kRoot}, /*commit=*/false);
  rec_.Start();  // the drop waits in incoming/new still: decided again
  rec_.Step(Dropped{"a.json", Mission("A"), "", kT + 2, {}, kRoot});
  Result<Summary> s = Run();
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->uncommitted, 1);
  EXPECT_EQ(s->differ, 0);
}

TEST_F(ReplayerTest, EntriesMissingWhileTheSameStartDecidedOnAreRefused) {
  rec_.Start();
  rec_.Step(Ready{kT});
  rec_.Step(Dropped{"a.json", Mission("A"), "", kT + 1, {}, kRoot}, /*commit=*/false);
  rec_.Step(Dropped{"b.json", Mission("B"), "", kT + 2, {}, kRoot});
  Result<Summary> s = Run();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalid);
  EXPECT_NE(s.status().message().find("line 3: its decision's ledger entries are not on the "
                                      "ledger (seq 1 is another decision's), yet line 4"),
            std::string::npos)
      << s.status().message();
}

// Group commit (daemon/daemon.h, THE BATCH): decisions whose lines name heads that were only
// staged when they were decided replay the same once the batch is on the ledger.
TEST_F(ReplayerTest, ABatchCommittedTogetherReplaysTheSame) {
  rec_.Start();
  rec_.Step(Ready{kT});
  rec_.Stage(Dropped{"a.json", Mission("A"), "", kT + 1, {}, kRoot});
  rec_.Stage(Dropped{"b.json", Mission("B"), "", kT + 1, {}, kRoot});
  rec_.Stage(
      ControlDropped{"c1", R"({"hangar":1,"request":"cancel","id":"A"})", "", kT + 1, kRoot});
  rec_.Step(Dropped{"c.json", Mission("C"), "", kT + 1, {}, kRoot});
  Result<Summary> s = Run();
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->signals, 5);
  EXPECT_EQ(s->uncommitted, 0);
  EXPECT_EQ(s->differ, 0);
}

// A stop between a batch's lines and its entries: every line of the batch is without its
// entries, the last of its start; they replay as the kernel decided them, and the next start
// decides the drops again.
TEST_F(ReplayerTest, ABatchLostBeforeItsEntriesReplaysAsTheKernelBehaved) {
  rec_.Start();
  rec_.Step(Ready{kT});
  rec_.Step(Dropped{"a.json", Mission("A"), "", kT + 1, {}, kRoot});
  rec_.Stage(Dropped{"b.json", Mission("B"), "", kT + 2, {}, kRoot});
  rec_.Stage(Dropped{"bad.json", "{not json", "", kT + 2, {}, kRoot});
  rec_.Stage(Dropped{"c.json", Mission("C"), "", kT + 2, {}, kRoot});
  rec_.Start(kT + 2);
  rec_.Step(Ready{kT + 3});
  rec_.Step(Dropped{"b.json", Mission("B"), "", kT + 4, {}, kRoot});
  Result<Summary> s = Run();
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->uncommitted, 3);
  EXPECT_EQ(s->differ, 0);
}

// Two decisions whose entries are missing, the second following the same head as the first:
// not one batch (its second would follow the first's staged entries), so no crash made them.
TEST_F(ReplayerTest, LinesWithoutEntriesThatAreNoBatchAreRefused) {
  rec_.Start();
  rec_.Step(Ready{kT});
  rec_.Step(Dropped{"a.json", Mission("A"), "", kT + 1, {}, kRoot}, /*commit=*/false);
  rec_.Step(Dropped{"b.json", Mission("B"), "", kT + 2, {}, kRoot}, /*commit=*/false);
  Result<Summary> s = Run();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalid);
  EXPECT_NE(s.status().message().find("signal record line 4 follows ledger seq 0, but the "
                                      "unwritten batch before it (from line 3) ends at seq 2"),
            std::string::npos)
      << s.status().message();
}

// More lines without entries than one batch can hold (64 entries): a ledger cut back, not a crash.
TEST_F(ReplayerTest, LinesWithoutEntriesBeyondOneBatchAreRefused) {
  rec_.Start();
  rec_.Step(Ready{kT});
  for (int i = 0; i < 70; ++i) {
    const std::string id = "M" + std::to_string(i);
    rec_.Stage(Dropped{id + ".json", Mission(id), "", kT + 1, {}, kRoot});
  }
  Result<Summary> s = Run();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalid);
  EXPECT_NE(s.status().message().find("have no entries on the ledger, more than one batch of "
                                      "hangard holds (64)"),
            std::string::npos)
      << s.status().message();
}

TEST_F(ReplayerTest, ARecordOfAnotherHistoryIsRefused) {
  Workload();
  // The ledger rewritten from its second entry on (its hashes no longer those the lines name).
  const std::string seg = dir_.path() + "/ledger/live";
  std::filesystem::path file = std::filesystem::directory_iterator(seg)->path();
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  in.close();
  std::filesystem::remove(file);
  {
    ledger::LedgerStore store(RealEnv(), dir_.path(), "live");
    ASSERT_TRUE(store.Open().ok());
    ASSERT_TRUE(store.Append("mission.accepted", json::Object{{"id", "X"}}, kT).ok());
  }
  Result<Summary> s = Run();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalid);
  EXPECT_NE(s.status().message().find("signal record line "), std::string::npos)
      << s.status().message();
  EXPECT_FALSE(first.empty());
  // A start line naming a head the ledger does not hold.
  std::filesystem::remove_all(seg);
  {
    ledger::LedgerStore store(RealEnv(), dir_.path(), "live");
    ASSERT_TRUE(store.Open().ok());
  }
  s = Run();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("the ledger ends at seq 0"), std::string::npos)
      << s.status().message();
  EXPECT_NE(s.status().message().find("the record is not this ledger's history"), std::string::npos)
      << s.status().message();
}

// hangard runs on while a replay reads: the record opened first, then the ledger read, with
// decisions in between and after; what was recorded when the record was opened replays the same.
TEST_F(ReplayerTest, ARecordReadWhileHangardRunsReplaysWhatItHeld) {
  Workload();
  ledger::SignalReader reader(RealEnv(), rec_.spool() + "/signals/live");
  ASSERT_TRUE(reader.Open().ok());
  rec_.Step(Dropped{"c.json", Mission("C"), "", kT + 20, {}, kRoot});
  ledger::LedgerStore store(RealEnv(), rec_.spool(), "live");
  ASSERT_TRUE(store.OpenForReading().ok());
  LiveLedger live;
  ASSERT_TRUE(live.Load(store).ok());
  rec_.Step(Dropped{"d.json", Mission("D"), "", kT + 21, {}, kRoot});
  Result<Summary> s = Replay(
      reader, live, {}, [](const Step&) {},
      [](const Record&, const Step&) { return Status::Ok(); });
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->signals, 10);
  EXPECT_EQ(s->differ, 0);
}

// A record cut short (its last lines gone, hangard stopped): the ledger's later entries name
// lines it does not have, and the replay is refused rather than reported as the same.
TEST_F(ReplayerTest, ARecordCutShortIsRefused) {
  Workload();
  const std::string file = dir_.path() + "/signals/live/signals.jsonl";
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), {}), kept;
  in.close();
  for (size_t at = 0, n = 0; n < 8; ++n) at = text.find('\n', at) + 1, kept = text.substr(0, at);
  std::ofstream(file, std::ios::trunc) << kept;
  Result<Summary> s = Run();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("names a signal record line after the record's last"),
            std::string::npos)
      << s.status().message();
}

}  // namespace
}  // namespace hangar::replay
