// EngineWatch with a fake engine on a scratch spool: an end is reported, a drone the engine knows
// none of is gone only once its start is settled (or kEngineSettleMs after), an engine that does
// not answer is said once and never taken as an end; at start, ends seen meanwhile become exit
// records and what still runs is tracked and alive.
#include "daemon/engine_watch.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/scratch_dir_testutil.h"

namespace hangar {
namespace {

// An engine whose answer for each drone (by mission id) the test sets.
class FakeEngine : public Launcher {
 public:
  std::map<std::string, Result<EngineReport>> answers;
  int looks = 0;
  Status Start(const Plan&, const std::string&, const std::string&) override {
    return Status::Ok();
  }
  Result<EngineReport> Observe(const Plan& plan) override {
    auto it = answers.find(plan.id);
    return it == answers.end() ? Result<EngineReport>(EngineReport{}) : it->second;
  }
  std::vector<Result<EngineReport>> ObserveAll(const std::vector<Plan>& plans) override {
    ++looks;
    return Launcher::ObserveAll(plans);
  }
  Status Cancel(const Plan&) override { return Status::Ok(); }
};

EngineReport Report(EngineReport::State s, int rc = 0) {
  EngineReport r;
  r.state = s;
  r.exit.rc = rc;
  return r;
}

class EngineWatchTest : public ::testing::Test {
 protected:
  EngineWatch::Seen::Kind KindOf(const std::vector<EngineWatch::Seen>& seen,
                                 const std::string& id) {
    for (const auto& s : seen)
      if (s.id == id) return s.kind;
    ADD_FAILURE() << id << " not seen";
    return EngineWatch::Seen::Kind::kRunning;
  }
  Plan PlanFor(const std::string& id, const std::string& launcher = "systemd") {
    Plan p;
    p.id = id;
    p.launcher = launcher;
    p.attempt = 1;
    p.run = layout_.RunDir(id);
    p.room = layout_.Room(id);
    p.argv = {"/bin/true"};
    p.deadline_ms = p.enforced_deadline_ms = 60000;
    p.sandbox.engine = "none";
    p.sandbox.write = {p.room};
    std::filesystem::create_directories(p.run);
    return p;
  }
  // running/ID as a launch left it: plan.json and, when keyed, its launch key.
  void Running(const Plan& p, bool keyed = true) {
    const std::string dir = layout_.MissionDir(Phase::kRunning, p.id);
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/plan.json") << json::WritePretty(p.ToJson());
    std::filesystem::create_directories(
        std::filesystem::path(layout_.LaunchKey(p.id, 1)).parent_path());
    if (keyed) std::ofstream(layout_.LaunchKey(p.id, p.attempt)) << "{}";
  }

