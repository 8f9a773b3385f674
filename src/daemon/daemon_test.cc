// The daemon itself on a scratch spool, driven turn by turn (Step): one hangard per spool and per
// anchor; a drop is judged and a control request acts on it, as the files in the spool show; a
// write that fails for a decision stops the work, and nothing is decided after it. The fault is
// injected by a FaultEnv at the first mutating call after Start.
#include "daemon/daemon.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "base/scratch_dir_testutil.h"
#include "base/sha256.h"
#include "env/fault_env.h"
#include "launch/direct_launcher.h"
#include "ledger/signal_reader.h"
#include "ledger/store.h"

namespace hangar {
namespace {

std::string SlowShim(const std::string& dir);

// A mission the default policy lets launch at once.
std::string LaunchedMission(const std::string& id) {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1}";
}

std::string HeldMission(const std::string& id) {
  // network "host" is held for a person by the default policy: nothing is launched.
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1,\"network\":\"host\"}";
}

class DaemonTest : public ::testing::Test {
 protected:
  // A daemon on spool `name` (under the scratch directory) with anchor directory `anchor`.
  std::unique_ptr<Daemon> Make(const std::string& name, const std::string& anchor,
                               Env* env = RealEnv(), const std::string& config_extra = "",
                               const std::string& shim = "/nonexistent/hangar-shim") {
    const std::string spool = scratch_.path() + "/" + name, a = scratch_.path() + "/" + anchor;
    std::filesystem::create_directories(spool);
    std::filesystem::create_directories(a);
    SetupFacts f;
    f.config_file = spool + "/hangar.conf";
    f.config_text = R"({"hangar":1,"slots":)" + std::to_string(slots_) + "," + config_extra +
                    R"("profiles":{"script":{"argv":["/bin/true"]}}})";
    f.spool = spool;
    f.anchor = a;
    f.home = "/";
    f.approvers = {int64_t(geteuid())};
    // With a shim of the test's own, missions launch: the gate wants a sandbox program named
    // (the stand-in runs none).
    if (shim != "/nonexistent/hangar-shim") f.bwrap = "/usr/bin/bwrap";
    Result<KernelSetup> s = BuildSetup(f);
    EXPECT_TRUE(s.ok()) << s.status().message();
    Layout layout = Layout::Make(spool, "");
    return std::make_unique<Daemon>(env, *s, f, layout, ManifestLimits{}, shim, f.config_file, a);
  }
  // Drops TEXT as DIR/new/NAME the maildir way: written in DIR/tmp, renamed into new/.
  void Drop(const std::string& spool, const std::string& dir, const std::string& name,
            const std::string& text) {
    const std::string base = scratch_.path() + "/" + spool + "/" + dir;
    std::ofstream(base + "/tmp/" + name) << text;
    std::filesystem::rename(base + "/tmp/" + name, base + "/new/" + name);
  }
  // Steps D until PRED holds, at most STEPS turns of up to 50 ms each.
  bool StepUntil(Daemon& d, const std::function<bool()>& pred, int steps = 100) {
    for (int i = 0; i < steps && !pred(); ++i) {
      bool quit = false;
      EXPECT_TRUE(d.Step(50, &quit).ok());
      if (quit) return pred();
    }
    return pred();
  }
  bool Exists(const std::string& rel) {
    return std::filesystem::exists(scratch_.path() + "/" + rel);
  }
  std::unique_ptr<Daemon> LaunchingA();
  // A process of its own holding LOCK, as a supervisor holds its run/lock (one the test held
  // would be held by hangard's children too, between their fork and exec), once it holds it; its
  // group ends with kill(-pid). -1 when it did not come to hold it.
  static pid_t HoldLock(const std::string& lock);
  // A drone's end as its supervisor leaves it: RUN/exit.json (rc 0) written visible, then the
  // lock HOLDER held let go, its group ended and reaped.
  static void EndDrone(const std::string& run, pid_t holder);

  ScratchDir scratch_{"daemon"};
  int slots_ = 1;
};

TEST_F(DaemonTest, OneHangardPerSpoolAndPerAnchor) {
  std::unique_ptr<Daemon> first = Make("spool", "anchor");
  ASSERT_TRUE(first->Start().ok());
  EXPECT_TRUE(Exists("spool/incoming/new") && Exists("spool/hangard.json"));
  Status same_spool = Make("spool", "anchor2")->Start();
  EXPECT_EQ(same_spool.code(), Code::kUnavailable);
  EXPECT_NE(same_spool.message().find("another hangard runs on this spool"), std::string::npos)
      << same_spool.message();
  Status same_anchor = Make("spool2", "anchor")->Start();
  EXPECT_EQ(same_anchor.code(), Code::kUnavailable);
  EXPECT_NE(same_anchor.message().find("another hangard writes this anchor"), std::string::npos)
      << same_anchor.message();
  first.reset();  // its locks go with it
  EXPECT_TRUE(Make("spool", "anchor")->Start().ok());
}

// A lock let go a moment after the start tried it (a killed hangard's child between fork and
// exec, found by scripts/kill-loop: the restart exited 75) is waited for, not refused.
TEST_F(DaemonTest, ALockLetGoAMomentLaterIsWaitedFor) {
  std::filesystem::create_directories(scratch_.path() + "/spool");
  Result<std::unique_ptr<Env::Lock>> held =
      RealEnv()->LockExclusive(scratch_.path() + "/spool/hangard.lock", false);
  ASSERT_TRUE(held.ok()) << held.status().message();
  std::thread let_go([&held] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    held.value().reset();  // as the child's exec closes it
  });
  Status s = Make("spool", "anchor")->Start();
  let_go.join();
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST_F(DaemonTest, ADropIsJudgedAndACancelReturnsIt) {
  std::unique_ptr<Daemon> d = Make("spool", "anchor");
  ASSERT_TRUE(d->Start().ok());
  Drop("spool", "incoming", "h1.json", HeldMission("H1"));
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/hold/H1/gate1.json"); }))
      << "the drop was not held";
  EXPECT_FALSE(Exists("spool/incoming/new/h1.json"));
  Drop("spool", "control", "c1.json", R"({"hangar":1,"request":"cancel","id":"H1"})");
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/H1/return.json"); }))
      << "the cancel did not return it";
  std::ifstream in(scratch_.path() + "/spool/returned/H1/return.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("\"outcome\": \"cancelled\""), std::string::npos) << text;
  EXPECT_TRUE(Exists("spool/control/done/c1.json.json"));
  EXPECT_TRUE(d->stopped().empty());
}

