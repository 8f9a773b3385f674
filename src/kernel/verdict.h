// Verdict: what a gate rule or a policy section says of a mission, a plan or an act. Its own header
// so that the policy (kernel/policy.h) and the gate (kernel/gate.h) can share it without including
// each other.
#pragma once

namespace hangar {

// kHold: a person decides (hangar approve / hangar deny). Stricter in the order allow < hold <
// deny.
enum class Verdict { kAllow, kHold, kDeny };

// "allow", "hold", "deny".
const char* VerdictName(Verdict v);

}  // namespace hangar
