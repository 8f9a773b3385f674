// The two-stage gate. Stage 1 judges the mission at intake; stage 2 judges the exact plan just
// before launch. Verdicts are allow, hold (a person decides) or deny, with the ids of the rules
// that fired. Deterministic: same input, same verdict. The policy file and its rules arrive with
// the gate issue; until then stage 1 allows every valid mission, and stage 2 enforces only what
// the core promises: a plan carries the mission's deadline and the launcher can enforce it.
#pragma once

#include <string>
#include <vector>

#include "base/json.h"
#include "base/timefmt.h"
#include "kernel/mission.h"
#include "kernel/plan.h"
#include "kernel/verdict.h"

namespace hangar {

struct GateResult {
  Verdict verdict = Verdict::kAllow;
  std::vector<std::string> rules;  // ids of the rules that fired
  std::string reason;              // one line for people; empty when allowed

  // {"hangar":1,"stage":N,"verdict":...,"rules":[...],"reason":...,"time":...}
  json::Value ToJson(int stage, TimeMs now) const;
};

GateResult GateStage1(const Mission& m);
// launchers: the launchers that can enforce a deadline ("direct" today).
GateResult GateStage2(const Mission& m, const Plan& plan);

}  // namespace hangar