TEST_F(DaemonTest, AFailedWriteForADecisionStopsTheWork) {
  // How many mutating calls a start makes, on a spool of its own.
  FaultEnv counting(RealEnv(), FaultPlan{});
  ASSERT_TRUE(Make("counted", "anchor1", &counting)->Start().ok());
  FaultEnv failing(RealEnv(), FaultPlan{FaultPlan::Kind::kFail, counting.calls() + 1, EIO, true});
  std::unique_ptr<Daemon> d = Make("spool", "anchor2", &failing);
  ASSERT_TRUE(d->Start().ok());
  ASSERT_EQ(failing.calls(), counting.calls()) << "the two starts differ";
  Drop("spool", "incoming", "a.json", HeldMission("A"));
  ASSERT_TRUE(StepUntil(*d, [&] { return !d->stopped().empty(); })) << "the work did not stop";
  EXPECT_NE(d->stopped().find("Input/output error"), std::string::npos) << d->stopped();
  EXPECT_FALSE(Exists("spool/hold/A"));
  // Nothing more is decided: a second drop stays where it was dropped.
  Drop("spool", "incoming", "b.json", HeldMission("B"));
  StepUntil(
      *d, [] { return false; }, 10);  // turns enough to see it and take it
  EXPECT_TRUE(Exists("spool/incoming/new/b.json"));
  EXPECT_FALSE(Exists("spool/hold/B"));
}

// Group commit (daemon.h, THE BATCH): the drops one turn takes are decided together and written
// together: one append to the ledger and one to the signal record for all six, in one wait (seen
// here as FaultEnv makes it, the entries' part first), then one to the anchor (one each per drop
// without the batch), before any of their acts.
TEST_F(DaemonTest, TheDropsOfATurnShareOneCommit) {
  FaultEnv env(RealEnv(), FaultPlan{});
  std::unique_ptr<Daemon> d = Make("spool", "anchor", &env);
  ASSERT_TRUE(d->Start().ok());
  const std::string log = scratch_.path() + "/calls.log";
  ASSERT_TRUE(env.OpenLog(log).ok());
  for (int i = 1; i <= 6; ++i)
    Drop("spool", "incoming", "h" + std::to_string(i) + ".json",
         HeldMission("H" + std::to_string(i)));
  ASSERT_TRUE(StepUntil(*d, [&] {
    for (int i = 1; i <= 6; ++i)
      if (!Exists("spool/hold/H" + std::to_string(i) + "/gate1.json")) return false;
    return true;
  }));
  std::ifstream in(log);
  std::vector<std::string> order;  // what each call touched: record, ledger, anchor or an act
  for (std::string line; std::getline(in, line);) {
    if (line.find(" append ") != std::string::npos) {
      order.push_back(line.find("/signals/live/") != std::string::npos  ? "record"
                      : line.find("/ledger/live/") != std::string::npos ? "ledger"
                      : line.find(".anchor") != std::string::npos       ? "anchor"
                                                                        : "append");
    } else if (line.find("/hold/H") != std::string::npos) {  // a mission in hold/
      if (order.empty() || order.back() != "act") order.push_back("act");
    } else if (line.find("/hold/.") != std::string::npos) {  // a drop into its hold/.ID.tmp
      if (order.empty() || order.back() != "begun") order.push_back("begun");
    }
  }
  // The drops go into their .ID.tmp alongside the records (Env::Alongside, FaultEnv's order);
  // none is a mission in hold/ before the anchor lines.
  EXPECT_EQ(order, (std::vector<std::string>{"begun", "ledger", "record", "anchor", "act"}))
      << "the calls: " << testing::PrintToString(order);
  EXPECT_TRUE(d->stopped().empty()) << d->stopped();
}

// A drop is moved into its .ID.tmp alongside its decision's records (daemon.cc, Commit); when
// the ledger's or the anchor's append then fails, the work stops and the drop is back in
// incoming/new at once, under its name, with no .ID.tmp left: nothing of a decision the disk does
// not hold is kept.
TEST_F(DaemonTest, ADropTakenInBesideRecordsThatFailGoesBack) {
  for (const std::string part : {"/ledger/live/", "/live.anchor"}) {
    SCOPED_TRACE(part);
    const std::string tag = part == "/live.anchor" ? "a" : "l";
    // Which call of one held drop is that append, on a spool of its own.
    FaultEnv counting(RealEnv(), FaultPlan{});
    std::unique_ptr<Daemon> c = Make("counted" + tag, "anchor-c" + tag, &counting);
    ASSERT_TRUE(c->Start().ok());
    const uint64_t start_calls = counting.calls();
    const std::string log = scratch_.path() + "/calls" + tag + ".log";
    ASSERT_TRUE(counting.OpenLog(log).ok());
    Drop("counted" + tag, "incoming", "a.json", HeldMission("A"));
    ASSERT_TRUE(StepUntil(*c, [&] { return Exists("counted" + tag + "/hold/A/gate1.json"); }));
    uint64_t at = 0;
    bool begun_before = false;  // the drop left incoming/new before that append
    std::ifstream in(log);
    for (std::string line; at == 0 && std::getline(in, line);) {
      if (line.find("/incoming/new/a.json") != std::string::npos) begun_before = true;
      if (line.find(" append ") != std::string::npos && line.find(part) != std::string::npos)
        at = std::stoull(line);
    }
    ASSERT_GT(at, 0u);
    ASSERT_TRUE(begun_before) << "the drop moved only after the records: nothing to undo";

    FaultEnv failing(RealEnv(), FaultPlan{FaultPlan::Kind::kFail, at, EIO, false});
    std::unique_ptr<Daemon> d = Make("spool" + tag, "anchor-f" + tag, &failing);
    ASSERT_TRUE(d->Start().ok());
    ASSERT_EQ(failing.calls(), start_calls) << "the two starts differ";
    Drop("spool" + tag, "incoming", "a.json", HeldMission("A"));
    ASSERT_TRUE(StepUntil(*d, [&] { return !d->stopped().empty(); })) << "the work did not stop";
    EXPECT_TRUE(Exists("spool" + tag + "/incoming/new/a.json")) << "the drop is not back";
    EXPECT_FALSE(Exists("spool" + tag + "/hold/A"));
    EXPECT_FALSE(Exists("spool" + tag + "/hold/.A.tmp"));
  }
}

