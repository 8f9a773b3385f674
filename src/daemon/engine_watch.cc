#include "daemon/engine_watch.h"

#include "base/json.h"

namespace hangar {

namespace {

// What ENGINE says of each of PLANS, in one look (Launcher::ObserveAll); none: no such launcher.
std::vector<Result<EngineReport>> ObserveWith(Launcher* engine, const std::vector<Plan>& plans) {
  if (!engine)
    return std::vector<Result<EngineReport>>(plans.size(), Status::Invalid("no such launcher"));
  return engine->ObserveAll(plans);
}

}  // namespace

EngineWatch::EngineWatch(Env* env, Layout layout, MakeFn make, SayFn say)
    : env_(env), layout_(std::move(layout)), make_(std::move(make)), say_(std::move(say)) {}

Launcher* EngineWatch::For(const std::string& name) {
  auto it = launchers_.find(name);
  if (it == launchers_.end()) it = launchers_.emplace(name, make_(name)).first;
  return it->second.get();
}

void EngineWatch::Track(const std::string& id, const Plan& plan, TimeMs now) {
  runs_[id] = plan;
  since_[id] = now;
}

void EngineWatch::Forget(const std::string& id) {
  runs_.erase(id);
  since_.erase(id);
}

const Plan* EngineWatch::PlanOf(const std::string& id) const {
  auto it = runs_.find(id);
  return it == runs_.end() ? nullptr : &it->second;
}

EngineWatch::Looked EngineWatch::Look(TimeMs now) {
  std::map<std::string, std::vector<std::string>> by_launcher;
  for (const auto& [id, plan] : runs_) by_launcher[plan.launcher].push_back(id);
  Looked out;
  std::vector<Seen>& seen = out.seen;
  std::string& unanswered = out.unanswered;
  for (const auto& [name, ids] : by_launcher) {
    std::vector<Plan> plans;
    for (const std::string& id : ids) plans.push_back(runs_.at(id));
    std::vector<Result<EngineReport>> reports = ObserveWith(For(name), plans);
    for (size_t i = 0; i < ids.size(); ++i) {
      const std::string& id = ids[i];
      const Result<EngineReport>& r = reports[i];
      if (!r.ok()) {
        unanswered = id + ": " + name + " cannot say how its drone is (" + r.status().message() +
                     "); asked again";
        continue;
      }
      if (r->state == EngineReport::State::kUnknown && now - since_[id] < kEngineSettleMs &&
          StartUnsettled(env_, plans[i]))
        continue;  // asked to start it, and its answer is not settled yet
      switch (r->state) {
        case EngineReport::State::kEnded:
          seen.push_back({Seen::Kind::kEnded, id, r->exit});
          break;
        case EngineReport::State::kUnknown:
          seen.push_back({Seen::Kind::kGone, id, {},
                          id + ": " + name + " knows no drone " +
                              (r->name.empty() ? id : r->name) + " and it left no end: lost"});
          break;
        case EngineReport::State::kPending:
        case EngineReport::State::kRunning:
          seen.push_back({Seen::Kind::kRunning, id});
          break;
      }
    }
  }
  return out;
}

void EngineWatch::SayUnanswered(const std::string& unanswered) {
  if (unanswered != said_ && !unanswered.empty()) say_(unanswered);
  said_ = unanswered;
}

Result<std::set<std::string>> EngineWatch::CollectEnds() {
  // The engine-run missions of running/ whose drone has not been seen ending, by launcher.
  std::map<std::string, std::vector<std::pair<std::string, Plan>>> by_launcher;
  Result<std::vector<std::string>> ids = env_->ListDir(layout_.StateDir(Phase::kRunning));
  if (!ids.ok()) return ids.status();
  for (const std::string& id : *ids) {
    if (id.empty() || id[0] == '.') continue;
    if (env_->Exists(layout_.RunDir(id) + "/exit.json")) continue;
    Result<std::string> text =
        env_->ReadFile(layout_.MissionDir(Phase::kRunning, id) + "/plan.json", 1 << 20);
    if (!text.ok()) continue;
    Result<json::Value> doc = json::Parse(*text);
    Result<Plan> plan = doc.ok() ? Plan::FromJson(*doc) : Result<Plan>(doc.status());
    if (!plan.ok() || plan->launcher == "direct") continue;
    // Only an attempt whose launch key was taken may have reached its engine.
    if (!env_->Exists(layout_.LaunchKey(id, plan->attempt))) continue;
    by_launcher[plan->launcher].emplace_back(id, *plan);
  }
  std::set<std::string> alive;
  for (const auto& [name, missions] : by_launcher) {
    std::vector<Plan> plans;
    for (const auto& m : missions) plans.push_back(m.second);
    std::vector<Result<EngineReport>> reports = ObserveWith(For(name), plans);
    for (size_t i = 0; i < missions.size(); ++i) {
      const auto& [id, plan] = missions[i];
      const Result<EngineReport>& r = reports[i];
      const std::string run = layout_.RunDir(id);
      if (!r.ok()) {
        say_(id + ": " + name + " cannot say how its drone is (" + r.status().message() +
             "); taken as running, asked again");
      } else if (r->state == EngineReport::State::kEnded) {
        Status s = env_->WriteFileAtomic(run, "exit.json", json::WritePretty(r->exit.ToJson()));
        if (!s.ok()) return s;
        say_(id + ": ended under " + name + " while hangard was down (" + r->detail + ")");
        continue;
      } else if (r->state == EngineReport::State::kUnknown && !StartUnsettled(env_, plan)) {
        continue;  // started and now known nowhere, or never asked to start: recovery says lost
      }
      // Running, or the engine cannot say, or a start not settled (asked, but no answer kept: a
      // crash during the engine's tool): asked again; lost only once kEngineSettleMs have passed.
      alive.insert(run);
      Track(id, plan, env_->Now());
    }
  }
  return alive;
}

}  // namespace hangar
