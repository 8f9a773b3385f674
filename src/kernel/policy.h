// Policy format v1 (man/hangar-policy.5): the rules the gate judges missions and plans by, and the
// window judges ops by. One JSON object per file:
//
//   {"hangar_policy": 1,
//    "acts": {"deny": [VERB...], "hold": [...], "allow": [...], "unknown": "hold"},
//    "drones": [PROFILE...], "max_minutes": 120, "check_programs": [PROGRAM...],
//    "network": {"allow": ["none", "egress"], "hold": ["host"]},
//    "egress": {"deny": [PATTERN...], "hold": [PATTERN...]},
//    "ops": {"allow": [OP...], "deny": [...], "grant": [...], "unknown": "deny"},
//    "protected_paths": [PATH...], "deny_read": [PATH...], "notify_dirs": [ABS...],
//    "env_deny": [GLOB...], "env_hold": [GLOB...], "env_allow": {PROFILE: [NAME...]},
//    "text_rules": [{"id": ID, "verbs": {"en": [...], "ja": [...]}, "verdict": "hold",
//                    "why": TEXT}]}
//
// Parsing (policy_parse.cc) is pure (the caller reads the file) and strict: an unknown field, a
// wrong type, a bad name, a duplicate, a verb or op in two lists, a relative path, a text rule
// whose verdict is not "hold" or a version other than 1 is an error "FILE: FIELD: reason", and no
// Policy comes back: a bad policy never loads half-way. A section left out keeps the value
// DefaultPolicy() has; a section given replaces it whole (inside "acts", "ops" and "network" a list
// left out is empty).
//
// Rule ids: what the gate and the window report when a rule fires (never for an allow):
//   acts.deny.VERB  acts.hold.VERB  acts.unknown   a mission's "acts" name VERB / an unlisted verb
//   drones                                          the mission's profile is not in "drones"
//   checks.program                                  a run done-check's program is not in
//                                                   "check_programs"
//   max_minutes                                     the mission asks for more minutes
//   network.MODE                                    MODE is held or denied
//   egress.deny  egress.hold                        a destination a network "egress" drone may
//                                                   reach matches a deny / hold pattern
//   ops.deny.OP  ops.grant.OP  ops.unknown          an op denied / needing a grant / unlisted
//   paths.protected                                 a write inside a protected path
//   paths.deny_read                                 a deny-read path not hidden from the drone
//   env.deny  env.hold                              a variable matching env_deny / env_hold would
//                                                   reach a drone (stage 2; hold: a person
//                                                   approves that exact plan)
//   paths.invalid                                   a write the gate cannot place (its symlinks
//                                                   could not be resolved)
//   notify.dir.protected                            a notify.dir inside or over a protected or
//                                                   deny-read path or hangar's own directories
//   notify.dir.unlisted                             notify_dirs is given and holds no notify.dir
//   notify.dir.invalid                              a notify.dir the gate cannot place
//   plan.sandbox.*                                  the plan's sandbox cannot enforce the policy
//   text.ID                                         text rule ID fires on the mission's text
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "kernel/egress.h"
#include "kernel/verdict.h"

namespace hangar {

inline constexpr int kPolicyVersion = 1;
inline constexpr size_t kMaxPolicyBytes = 1 << 20;  // 1 MiB
inline constexpr double kPolicyMaxMinutes = 1440;   // the most a policy may allow (24 hours)

// What the window does with an op a drone asks for. kGrant: run it only while the ledger holds a
// grant of it for the mission or its requester.
enum class OpAccess { kAllow, kDeny, kGrant };

const char* OpAccessName(OpAccess a);  // "allow", "deny", "grant"

// A rule over a mission's free text (matched by kernel/act_text.h, not here). Its verdict is always
// hold: a text rule can only raise a verdict to hold, never lower one, never deny.
struct TextRule {
  std::string id;  // [a-z0-9][a-z0-9._-]{0,63}, unique in the policy; reported as "text.ID"
  // Language ("en", "ja") -> action verbs, sorted, unique, each list non-empty. English verbs are
  // lower-case letters; Japanese ones any text without spaces or control characters.
  std::map<std::string, std::vector<std::string>> verbs;
  std::string why;  // for the person who decides; non-empty
};

// A section's answer for one name: the verdict and the id of the rule that gave it, "" for allow.
struct RuleVerdict {
  Verdict verdict = Verdict::kDeny;
  std::string rule;
};

struct OpRule {
  OpAccess access = OpAccess::kDeny;
  std::string rule;  // "" for allow
};

// A policy in force. Only DefaultPolicy() and ParsePolicy() make meaningful ones: a
// default-constructed Policy knows no act, network mode or op and so denies them all, and allows
// no minute.
struct Policy {
  std::map<std::string, Verdict> acts;  // verb -> its list (deny, hold, allow)
  Verdict acts_unknown = Verdict::kDeny;
  std::optional<std::set<std::string>> drones;  // nullopt: every profile the config has
  // The programs a done-check of kind run may name as its argv[0], as written (a name looked up
  // on the check's PATH, or a path); nullopt: any (every check runs in the drone's sandbox).
  std::optional<std::set<std::string>> check_programs;
  double max_minutes = 0;                  // > 0, <= kPolicyMaxMinutes
  std::map<std::string, Verdict> network;  // "none"/"host" -> allow or hold; absent: deny
  std::map<std::string, OpAccess> ops;     // op -> its list (allow, deny, grant)
  // Destination patterns (kernel/egress.h) no egress drone may reach / only with a person's
  // approval; sorted. A destination in neither is judged by the mission's and profile's lists.
  std::vector<std::string> egress_deny, egress_hold;
  OpAccess ops_unknown = OpAccess::kDeny;
  // Absolute, normalised (kernel/path_norm.h), sorted; and home patterns ("~*/.aws": in every
  // home directory; "~/.codex": in hangard's home), which match nothing until ExpandHomePatterns
  // adds the paths they stand for. A write inside or over a deny-read path is refused as one
  // inside a protected path is (it would lay the hidden path open).
  std::vector<std::string> protected_paths;
  std::vector<std::string> deny_read;
  // Each path ExpandHomePatterns added -> the pattern it stands for (reasons name the pattern;
  // ToJson leaves the added paths out, so the digest is the file's whatever the homes are).
  std::map<std::string, std::string> from_pattern;
  // Where returns may be delivered (a mission's notify.dir inside one of them), the same form;
  // nullopt: anywhere not forbidden (notify.dir.protected).
  std::optional<std::vector<std::string>> notify_dirs;
  std::vector<std::string> env_deny;                       // globs of [A-Za-z0-9_] and '*', sorted
  std::vector<std::string> env_hold;                       // the same; never a glob of env_deny
  std::map<std::string, std::set<std::string>> env_allow;  // profile -> exact names
  std::vector<TextRule> text_rules;                        // sorted by id