// Mission A as a crash of hangard leaves it once its drone has ended: in running/ with its
// launch.json, its key and an exit.json no supervisor holds; its room empty. A start returns it.
// Mission ID in SPOOL's running/ as a launch leaves it (its room, MISSION, launch.json and key of
// attempt 1), its drone not ended yet: no run/exit.json.
void Running(const std::string& spool, const std::string& id, const std::string& mission) {
  const std::string dir = spool + "/running/" + id;
  std::filesystem::create_directories(dir + "/run");
  std::filesystem::create_directories(spool + "/rooms/" + id);
  std::filesystem::create_directories(spool + "/keys");
  std::ofstream(dir + "/mission.json") << mission;
  std::ofstream(dir + "/launch.json") << R"({"hangar":1,"id":")" << id << R"(","attempt":1})";
  std::ofstream(spool + "/keys/launch." + id + ".1") << "{}";
}

// A drone's end in RUN (exit status RC), as its supervisor writes it: RUN/exit.json, complete or
// not at all.
void WriteEnd(const std::string& run, int rc = 0) {
  ExitInfo e;
  e.rc = rc;
  e.started = e.ended = 1'800'000'000'000;
  std::ofstream(run + "/.exit.json") << json::Write(e.ToJson());
  std::filesystem::rename(run + "/.exit.json", run + "/exit.json");
}

void EndedA(const std::string& spool, const std::string& mission = LaunchedMission("A")) {
  Running(spool, "A", mission);
  WriteEnd(spool + "/running/A/run");
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// A return's return.json goes into running/ID beside its decision's records (daemon.cc,
// Commit), and the move to returned/ comes after them. When the ledger's append then fails, the
// work stops with the mission in running/, not returned; the next start finds that return.json
// not backed by the ledger, removes it, observes the ended drone again and returns it once, its
// return.json naming the mission.returned entry with its sha256.
TEST_F(DaemonTest, AReturnWrittenBesideRecordsThatFailIsNoReturn) {
  // Which call is the return's ledger append, on a spool of its own.
  EndedA(scratch_.path() + "/counted");
  FaultEnv counting(RealEnv(), FaultPlan{});
  const std::string log = scratch_.path() + "/calls.log";
  ASSERT_TRUE(counting.OpenLog(log).ok());
  std::unique_ptr<Daemon> c = Make("counted", "anchor-c", &counting);
  ASSERT_TRUE(c->Start().ok());
  ASSERT_TRUE(StepUntil(*c, [&] { return Exists("counted/returned/A/return.json"); }));
  uint64_t begun = 0, ledger = 0, anchor = 0, moved = 0;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    const uint64_t n = std::stoull(line);
    if (!begun && line.find("/running/A/return.json") != std::string::npos) begun = n;
    if (begun && !ledger && line.find(" append ") != std::string::npos &&
        line.find("/ledger/live/") != std::string::npos)
      ledger = n;
    if (ledger && !anchor && line.find(" append ") != std::string::npos &&
        line.find(".anchor") != std::string::npos)
      anchor = n;
    if (line.find(" rename ") != std::string::npos &&
        line.find("/running/A ") != std::string::npos)
      moved = n;
  }
  ASSERT_GT(begun, 0u) << ReadAll(log);
  EXPECT_TRUE(ledger > begun && anchor > ledger && moved > anchor)
      << "return.json " << begun << ", ledger " << ledger << ", anchor " << anchor << ", move "
      << moved << ":\n"
      << ReadAll(log);
  c.reset();

  EndedA(scratch_.path() + "/spool");
  {
    FaultEnv failing(RealEnv(), FaultPlan{FaultPlan::Kind::kFail, ledger, EIO, false});
    std::unique_ptr<Daemon> d = Make("spool", "anchor-f", &failing);
    ASSERT_TRUE(d->Start().ok());
    ASSERT_TRUE(StepUntil(*d, [&] { return !d->stopped().empty(); })) << "the work did not stop";
    EXPECT_TRUE(Exists("spool/running/A/return.json")) << "not written beside the records";
    EXPECT_FALSE(Exists("spool/returned/A")) << "returned without its entry";
  }
  std::unique_ptr<Daemon> again = Make("spool", "anchor-f");
  ASSERT_TRUE(again->Start().ok());
  ASSERT_TRUE(StepUntil(*again, [&] { return Exists("spool/returned/A/return.json"); }));
  const std::string text = ReadAll(scratch_.path() + "/spool/returned/A/return.json");
  Result<json::Value> ret = json::Parse(text);
  ASSERT_TRUE(ret.ok() && ret->find("ledger_seq")) << text;
  const int64_t seq = ret->find("ledger_seq")->as_int();
  ledger::LedgerStore store(RealEnv(), scratch_.path() + "/spool", "live");
  ASSERT_TRUE(store.OpenForReading().ok());
  int returns = 0;
  bool named = false;
  ASSERT_TRUE(store
                  .ForEach(1,
                           [&](const ledger::Entry& e) {
                             if (e.kind != "mission.returned") return Status::Ok();
                             ++returns;
                             named = e.seq == seq &&
                                     e.body.find("sha256")->as_string() == Sha256Hex(text);
                             return Status::Ok();
                           })
                  .ok());
  EXPECT_EQ(returns, 1);
  EXPECT_TRUE(named) << "return.json names seq " << seq << ", not its entry";
  EXPECT_TRUE(again->stopped().empty()) << again->stopped();
}

// A drone's end is read from the exit.json its supervisor wrote visible, not durable
// (launch/supervisor.cc WriteExit): the batch that decides it fsyncs the file and its run/ beside
// its records (daemon.h ExitRead), before the mission's return. Read at the start (a mission
// recovered with its end) and while hangard runs (the supervisor lets go of its lock).
class EndReadTest : public DaemonTest {
 protected:
  // The call numbers of A's exit.json sync, of the first ledger append after it and of A's move
  // to returned/, from the log.
  void ExpectSynced() {
    const std::string run = spool_ + "/running/A/run";
    uint64_t synced = 0, recorded = 0, moved = 0;
    std::ifstream in(log_);
    for (std::string line; std::getline(in, line);) {
      const uint64_t n = std::stoull(line);
      auto has = [&](const std::string& w) { return line.find(w) != std::string::npos; };
      if (!synced && has(" sync-paths " + run + "/exit.json " + run)) synced = n;
      if (synced && !recorded && has(" append ") && has("/ledger/live/")) recorded = n;
      if (has("rename") && has(" " + spool_ + "/running/A " + spool_ + "/returned/A")) moved = n;
    }
    const std::string calls = ReadAll(log_);
    EXPECT_GT(synced, 0u) << "A's exit.json and run/ were not fsynced:\n" << calls;
    EXPECT_GT(recorded, synced) << calls;  // beside the records: FaultEnv runs its chains first
    EXPECT_GT(moved, recorded) << "A returned before its end was durable:\n" << calls;
  }
  const std::string spool_ = scratch_.path() + "/spool";
  const std::string log_ = scratch_.path() + "/calls.log";
  FaultEnv counting_{RealEnv(), FaultPlan{}};
};

