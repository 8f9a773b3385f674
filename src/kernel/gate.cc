#include "kernel/gate.h"

namespace hangar {

json::Value GateResult::ToJson(int stage, TimeMs now) const {
  json::Object o;
  o["hangar"] = 1;
  o["stage"] = stage;
  o["verdict"] = VerdictName(verdict);
  o["rules"] = json::Array(rules.begin(), rules.end());
  o["reason"] = reason;
  o["time"] = FormatTime(now);
  return o;
}

GateResult GateStage1(const Mission&) {
  return GateResult{};
}

GateResult GateStage2(const Mission& m, const Plan& plan) {
  GateResult g;
  auto deny = [&](const char* rule, std::string why) {
    g.verdict = Verdict::kDeny;
    g.rules.push_back(rule);
    if (g.reason.empty()) g.reason = std::move(why);
  };
  if (plan.deadline_ms <= 0)
    deny("plan.deadline.missing", "the plan carries no deadline");
  else if (plan.deadline_ms != m.deadline_ms())
    deny("plan.deadline.mismatch", "the plan's deadline " + std::to_string(plan.deadline_ms) +
                                       " ms differs from max_minutes (" +
                                       std::to_string(m.deadline_ms()) + " ms)");
  if (plan.launcher != "direct")
    deny("plan.launcher.unknown",
         "launcher \"" + plan.launcher + "\" cannot enforce a deadline here");
  if (plan.argv.empty()) deny("plan.argv.empty", "the plan has no program to run");
  if (plan.id != m.id) deny("plan.id.mismatch", "the plan is for another mission");
  return g;
}

}  // namespace hangar
