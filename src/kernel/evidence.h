// Declaration versus evidence: what the drone said it would do (DECLARATION.json) against what
// the kernel saw it do through the window (the ops it asked for, the acts that ran). Pure.
//
//   allow: declaration matches evidence
//   reassess: <reasons>   no declaration, or an invalid one; an op requested (answered or not)
//                         that the final declaration's "ops" does not list; an op executed (an
//                         external act) that neither its "ops" nor its "external_acts" lists —
//                         a declaration rewritten after the act is caught here
// Declared ops never requested are noted, never a reason.
#pragma once

#include "base/json.h"

namespace hangar {

// declaration: shell/declaration.h's record; ops: Observation::ops. Returns
// {"verdict": "allow"|"reassess", "text": "allow: ..."|"reassess: r1; r2", "reasons": [...],
//  "notes": [...]}.
json::Value JudgeEvidence(const json::Value& declaration, const json::Value& ops);

}  // namespace hangar