TEST_F(EndReadTest, AnEndReadAtTheStartIsMadeDurableBesideItsRecords) {
  EndedA(spool_);
  ASSERT_TRUE(counting_.OpenLog(log_).ok());
  std::unique_ptr<Daemon> d = Make("spool", "anchor", &counting_);
  ASSERT_TRUE(d->Start().ok());
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/A/return.json"); }));
  ExpectSynced();
}

TEST_F(EndReadTest, AnEndReadWhileRunningIsMadeDurableBesideItsRecords) {
  EndedA(spool_);
  const std::string run = spool_ + "/running/A/run";
  std::filesystem::remove(run + "/exit.json");
  const pid_t holder = HoldLock(run + "/lock");  // the supervisor's
  ASSERT_GT(holder, 0);
  struct Reap {
    pid_t pid;
    ~Reap() {
      if (pid > 0 && kill(-pid, SIGKILL) == 0) waitpid(pid, nullptr, 0);
    }
  } reap{holder};
  ASSERT_TRUE(counting_.OpenLog(log_).ok());
  std::unique_ptr<Daemon> d = Make("spool", "anchor", &counting_);
  ASSERT_TRUE(d->Start().ok());
  EndDrone(run, holder);
  reap.pid = -1;
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/A/return.json"); }));
  ExpectSynced();
}

// A return decided in the batch that launches the next mission is renamed without a sync of its
// own (daemon.h RenameUnsynced): the launch's first wait fsyncs returned/ and its closing sync
// running/, the new directory before the old, and the return is delivered to its notify.dir only
// after both. A return with no launch after it is moved as ever, by the durable rename. Two
// batches: A's Move before B's launch among the acts (B dropped as A's end is decided), and after
// it (A's drone ends while hangard runs, B queued: the end's decision launches B, A's observation
// returns A; RenameBeforeLaunch).
class ReturnBesideLaunchTest : public DaemonTest {
 protected:
  // Spool SPOOL with A running, its return to be delivered to the inbox; B's launch will fail at
  // its shim, at once.
  void SetUp() override {
    for (const char* d : {"/tmp", "/new"}) std::filesystem::create_directories(inbox_ + d);
    std::string a = LaunchedMission("A");
    a.insert(a.size() - 1, ",\"notify\":{\"dir\":\"" + inbox_ + "\"}");
    EndedA(spool_, a);
    std::ofstream(spool_ + "/running/A/intake.json")
        << "{\"hangar\":1,\"uid\":" << geteuid() << "}";  // the inbox's owner dropped it
    std::ofstream(scratch_.path() + "/go") << "";
    ASSERT_TRUE(counting_.OpenLog(log_).ok());
  }
  std::unique_ptr<Daemon> Started() {
    std::unique_ptr<Daemon> d = Make("spool", "anchor", &counting_, "", SlowShim(scratch_.path()));
    EXPECT_TRUE(d->Start().ok());
    return d;
  }
  // The calls of A's return and of LAUNCHED's launch, which comes with it; B's return after (when
  // B is LAUNCHED: its launch failed) with no launch after it.
  void ExpectFolded(Daemon& d, const std::string& launched = "B") {
    ASSERT_TRUE(StepUntil(d, [&] {
      return Exists("spool/returned/A/return.json") && Exists("inbox/new/A.json") &&
             (launched != "B" || Exists("spool/returned/B/return.json"));
    })) << ReadAll(log_);
    const std::string returned = spool_ + "/returned", running = spool_ + "/running";
    uint64_t renamed = 0, first = 0, key = 0, closing = 0, delivered = 0, durable_a = 0,
             durable_b = 0;
    std::ifstream in(log_);
    for (std::string line; std::getline(in, line);) {
      const uint64_t n = std::stoull(line);
      auto has = [&](const std::string& w) { return line.find(w) != std::string::npos; };
      auto names = [&](const std::string& dir) {  // a sync-dirs call naming DIR itself
        return has(" " + dir + " ") || line.ends_with(" " + dir);
      };
      if (has(" rename-later " + running + "/A " + returned + "/A")) renamed = n;
      if (renamed && !first && has(" sync-dirs ") && names(returned)) first = n;
      if (has(" create ") && has("/keys/launch." + launched + ".")) key = n;
      if (first && !closing && has(" sync-dirs ") && names(running) &&
          has(running + "/" + launched + " "))
        closing = n;
      if (has(" maildir ") && has(inbox_) && has("A.json")) delivered = n;
      if (has(" rename " + running + "/A ")) durable_a = n;
      if (has(" rename " + running + "/B ")) durable_b = n;
    }
    const std::string calls = ReadAll(log_);
    EXPECT_GT(renamed, 0u) << "A was not renamed before B's launch:\n" << calls;
    EXPECT_EQ(durable_a, 0u) << "A was renamed by a durable rename of its own:\n" << calls;
    EXPECT_TRUE(renamed < first && first < closing) << "returned/ not fsynced first\n" << calls;
    // A launch whose mission was queued before the batch takes its key beside the records, so
    // before A's rename (daemon.h, LAUNCHES BESIDE THE RECORDS); one dropped in the batch after
    // returned/ is fsynced, in its first wait.
    if (launched == "B")
      EXPECT_LT(first, key) << "returned/ not fsynced in the launch's first wait\n" << calls;
    else
      EXPECT_LT(key, renamed) << launched << "'s key not taken beside the records\n" << calls;
    EXPECT_TRUE(key < closing) << "running/ is not fsynced in the closing sync:\n" << calls;
    EXPECT_GT(delivered, closing) << "A delivered before returned/ and running/ were durable";
    if (launched == "B") {
      EXPECT_GT(durable_b, 0u) << calls;
    }
    EXPECT_TRUE(d.stopped().empty()) << d.stopped();
  }
  const std::string spool_ = scratch_.path() + "/spool", inbox_ = scratch_.path() + "/inbox";
  const std::string log_ = scratch_.path() + "/calls.log";
  FaultEnv counting_{RealEnv(), FaultPlan{}};
};

