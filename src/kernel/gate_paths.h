// The gate's judging of paths (man/hangar-policy.5, PATHS and SANDBOX): a mission's writes at
// stage 1, the plan's sandbox spec at stage 2. Internal to the gate (gate.cc); pure.
#pragma once

#include "kernel/gate.h"

namespace hangar {

// Stage 1: each of m.writes, as written (normalised) and as the shell resolved it: paths.protected,
// paths.deny_read, paths.invalid.
void JudgeWrites(const Mission& m, const Policy& policy, const GateSite& site,
                 const ResolvedWrites& resolved, GateResult* g);

// Stage 1: the mission's notify.dir, where hangard writes DIR/tmp/ID.json and DIR/new/ID.json, as
// written (normalised) and as the shell resolved it: notify.dir.protected (inside or over a
// protected path, a deny-read path, hangar's own directories or the rooms directory),
// notify.dir.unlisted (the policy lists notify_dirs and none holds it), notify.dir.invalid.
void JudgeNotifyDir(const Mission& m, const Policy& policy, const GateSite& site,
                    const ResolvedWrites& resolved, GateResult* g);

// Stage 1: the mission's workspace repository and its object directory, as written and as the
// shell resolved them: workspace.protected (where a drone may never write: a checkout borrows
// from it, so it is judged as a write would be), workspace.deny_read (a drone reads its objects),
// workspace.writable (the mission also writes into the repository, or over it: the drone could
// change the source it is a checkout of), workspace.invalid.
void JudgeWorkspace(const Mission& m, const Policy& policy, const GateSite& site,
                    const ResolvedWrites& resolved, GateResult* g);

// Stage 2: the plan's checkout is the one resolved at intake (plan.workspace), and its sandbox
// binds neither the repository nor its objects writable (workspace.writable).
void JudgeWorkspacePlan(const Mission& m, const Plan& plan, const ResolvedWrites& resolved,
                        GateResult* g);

// Stage 2: the plan's sandbox: plan.sandbox.*, plan.network.uncut, plan.last_message.outside,
// paths.invalid, paths.deny_read, paths.protected.
void JudgeSandbox(const Mission& m, const Plan& plan, const Policy& policy, const GateSite& site,
                  const ResolvedWrites& resolved, GateResult* g);

}  // namespace hangar
