#include "replay/comparer.h"

#include <algorithm>
#include <set>
#include <utility>

#include "base/sha256.h"
#include "kernel/decision_digest.h"

namespace hangar::replay {

namespace {

const std::set<std::string> kRestrictive = {"mission.held", "mission.denied", "mission.rejected",
                                            "op.refused", "control.refused"};
const std::set<std::string> kPermissive = {"mission.accepted", "mission.launched", "op.allowed",
                                           "grant", "person.approved"};

std::string RulesOf(const json::Value& body) {
  std::vector<std::string> out;
  if (const json::Value* r = body.find("rules"); r && r->is_array())
    for (const json::Value& x : r->as_array())
      if (x.is_string()) out.push_back(x.as_string());
  if (const json::Value* r = body.find("rule"); r && r->is_string() && !r->as_string().empty())
    out.push_back(r->as_string());
  return Joined(out);
}

}  // namespace

std::string Joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

Comparer::Comparer(const StepSink& step, const RecordSink& record)
    : step_out_(step), record_out_(record) {
  filling_.reserve(kChunkSteps);
  thread_ = std::thread([this] { Run(); });
}

Comparer::~Comparer() {
  Summary ignored;
  (void)Finish(&ignored);
}

void Comparer::Push(Decided d) {
  filling_.push_back(std::move(d));
  if (filling_.size() == kChunkSteps) Hand(false);
}

void Comparer::Hand(bool last) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return ready_.size() < kChunks; });
  if (!filling_.empty()) ready_.push_back(std::move(filling_));
  filling_ = Chunk();
  filling_.reserve(kChunkSteps);
  done_ = done_ || last;
  lock.unlock();
  cv_.notify_all();
}

Status Comparer::Finish(Summary* sum) {
  if (!thread_.joinable()) return status_;
  Hand(true);
  thread_.join();
  sum->signals += counts_.signals;
  sum->same += counts_.same;
  sum->differ += counts_.differ;
  sum->state_only += counts_.state_only;
  sum->widening += counts_.widening;
  if (!sum->first_divergence) sum->first_divergence = counts_.first_divergence;
  return status_;
}

void Comparer::Run() {
  for (;;) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done_ || !ready_.empty(); });
    if (ready_.empty()) return;
    Chunk chunk = std::move(ready_.front());
    ready_.pop_front();
    lock.unlock();
    cv_.notify_all();
    for (Decided& d : chunk)
      if (status_.ok()) Compare(d);
  }
}

void Comparer::Compare(Decided& d) {
  Step& step = d.step;
  std::vector<std::string> kinds, rules;
  for (const Action& a : d.acts)
    if (auto* r = std::get_if<Record>(&a)) {
      kinds.push_back(r->kind);
      if (std::string ru = RulesOf(r->body); !ru.empty()) rules.push_back(ru);
    }
  // The missions named: the replay's and those of the live decision's entries.
  for (const std::string& id : d.live_ids)
    if (std::find(step.missions.begin(), step.missions.end(), id) == step.missions.end())
      step.missions.push_back(id);
  std::sort(step.missions.begin(), step.missions.end());
  step.would = Joined(kinds);
  step.rules_would = Joined(rules);
  const bool decision_same = Sha256Hex(DecisionText(d.acts)) == d.live_decision;
  const bool acts_at_all = Acts(d.acts);
  for (Action& a : d.acts)
    if (auto* r = std::get_if<Record>(&a))
      if (Status s = record_out_(std::move(*r), step); !s.ok()) {
        status_ = s;
        failed_.store(true, std::memory_order_relaxed);
        return;
      }
  if (d.new_start) global_differs_ = false;
  const bool state_same = Sha256Hex(d.state_text) == d.live_state;
  const bool global_same = Sha256Hex(d.global_text) == d.live_global;
  const bool global_began = !global_same && !global_differs_;
  global_differs_ = !global_same;
  if (!decision_same)
    step.cls = !d.live_acts && acts_at_all   ? StepClass::kExtra
               : d.live_acts && !acts_at_all ? StepClass::kMissing
                                             : StepClass::kDecisionDiffers;
  else if (!state_same || global_began)
    step.cls = StepClass::kStateDiffers;
  // Which part: the digests say no more, what the entries name does.
  if (step.cls != StepClass::kSame)
    step.part = !decision_same                       ? "the actions"
                : step.rules_was != step.rules_would ? "the gate's rules"
                : !state_same                        ? "the missions' state or the grants"
                                                     : "the shared state (queue, slots, counter)";
  for (const std::string& k : kinds)
    if (kPermissive.count(k) &&
        std::find(d.live_kinds.begin(), d.live_kinds.end(), k) == d.live_kinds.end() &&
        std::any_of(d.live_kinds.begin(), d.live_kinds.end(),
                    [](const std::string& l) { return kRestrictive.count(l) > 0; }))
      step.widening = true;
  if (!d.in_range) return;  // fed for the state it leaves, not reported or counted
  ++counts_.signals;
  if (step.cls == StepClass::kSame) {
    ++counts_.same;
  } else {
    ++counts_.differ;
    counts_.state_only += step.cls == StepClass::kStateDiffers;
    counts_.widening += step.widening;
    if (!counts_.first_divergence) counts_.first_divergence = step;
  }
  step_out_(step);
}

}  // namespace hangar::replay