TEST_F(ReturnBesideLaunchTest, AMoveBeforeTheLaunchIsMadeDurableByItsWaits) {
  std::filesystem::create_directories(spool_ + "/incoming/new");
  std::ofstream(spool_ + "/incoming/new/b.json") << LaunchedMission("B");
  std::unique_ptr<Daemon> d = Started();
  ExpectFolded(*d);
}

TEST_F(ReturnBesideLaunchTest, AMoveAfterTheLaunchIsRenamedBeforeIt) {
  // Two slots, A and C running (their supervisors' locks held), B and D queued. A's drone ends:
  // its turn launches B (whose shim waits) and observes A on the pool. C's ends before the next
  // turn, which decides C's end first (launching D), then A's observation (returning A).
  slots_ = 2;
  std::filesystem::remove(spool_ + "/running/A/run/exit.json");
  Running(spool_, "C", LaunchedMission("C"));
  std::map<std::string, pid_t> locks;  // the supervisors'
  struct Reap {  // whatever holds a lock still when the test ends, as it fails
    std::map<std::string, pid_t>& locks;
    ~Reap() {
      for (const auto& [id, pid] : locks) {
        kill(-pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
  } reap{locks};
  for (const char* id : {"A", "C"}) {
    locks[id] = HoldLock(spool_ + "/running/" + id + "/run/lock");
    ASSERT_GT(locks[id], 0);
  }
  for (const char* id : {"B", "D"}) {
    std::filesystem::create_directories(spool_ + "/queued/" + id);
    std::ofstream(spool_ + "/queued/" + id + "/mission.json") << LaunchedMission(id);
  }
  std::filesystem::remove(scratch_.path() + "/go");  // B's and D's shims wait
  std::unique_ptr<Daemon> d = Started();
  auto end = [&](const std::string& id) {
    EndDrone(spool_ + "/running/" + id + "/run", locks[id]);
    locks.erase(id);
  };
  end("A");
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/keys/launch.B.1"); })) << "B not launched";
  ASSERT_FALSE(Exists("spool/returned/A")) << "A returned in its end's turn";
  d->WaitPool();  // A's observation is done, not yet decided
  end("C");
  ExpectFolded(*d, "D");
  std::ofstream(scratch_.path() + "/go") << "";  // the shims end
}

// RETURNS HELD (daemon.h): a batch of returns alone does not commit while a drone runs whose end
// may come; the next turn's news goes in its commit. Two slots: A ended (its observation begun by
// the start), C running (its supervisor's lock held).
class ReturnsHeldTest : public DaemonTest {
 protected:
  void SetUp() override {
    slots_ = 2;
    EndedA(spool_);
    Running(spool_, "C", LaunchedMission("C"));
    holder_ = HoldLock(spool_ + "/running/C/run/lock");
    ASSERT_GT(holder_, 0);
    ASSERT_TRUE(counting_.OpenLog(log_).ok());
  }
  void TearDown() override { EndC(); }
  // A daemon holding returns for HOLD_US, its turn that decides A's observation taken: A's
  // return decided and, while C runs, held.
  std::unique_ptr<Daemon> Held(int64_t hold_us) {
    std::unique_ptr<Daemon> d = Make("spool", "anchor", &counting_);
    d->HoldReturnsFor(hold_us);
    EXPECT_TRUE(d->Start().ok());
    d->WaitPool();  // A's observation, begun by the start's recovery
    bool quit = false;
    EXPECT_TRUE(d->Step(0, &quit).ok());
    return d;
  }
  // C's drone ends: its exit.json, then its supervisor's lock let go.
  void EndC() {
    if (holder_ > 0) EndDrone(spool_ + "/running/C/run", holder_);
    holder_ = -1;
  }
  // The ledger appends the log holds so far.
  int Appends() {
    std::ifstream in(log_);
    int n = 0;
    for (std::string line; std::getline(in, line);)
      n += line.find(" append ") != std::string::npos &&
           line.find("/ledger/live/") != std::string::npos;
    return n;
  }
  const std::string spool_ = scratch_.path() + "/spool";
  const std::string log_ = scratch_.path() + "/calls.log";
  FaultEnv counting_{RealEnv(), FaultPlan{}};
  pid_t holder_ = -1;
};

TEST_F(ReturnsHeldTest, AReturnAloneGoesInTheCommitOfTheNextDronesEnd) {
  std::unique_ptr<Daemon> d = Held(60'000'000);
  ASSERT_FALSE(Exists("spool/returned/A")) << "A returned in a commit of its own while C runs";
  const int before = Appends();
  EndC();
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/A/return.json"); }))
      << ReadAll(log_);
  EXPECT_EQ(Appends(), before + 1) << "A's return and C's end were not one ledger append:\n"
                                   << ReadAll(log_);
  EXPECT_TRUE(Exists("spool/running/C")) << "C was returned in the same turn";
  EXPECT_TRUE(d->stopped().empty()) << d->stopped();
}

TEST_F(ReturnsHeldTest, AReturnHeldGoesOutOnceItsHoldIsOverWhileTheDroneRuns) {
  std::unique_ptr<Daemon> d = Held(kReturnHoldUs);
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/A/return.json"); }))
      << "A's return was held for good";
  EXPECT_TRUE(Exists("spool/running/C"));
  EXPECT_TRUE(d->stopped().empty()) << d->stopped();
}

TEST_F(ReturnsHeldTest, AStopCommitsAReturnHeld) {
  std::unique_ptr<Daemon> d = Held(60'000'000);
  ASSERT_FALSE(Exists("spool/returned/A"));
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);  // blocked: it waits on the daemon's signalfd
  bool quit = false;
  for (int i = 0; i < 20 && !quit; ++i) ASSERT_TRUE(d->Step(50, &quit).ok());
  ASSERT_TRUE(quit) << "SIGTERM did not end the loop";
  EXPECT_TRUE(Exists("spool/returned/A/return.json")) << "the stop dropped A's return";
}

TEST_F(ReturnsHeldTest, AReturnIsNotHeldWhenNoDroneRuns) {
  EndC();  // C's end is decided at the start: nothing runs when A's observation is
  std::unique_ptr<Daemon> d = Make("spool", "anchor", &counting_);
  d->HoldReturnsFor(60'000'000);
  ASSERT_TRUE(d->Start().ok());
  ASSERT_TRUE(StepUntil(*d, [&] {
    return Exists("spool/returned/A/return.json") && Exists("spool/returned/C/return.json");
  })) << "a return was held with no drone running";
}

// LAUNCHES BESIDE THE RECORDS (daemon.h): a mission queued before the batch that launches it
// takes its key beside the batch's entries, the key naming its entry's seq, and moves to running/
// only after them; a stop between the two leaves a key the ledger does not hold, which the next
// start takes back, so the mission launches as that attempt (not lost for a launch that never
// was).
class LaunchBesideRecordsTest : public DaemonTest {
 protected:
  // SPOOL (under the scratch directory) with B queued; no slot taken. Its launch will fail at
  // the shim, at once (SlowShim, told to go).
  void Queue(const std::string& spool) {
    std::ofstream(scratch_.path() + "/go") << "";
    std::filesystem::create_directories(scratch_.path() + "/" + spool + "/queued/B");
    std::ofstream(scratch_.path() + "/" + spool + "/queued/B/mission.json") << LaunchedMission("B");
  }
  // The numbers of B's key, of the first ledger append after it and of B's move to running/.
  struct Calls {
    uint64_t key = 0, recorded = 0, moved = 0;
  };
  Calls Numbers(const std::string& spool, const std::string& log) {
    Calls c;
    std::ifstream in(log);
    const std::string s = scratch_.path() + "/" + spool;
    for (std::string line; std::getline(in, line);) {
      const uint64_t n = std::stoull(line);
      auto has = [&](const std::string& w) { return line.find(w) != std::string::npos; };
      if (!c.key && has(" create ") && has(s + "/keys/launch.B.1")) c.key = n;
      if (c.key && !c.recorded && has(" append ") && has(s + "/ledger/live/")) c.recorded = n;
      if (!c.moved && has("rename") && has(" " + s + "/queued/B " + s + "/running/B")) c.moved = n;
    }
    return c;
  }
  // The seq of the ledger's last mission.launched entry of key launch.B.1 in SPOOL (0: none).
  int64_t LaunchedAt(const std::string& spool) {
    int64_t last = 0;
    for (const auto& seg :
         std::filesystem::directory_iterator(scratch_.path() + "/" + spool + "/ledger/live")) {
      std::ifstream in(seg.path());
      for (std::string line; std::getline(in, line);) {
        Result<json::Value> e = json::Parse(line);
        if (!e.ok() || !e->is_object() || !e->find("kind") || !e->find("body")) continue;
        const json::Value* key = e->find("body")->find("key");
        if (e->find("kind")->as_string() == "mission.launched" && key &&
            key->as_string() == "launch.B.1")
          last = std::max(last, e->find("seq")->as_int());
      }
    }
    return last;
  }
  void StopAfterKeyAt(const std::string& part);
  int64_t KeySeq(const std::string& spool) {
    Result<json::Value> k =
        json::Parse(ReadAll(scratch_.path() + "/" + spool + "/keys/launch.B.1"));
    const json::Value* seq = k.ok() && k->is_object() ? k->find("ledger_seq") : nullptr;
    return seq && seq->is_int() ? seq->as_int() : -1;
  }
};

TEST_F(LaunchBesideRecordsTest, AQueuedMissionsKeyGoesBesideItsEntryAndNamesItsSeq) {
  Queue("spool");
  const std::string log = scratch_.path() + "/calls.log";
  FaultEnv counting(RealEnv(), FaultPlan{});
  ASSERT_TRUE(counting.OpenLog(log).ok());
  std::unique_ptr<Daemon> d = Make("spool", "anchor", &counting, "", SlowShim(scratch_.path()));
  ASSERT_TRUE(d->Start().ok());
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/B/return.json"); }));
  const Calls c = Numbers("spool", log);
  EXPECT_GT(c.key, 0u) << ReadAll(log);
  EXPECT_GT(c.recorded, c.key) << "B's key came after its entry:\n" << ReadAll(log);
  EXPECT_GT(c.moved, c.recorded) << "B moved before its entry was durable:\n" << ReadAll(log);
  EXPECT_GT(LaunchedAt("spool"), 0);
  EXPECT_EQ(KeySeq("spool"), LaunchedAt("spool"));
}

// B's key taken, then the batch's append to the file PART names failing (the ledger's: its entry
// never written; the anchor's: written, and caught up by the next start, which anchors it then,
// never acted on); restarted, hangard takes the key back and B launches as attempt 1.
void LaunchBesideRecordsTest::StopAfterKeyAt(const std::string& part) {
  // Where that append is, counted on a spool like it.
  Queue("count");
  const std::string log = scratch_.path() + "/count.log";
  uint64_t append = 0;
  {
    FaultEnv counting(RealEnv(), FaultPlan{});
    ASSERT_TRUE(counting.OpenLog(log).ok());
    std::unique_ptr<Daemon> d = Make("count", "anchor0", &counting, "", SlowShim(scratch_.path()));
    ASSERT_TRUE(d->Start().ok());
    ASSERT_TRUE(StepUntil(*d, [&] { return Exists("count/keys/launch.B.1"); }));
    const uint64_t key = Numbers("count", log).key;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line) && !append;)
      if (std::stoull(line) > key && line.find(" append ") != std::string::npos &&
          line.find(part) != std::string::npos)
        append = std::stoull(line);
    ASSERT_GT(append, 0u) << ReadAll(log);
  }
  Queue("spool");
  {
    FaultEnv failing(RealEnv(), FaultPlan{FaultPlan::Kind::kFail, append, EIO});
    std::unique_ptr<Daemon> d = Make("spool", "anchor", &failing, "", SlowShim(scratch_.path()));
    ASSERT_TRUE(d->Start().ok());
    ASSERT_TRUE(StepUntil(*d, [&] { return !d->stopped().empty() || Exists("spool/running/B"); }));
    ASSERT_FALSE(Exists("spool/running/B")) << "B moved though its records failed";
  }
  ASSERT_TRUE(Exists("spool/keys/launch.B.1")) << "no key before the entry";
  ASSERT_TRUE(Exists("spool/queued/B/launch.json"));
  ASSERT_EQ(LaunchedAt("spool") > 0, part == "/live.anchor") << "the entry, as the stop left it";
  std::unique_ptr<Daemon> d = Make("spool", "anchor", RealEnv(), "", SlowShim(scratch_.path()));
  ASSERT_TRUE(d->Start().ok());
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/B/return.json"); }));
  Result<json::Value> ret = json::Parse(ReadAll(scratch_.path() + "/spool/returned/B/return.json"));
  ASSERT_TRUE(ret.ok() && ret->is_object());
  // Its launch fails at the shim: "failed", where a key left standing ends it lost.
  EXPECT_EQ(ret->find("outcome")->as_string(), "failed") << json::Write(*ret);
  EXPECT_EQ(ret->find("attempt")->as_int(), 1);
  EXPECT_GT(LaunchedAt("spool"), 0);
  EXPECT_EQ(KeySeq("spool"), LaunchedAt("spool"));
}