  ScratchDir scratch_{"enginew"};
  Layout layout_{scratch_.path() + "/spool", scratch_.path() + "/rooms"};
  FakeEngine* engine_ = nullptr;  // owned by the watch, made on first use
  int made_ = 0;
  std::vector<std::string> said_;
  EngineWatch w_{RealEnv(), layout_,
                 [this](const std::string& name) -> std::unique_ptr<Launcher> {
                   ++made_;
                   if (name != "systemd") return nullptr;
                   auto e = std::make_unique<FakeEngine>();
                   engine_ = e.get();
                   return e;
                 },
                 [this](const std::string& l) { said_.push_back(l); }};
};

TEST_F(EngineWatchTest, EndsRunningAndGoneAreReportedInOneLookPerEngine) {
  for (const char* id : {"E", "R", "G"}) w_.Track(id, PlanFor(id), 0);
  w_.For("systemd");
  engine_->answers.insert_or_assign("E",
                                    Result<EngineReport>(Report(EngineReport::State::kEnded, 3)));
  engine_->answers.insert_or_assign("R",
                                    Result<EngineReport>(Report(EngineReport::State::kRunning)));
  engine_->answers.insert_or_assign("G",
                                    Result<EngineReport>(Report(EngineReport::State::kUnknown)));
  const EngineWatch::Looked looked = w_.Look(1000);
  const std::vector<EngineWatch::Seen>& seen = looked.seen;
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(KindOf(seen, "E"), EngineWatch::Seen::Kind::kEnded);
  EXPECT_EQ(KindOf(seen, "R"), EngineWatch::Seen::Kind::kRunning);
  EXPECT_EQ(KindOf(seen, "G"), EngineWatch::Seen::Kind::kGone);
  for (const auto& s : seen) {
    if (s.id == "E") {
      EXPECT_EQ(s.exit.rc, 3);
    } else if (s.id == "G") {
      EXPECT_NE(s.line.find("G: systemd knows no drone G"), std::string::npos) << s.line;
    }
  }
  EXPECT_EQ(engine_->looks, 1);
  EXPECT_EQ(made_, 1);  // made once, on first use
  EXPECT_TRUE(looked.unanswered.empty());
  EXPECT_TRUE(said_.empty());  // the caller says the lost line as it decides the drone lost
}

TEST_F(EngineWatchTest, AnUnsettledStartIsNotGoneBeforeTheSettleTime) {
  const Plan p = PlanFor("U");
  std::ofstream(p.run + "/" + kStartRecord) << "{}";  // asked to start, no answer kept
  w_.Track("U", p, 1000);
  w_.For("systemd");  // answers kUnknown for every drone
  EXPECT_TRUE(w_.Look(1000 + kEngineSettleMs - 1).seen.empty());
  const std::vector<EngineWatch::Seen> seen = w_.Look(1000 + kEngineSettleMs).seen;
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].kind, EngineWatch::Seen::Kind::kGone);
}

TEST_F(EngineWatchTest, AnEngineThatDoesNotAnswerIsSaidOnceAndNeverAnEnd) {
  w_.Track("S", PlanFor("S"), 0);
  w_.For("systemd");
  engine_->answers.insert_or_assign(
      "S", Result<EngineReport>(Status::Unavailable("systemctl timed out")));
  for (TimeMs now : {1, 2}) {
    const EngineWatch::Looked looked = w_.Look(now);
    EXPECT_TRUE(looked.seen.empty());
    w_.SayUnanswered(looked.unanswered);
  }
  ASSERT_EQ(said_.size(), 1u);
  EXPECT_NE(said_[0].find("cannot say how its drone is (systemctl timed out)"), std::string::npos);
  w_.Forget("S");
  EXPECT_TRUE(w_.empty());
  EXPECT_EQ(w_.PlanOf("S"), nullptr);
}

TEST_F(EngineWatchTest, AtStartEndsBecomeExitRecordsAndWhatRunsIsAlive) {
  const Plan ended = PlanFor("A"), runs = PlanFor("B"), unkeyed = PlanFor("C"),
             direct = PlanFor("D", "direct"), unknown = PlanFor("F");
  for (const Plan* p : {&ended, &runs, &direct, &unknown}) Running(*p);
  Running(unkeyed, /*keyed=*/false);
  w_.For("systemd");
  engine_->answers.insert_or_assign("A",
                                    Result<EngineReport>(Report(EngineReport::State::kEnded, 0)));
  engine_->answers.insert_or_assign("B",
                                    Result<EngineReport>(Report(EngineReport::State::kRunning)));
  engine_->answers.insert_or_assign("C",
                                    Result<EngineReport>(Report(EngineReport::State::kRunning)));
  Result<std::set<std::string>> alive = w_.CollectEnds();
  ASSERT_TRUE(alive.ok()) << alive.status().message();
  EXPECT_EQ(*alive, (std::set<std::string>{runs.run}));
  EXPECT_TRUE(std::filesystem::exists(ended.run + "/exit.json"));
  EXPECT_FALSE(std::filesystem::exists(runs.run + "/exit.json"));
  EXPECT_NE(w_.PlanOf("B"), nullptr);
  for (const char* id : {"A", "C", "D", "F"}) EXPECT_EQ(w_.PlanOf(id), nullptr) << id;
}

}  // namespace
}  // namespace hangar