  // A verb of a mission's "acts", matched exactly: acts.deny.VERB, acts.hold.VERB, acts.unknown.
  RuleVerdict ActVerdict(std::string_view verb) const;
  // A network mode: allowed, held (network.MODE) or, when in neither list, denied (network.MODE).
  RuleVerdict NetworkVerdict(std::string_view mode) const;
  // A destination of an egress drone: egress.deny, egress.hold or allow (deny outranks hold).
  RuleVerdict EgressVerdict(const Destination& d) const;
  // An op: ops.deny.OP, ops.grant.OP or ops.unknown.
  OpRule OpAccessFor(std::string_view op) const;
  // Whether a mission may use this profile (rule "drones" when not).
  bool DroneAllowed(std::string_view profile) const;
  // Whether variable `name` must not reach a drone of `profile`: it matches an env_deny glob and
  // the profile's env_allow does not name it (rule "env.deny").
  bool EnvDenied(std::string_view profile, std::string_view name) const;
  // Variable `name` in the plan of a drone of `profile`: env.deny (EnvDenied), else env.hold when
  // it matches an env_hold glob and the profile's env_allow does not name it, else allow.
  RuleVerdict EnvVerdict(std::string_view profile, std::string_view name) const;
  // The protected path that holds `path` (normalised lexically first), or nullptr (rule
  // "paths.protected").
  const std::string* ProtectedDirOf(std::string_view path) const;

  // Every rule id this policy can report, in the order of the list above; its size is the rule
  // count `hangar policy check` prints. Rules that can only allow are not counted.
  std::vector<std::string> RuleIds() const;

  // The canonical document: every section present with its defaults filled in, lists sorted,
  // text rules by id. Written with json::Write it is what PolicyDigest hashes, and it parses back
  // to the same Policy: two files that mean the same have the same digest.
  json::Value ToJson() const;
};

// The home patterns of p's protected_paths and deny_read expanded for these home directories
// (absolute; every user's, as the shell read them from the user database) and hangard's own home:
// each pattern stays, and the paths it stands for are added (sorted, deduplicated, none inside a
// path the list names itself: "/root" covers "/root/.ssh") and noted in from_pattern. Pure.
Policy ExpandHomePatterns(const Policy& p, const std::vector<std::string>& homes,
                          const std::string& own_home);

// The policy in force when none is configured, and the value of every section a file leaves
// out: acts unknown -> hold, no drone restriction, max_minutes 1440, network none allowed and host
// held, ops unknown -> deny, no protected path, deny_read /root, /etc/shadow and the credentials
// of every home (~*/.ssh, .gnupg, .aws, .azure, .config/gcloud,
// .kube, .docker/config.json, .netrc, .git-credentials, .codex, .claude, .config/gh), no
// notify_dirs list (a notify.dir anywhere not forbidden), env_deny
// *_TOKEN *_SECRET* *_KEY AWS_* GITHUB_TOKEN OPENAI_API_KEY ANTHROPIC_API_KEY, no env_allow, no
// text rule.
Policy DefaultPolicy();

// Parses policy text. `file` names it in errors: "FILE: FIELD: reason" (FIELD like
// "acts.hold[2]" or "text_rules[0].verbs.ja"), or "FILE: reason" for the whole document.
Result<Policy> ParsePolicy(std::string_view text, const std::string& file);

// sha256 (hex) of json::Write(p.ToJson()): which policy decided, for the ledger.
std::string PolicyDigest(const Policy& p);

// '*' matches any run of bytes (also none); every other byte matches itself. "*_TOKEN" matches
// "GH_TOKEN" but not "TOKEN"; "AWS_*" matches "AWS_" and "AWS_REGION".
bool EnvGlobMatch(std::string_view glob, std::string_view name);

}  // namespace hangar