TEST_F(LaunchBesideRecordsTest, AKeyWhoseEntryNeverCameIsTakenBackAndTheMissionLaunches) {
  StopAfterKeyAt("/ledger/live/");
}

TEST_F(LaunchBesideRecordsTest, AKeyWhoseEntryTheStartCaughtUpIsTakenBackAndTheMissionLaunches) {
  StopAfterKeyAt("/live.anchor");
}

// The signal record (man/hangar-signals.5): a start line, then the drop's line, whose hash the
// decision's ledger entry carries; and nothing at all with record_signals false.
TEST_F(DaemonTest, EachDecisionIsRecordedAndItsEntriesNameItsLine) {
  std::unique_ptr<Daemon> d = Make("spool", "anchor");
  ASSERT_TRUE(d->Start().ok());
  Drop("spool", "incoming", "h1.json", HeldMission("H1"));
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/hold/H1/gate1.json"); }));
  ledger::SignalReader reader(RealEnv(), scratch_.path() + "/spool/signals/live");
  ASSERT_TRUE(reader.Open().ok());
  std::vector<ledger::Line> lines;
  for (;;) {
    Result<std::optional<ledger::Line>> l = reader.Next();
    ASSERT_TRUE(l.ok()) << l.status().message();
    if (!l->has_value()) break;
    lines.push_back(**l);
  }
  ASSERT_GE(lines.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<ledger::StartLine>(lines[0]));
  std::string dropped_hash;
  for (const ledger::Line& l : lines)
    if (auto* s = std::get_if<ledger::SignalLine>(&l);
        s && std::holds_alternative<Dropped>(s->signal)) {
      EXPECT_EQ(std::get<Dropped>(s->signal).bytes, HeldMission("H1"));
      EXPECT_EQ(s->records, 1);
      dropped_hash = s->hash;
    }
  ASSERT_FALSE(dropped_hash.empty()) << "the drop was not recorded";
  ledger::LedgerStore store(RealEnv(), scratch_.path() + "/spool", "live");
  ASSERT_TRUE(store.OpenForReading().ok());
  bool named = false;
  ASSERT_TRUE(store
                  .ForEach(1,
                           [&](const ledger::Entry& e) {
                             if (e.kind == "mission.held")
                               named = e.body.find("signal_record") &&
                                       e.body.find("signal_record")->as_string() == dropped_hash;
                             return Status::Ok();
                           })
                  .ok());
  EXPECT_TRUE(named) << "mission.held does not name the drop's line";

  std::unique_ptr<Daemon> off = Make("spool2", "anchor2", RealEnv(), R"("record_signals":false,)");
  ASSERT_TRUE(off->Start().ok());
  Drop("spool2", "incoming", "h2.json", HeldMission("H2"));
  ASSERT_TRUE(StepUntil(*off, [&] { return Exists("spool2/hold/H2/gate1.json"); }));
  EXPECT_FALSE(Exists("spool2/signals/live/signals.jsonl"));
}

