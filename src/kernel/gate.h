// The two-stage gate. Stage 1 judges the mission at intake; stage 2 judges the exact plan just
// before launch. Verdicts are allow, hold (a person decides) or deny, with the ids of the rules
// that fired (man/hangar-policy.5). Deterministic: same mission, same policy, same verdict. The
// strongest verdict wins (deny > hold > allow); every rule that fired is listed, the reason is the
// first one of the winning verdict.
//
// Stage 1 judges the structured fields: drone (drones), max_minutes, each act verb (acts.*),
// network (network.MODE), each op (ops.deny.OP, ops.unknown; an op that needs a grant passes here
// and is checked against the ledger when it is asked for), each path of "writes" (paths.protected:
// inside a protected path or hangar's own directories, judged both as written, normalised, and as
// the shell resolved its symlinks; paths.deny_read: inside or over a deny-read path, which the
// sandbox hides; paths.invalid: the shell could not resolve it), and notify.dir, where hangard
// writes the return (notify.dir.protected: inside or over a protected path, a deny-read path,
// hangar's own directories or the rooms directory, judged as written and as resolved, like a
// write; notify.dir.unlisted: the policy lists notify_dirs and none holds it; notify.dir.invalid).
// Text rules (text.ID) judge acts, not topics (kernel/act_text.h) in the mission's free text:
// future, now and each constraint. A text rule can only raise a verdict to hold.
// Stage 2 judges the plan the launcher will run: the program its profile names (plan.program);
// deadline present, equal to max_minutes and
// enforceable by the launcher; the plan is this mission's; its room inside the rooms directory;
// its network the mission's; no environment variable the policy keeps from drones (env.deny) or
// lets through only with a person's approval of this exact plan (env.hold); its sandbox: engine
// known and installed (plan.sandbox.*), every deny-read path and hangar's own directories hidden
// and none of them re-exposed by a write (paths.deny_read), no write inside a protected path
// (paths.protected), the network cut when the mission says "none" (plan.network.uncut), writable
// exactly the room and the mission's writes (plan.sandbox.write), the last-message file in the
// run directory or the room (plan.last_message.outside).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/timefmt.h"
#include "kernel/act_text.h"
#include "kernel/mission.h"
#include "kernel/plan.h"
#include "kernel/policy.h"
#include "kernel/resolved.h"
#include "kernel/verdict.h"

namespace hangar {

// The machine's facts the gate judges paths and plans by, fixed when hangard starts.
struct GateSite {
  std::string rooms;       // the rooms directory (absolute)
  std::string home = "/";  // what "~" in a mission's writes means (absolute)
  // Hangar's own places, never written by a drone and always hidden from it: the spool, the
  // anchor, the signing key, the config and policy files (a config's handlers may hold
  // credentials; a policy a drone could rewrite would free the next drone).
  std::vector<std::string> hangar_dirs;
  std::string bwrap;   // the bubblewrap program; empty: not installed
  std::string bindir;  // {bindir} in profiles: where hangar's binaries live; never written
  bool root = false;   // hangard runs as root: a drone without a sandbox would hold every
                       // capability, so stage 2 refuses sandbox "none"
  DroneLimits limits;  // the config's: a plan must carry exactly these
  int64_t drone_uid = -1, drone_gid = -1;  // drone_user's; -1: hangard's own
  std::string socat = "";  // the egress forwarder hangard found; empty: not installed
  int landlock_abi = 0;    // the host's Landlock ABI at hangard's start; 0: none
};

struct GateResult {
  Verdict verdict = Verdict::kAllow;
  std::vector<std::string> rules;  // ids of the rules that fired
  std::string reason;              // one line for people; empty when allowed
  // Every rule that fired with its own verdict and reason, in firing order (hangar check prints
  // them all; the ledger keeps rules and the strongest reason).
  struct Fired {
    std::string rule;
    Verdict verdict;
    std::string why;
  };
  std::vector<Fired> fired;

  // gateN.json (man/hangar-spool.5): {"hangar": 1, "ledger_seq": SEQ, "reason": ..., "rules":
  // [...], "stage": N, "time": ..., "verdict": ...}, with "plan_sha256" (stage 2: the plan judged)
  // unless plan_sha256 is empty and "writes" (stage 1: the writes as bound, for a mission that
  // asks for any) unless writes is null; canonical and indented, written straight
  // (json::PrettyWriter).
  std::string Text(int stage, TimeMs now, int64_t ledger_seq, std::string_view plan_sha256 = {},
                   const std::vector<std::string>* writes = nullptr) const;

  // Adds a rule that fired with verdict v: the verdict rises to v if v is stronger, and the
  // reason is the first one given for the strongest verdict.
  void Fire(Verdict v, std::string rule, std::string why);
};

// The policy's text rules with their verbs expanded once, built when the policy loads: one matcher
// over every rule's verbs reads each text once, and a hit fires every rule that lists its verb.
class TextRules {
 public:
  TextRules() = default;  // no text rules
  explicit TextRules(const Policy& policy);
  // Fires text.ID (hold) for every rule whose verbs the mission's free text asks for, with the
  // first sentence that asks in the reason.
  void Judge(const Mission& m, GateResult* g) const;
  size_t size() const { return rules_.size(); }

 private:
  struct Rule {
    std::string id, why;
  };
  std::vector<Rule> rules_;
  ActMatcher matcher_{ActVerbs{}};
  std::map<std::string, std::vector<size_t>> rules_of_verb_;  // listed verb -> rules_ indices
};

// resolved: the shell's resolution of each of m.writes and of m.notify_dir; a path it lacks is
// judged as written.
GateResult GateStage1(const Mission& m, const Policy& policy, const TextRules& text = {},
                      const GateSite& site = {}, const ResolvedWrites& resolved = {});
// Launchers that can enforce a deadline: "direct".
// resolved: the mission's writes as the shell resolved them (the sandbox binds exactly those).
// profile: the mission's drone profile, whose program the plan must run (plan.program); nullptr
// when the gate is asked about a plan alone.
GateResult GateStage2(const Mission& m, const Plan& plan, const Policy& policy,
                      const GateSite& site, const ResolvedWrites& resolved = {},
                      const Profile* profile = nullptr);

// The paths a mission may write besides its room, as the sandbox binds them: each entry of
// m.writes resolved (or, when the shell gave none, normalised as written), in the mission's order;
// one the shell could not resolve is left out (the gate denies such a mission: paths.invalid).
std::vector<std::string> WritablePaths(const Mission& m, const GateSite& site,
                                       const ResolvedWrites& resolved);

}  // namespace hangar