// A decision that only logs (Ready, at the end of every start) waits in memory for the next line
// that must be durable; a stop writes it out, so a clean stop leaves the record whole.
TEST_F(DaemonTest, AStopWritesTheLinesThatWaited) {
  std::unique_ptr<Daemon> d = Make("spool", "anchor");
  ASSERT_TRUE(d->Start().ok());
  const std::string file = scratch_.path() + "/spool/signals/live/signals.jsonl";
  auto lines = [&] {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    return std::count(text.begin(), text.end(), '\n');
  };
  const auto before = lines();
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);  // blocked: it waits on the daemon's signalfd
  bool quit = false;
  for (int i = 0; i < 20 && !quit; ++i) ASSERT_TRUE(d->Step(50, &quit).ok());
  ASSERT_TRUE(quit) << "SIGTERM did not end the loop";
  EXPECT_GT(lines(), before) << "the Ready line was not written at the stop";
}

// LAUNCHES OFF THE LOOP (daemon.h). A stand-in for hangar-shim that says it started (DIR/started.N,
// N counting from 0) and then does not report until DIR/go or DIR/go.N exists, when it refuses
// (exit 1), naming the plan's sha256. It is no zygote (launch/shim_zygote.h): started as one, it
// exits, and each launch starts it cold.
std::string SlowShim(const std::string& dir) {
  const std::string path = dir + "/slow-shim";
  std::ofstream f(path);
  f << "#!/bin/sh\n";
  f << "[ \"$1\" = --zygote ] && exit 1\n";
  f << "n=$(ls " << dir << " | grep -c '^started')\n";
  f << "touch " << dir << "/started.$n\n";
  f << "while [ ! -e " << dir << "/go ] && [ ! -e " << dir << "/go.$n ]; do sleep 0.02; done\n";
  f << "echo \"cannot start drone: the test shim refuses plan $2\" >&2\n";
  f << "exit 1\n";
  f.close();
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

pid_t DaemonTest::HoldLock(const std::string& lock) {
  const pid_t pid = fork();
  if (pid == 0) {
    // flock alone holds the lock (-o: not its sleep), so the lock is gone once flock is reaped;
    // the two are one group to end.
    setpgid(0, 0);
    execlp("flock", "flock", "-o", lock.c_str(), "sleep", "600", nullptr);
    _exit(127);
  }
  const std::string run = std::filesystem::path(lock).parent_path();
  for (int i = 0; pid > 0 && i < 500 && !SupervisorAlive(run); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (pid > 0 && SupervisorAlive(run)) return pid;
  if (pid > 0 && kill(-pid, SIGKILL) == 0) waitpid(pid, nullptr, 0);
  return -1;
}

void DaemonTest::EndDrone(const std::string& run, pid_t holder) {
  WriteEnd(run);
  kill(-holder, SIGKILL);
  waitpid(holder, nullptr, 0);
}

// A daemon with SlowShim, one slot, and mission A launching: its shim started, no report yet.
std::unique_ptr<Daemon> DaemonTest::LaunchingA() {
  std::unique_ptr<Daemon> d = Make("spool", "anchor", RealEnv(), "", SlowShim(scratch_.path()));
  EXPECT_TRUE(d->Start().ok());
  Drop("spool", "incoming", "a.json", LaunchedMission("A"));
  EXPECT_TRUE(StepUntil(*d, [&] { return Exists("started.0"); })) << "A's shim did not start";
  return d;
}

TEST_F(DaemonTest, ADropIsTakenWhileALaunchWaitsForItsShim) {
  const std::string dir = scratch_.path();
  std::unique_ptr<Daemon> d = LaunchingA();
  ASSERT_TRUE(Exists("started.0"));
  EXPECT_TRUE(Exists("spool/running/A/launch.json")) << "the launch's spool part comes first";
  // The only slot is A's; B waits in queued/, taken in while A's shim has not reported.
  Drop("spool", "incoming", "b.json", LaunchedMission("B"));
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/queued/B/mission.json"); }, 20))
      << "B was not taken in while A's launch was in flight";
  EXPECT_FALSE(Exists("go"));
  EXPECT_FALSE(Exists("spool/returned/A")) << "A's launch was decided before its shim reported";
  // A supervisor check meanwhile does not call A lost: it is launching.
  for (int i = 0; i < 3; ++i) {
    bool quit = false;
    ASSERT_TRUE(d->Step(int(kSupervisorCheckMs), &quit).ok());
  }
  EXPECT_FALSE(Exists("spool/returned/A"));
  std::ofstream(dir + "/go").flush();
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/A/return.json"); }))
      << "A's failed launch was not decided";
  std::ifstream in(scratch_.path() + "/spool/returned/A/return.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("the test shim refuses"), std::string::npos) << text;
  EXPECT_NE(text.find("\"failed\""), std::string::npos) << text;
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/B/return.json"); }))
      << "B was not launched once A's slot was free";
}

TEST_F(DaemonTest, AStopDecidesTheLaunchesInFlight) {
  const std::string dir = scratch_.path();
  std::unique_ptr<Daemon> d = LaunchingA();
  ASSERT_TRUE(Exists("started.0"));
  std::thread go([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::ofstream(dir + "/go").flush();
  });
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);  // blocked: it waits on the daemon's signalfd
  bool quit = false;
  for (int i = 0; i < 20 && !quit; ++i) ASSERT_TRUE(d->Step(50, &quit).ok());
  go.join();
  ASSERT_TRUE(quit) << "SIGTERM did not end the loop";
  EXPECT_TRUE(Exists("spool/returned/A/return.json"))
      << "the stop left A's launch undecided: a start would call it lost";
}

// A launch's report that comes after its attempt is over (its end forged and returned, the mission
// retried and launched again) is dropped: decided, it would end the next attempt, which LaunchDone
// does not name.
TEST_F(DaemonTest, ALateReportOfAnEndedAttemptIsDropped) {
  const std::string dir = scratch_.path(), run = dir + "/spool/running/A/run";
  std::unique_ptr<Daemon> d = LaunchingA();
  ASSERT_TRUE(Exists("started.0"));
  // Attempt 1's end, as a supervisor leaves it (no lock held: its shim has not even reported).
  WriteEnd(run, 1);
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/A/return.json"); }))
      << "attempt 1's end was not decided";
  Drop("spool", "control", "r1.json", R"({"hangar":1,"request":"retry","id":"A"})");
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("started.1"); })) << "attempt 2 did not launch";
  const std::string plan2 = std::filesystem::exists(dir + "/spool/running/A/plan.json")
                                ? Sha256Hex([&] {
                                    std::ifstream in(dir + "/spool/running/A/plan.json");
                                    return std::string((std::istreambuf_iterator<char>(in)), {});
                                  }())
                                : "";
  ASSERT_FALSE(plan2.empty());
  // Attempt 1's shim reports (it refuses) while attempt 2 is launching: nothing may come of it.
  std::ofstream(dir + "/go.0").flush();
  StepUntil(*d, [] { return false; }, 20);
  EXPECT_TRUE(Exists("spool/running/A")) << "attempt 1's report ended attempt 2";
  std::ofstream(dir + "/go.1").flush();
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/returned/A/return.json"); }))
      << "attempt 2's failed launch was not decided";
  std::ifstream in(dir + "/spool/returned/A/return.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("refuses plan " + plan2), std::string::npos)
      << "attempt 2 was ended by another report than its own: " << text;
}

// A control request taken in the turn whose observation returns its mission reads the mission as
// that decision left it (daemon.h, THE BATCH): the turn commits and performs what it decided before
// it takes the request, so a retry finds returned/A and is accepted. Without that, the retry read
// returned/A before the move that makes it and was refused ("nothing was read").
TEST_F(DaemonTest, ARetryInTheTurnThatReturnsItsMissionReadsTheReturn) {
  const std::string dir = scratch_.path(), run = dir + "/spool/running/A/run";
  std::unique_ptr<Daemon> d = LaunchingA();
  WriteEnd(run, 1);
  // The turn that decides the end sends the room to be observed (its line has "exit" in it).
  const std::string record = dir + "/spool/signals/live/signals.jsonl";
  ASSERT_TRUE(StepUntil(*d, [&] {
    std::ifstream in(record);
    return std::string((std::istreambuf_iterator<char>(in)), {}).find("\"exit\"") !=
           std::string::npos;
  })) << "the end was not decided";
  ASSERT_FALSE(Exists("spool/returned/A"));
  // The observation ends meanwhile (a room of nothing: a millisecond; a second leaves room for a
  // loaded machine), and the retry comes: one turn finds both.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  Drop("spool", "control", "r1.json", R"({"hangar":1,"request":"retry","id":"A"})");
  bool quit = false;
  ASSERT_TRUE(d->Step(50, &quit).ok());
  ASSERT_TRUE(StepUntil(*d, [&] { return Exists("spool/control/done/r1.json.json"); }))
      << "the retry was not answered";
  std::ifstream in(dir + "/spool/control/done/r1.json.json");
  const std::string answer((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(answer.find("nothing was read"), std::string::npos) << answer;
  EXPECT_TRUE(StepUntil(*d, [&] { return Exists("started.1"); }))
      << "attempt 2 did not launch: " << answer;
  std::ofstream(dir + "/go").flush();
  StepUntil(*d, [&] { return Exists("spool/returned/A/return.json"); });
}

}  // namespace
}  // namespace hangar
