#include "kernel/gate.h"

#include <algorithm>
#include <set>

#include "base/pretty_writer.h"
#include "kernel/gate_paths.h"
#include "kernel/path_norm.h"

namespace hangar {

std::string GateResult::Text(int stage, TimeMs now, int64_t ledger_seq,
                             std::string_view plan_sha256,
                             const std::vector<std::string>* writes) const {
  json::PrettyWriter w;
  w.Open().Key("hangar").Int(1).Key("ledger_seq").Int(ledger_seq);
  if (!plan_sha256.empty()) w.Key("plan_sha256").Str(plan_sha256);
  w.Key("reason").Str(reason).Key("rules").Strings(rules).Key("stage").Int(stage);
  w.Key("time").Time(now).Key("verdict").Str(VerdictName(verdict));
  if (writes) w.Key("writes").Strings(*writes);
  w.Close();
  return w.Take();
}

namespace {

// One destination an egress drone may reach, by the policy's patterns (egress.deny, egress.hold).
void JudgeDestination(const Policy& policy, const Destination& d, GateResult* g) {
  RuleVerdict v = policy.EgressVerdict(d);
  g->Fire(v.verdict, v.rule,
          "egress to " + d.Text() + " is " +
              (v.verdict == Verdict::kDeny ? "denied" : "held for a person") + " by the policy");
}

int Strength(Verdict v) {
  return v == Verdict::kDeny ? 2 : v == Verdict::kHold ? 1 : 0;
}

}  // namespace

void GateResult::Fire(Verdict v, std::string rule, std::string why) {
  if (v == Verdict::kAllow) return;
  rules.push_back(rule);
  if (Strength(v) > Strength(verdict)) {
    verdict = v;
    reason = why;
  }
  fired.push_back({std::move(rule), v, std::move(why)});
}

TextRules::TextRules(const Policy& policy) {
  std::set<std::string> en, ja;
  for (const TextRule& r : policy.text_rules) {
    for (const auto& [lang, verbs] : r.verbs)
      for (const std::string& v : verbs) {
        (lang == "ja" ? ja : en).insert(v);
        rules_of_verb_[v].push_back(rules_.size());
      }
    rules_.push_back(Rule{r.id, r.why});
  }
  matcher_ = ActMatcher(ActVerbs{{en.begin(), en.end()}, {ja.begin(), ja.end()}});
}

void TextRules::Judge(const Mission& m, GateResult* g) const {
  if (rules_.empty()) return;
  // The requester asks in future and constraints; now is where things stand, i.e. data: it may
  // quote a third party's words ("publish this on our blog today" in an inbox to summarise).
  std::vector<std::pair<const char*, const std::string*>> texts{{"future", &m.future}};
  for (const std::string& c : m.constraints) texts.push_back({"constraints", &c});
  std::vector<bool> fired(rules_.size());
  for (const auto& [field, text] : texts)
    for (const ActHit& hit : matcher_.Find(*text)) {
      auto it = rules_of_verb_.find(hit.verb);
      if (it == rules_of_verb_.end()) continue;
      for (size_t k : it->second) {
        if (fired[k]) continue;  // one firing per rule: its first asking sentence
        fired[k] = true;
        g->Fire(Verdict::kHold, "text." + rules_[k].id,
                std::string(field) + " asks to " + hit.verb + " (\"" + hit.sentence +
                    "\"): " + rules_[k].why);
      }
    }
}

GateResult GateStage1(const Mission& m, const Policy& policy, const TextRules& text,
                      const GateSite& site, const ResolvedWrites& resolved) {
  GateResult g;
  if (!policy.DroneAllowed(m.drone))
    g.Fire(Verdict::kDeny, "drones",
           "drone profile \"" + m.drone + "\" is not allowed by the policy");
  if (policy.check_programs)
    for (const DoneCheck& c : m.done_when)
      if (c.kind == DoneCheck::Kind::kRun && !c.argv.empty() &&
          !policy.check_programs->count(c.argv[0]))
        g.Fire(Verdict::kDeny, "checks.program",
               "done-check runs \"" + c.argv[0] +
                   "\", which the policy's check_programs does not list");
  if (m.max_minutes > policy.max_minutes)
    g.Fire(Verdict::kDeny, "max_minutes",
           "max_minutes " + json::Write(json::Value(m.max_minutes)) + " is above the policy's " +
               json::Write(json::Value(policy.max_minutes)));
  for (const std::string& verb : m.acts) {
    RuleVerdict v = policy.ActVerdict(verb);
    g.Fire(v.verdict, v.rule,
           "act \"" + verb + "\" is " +
               (v.verdict == Verdict::kDeny ? "denied" : "held for a person") + " by the policy" +
               (v.rule == "acts.unknown" ? " (a verb it does not know)" : ""));
  }
  RuleVerdict n = policy.NetworkVerdict(m.network);
  g.Fire(n.verdict, n.rule,
         "network \"" + m.network + "\" is " +
             (n.verdict == Verdict::kDeny ? "denied" : "held for a person") + " by the policy");
  for (const Destination& d : m.egress) JudgeDestination(policy, d, &g);
  for (const std::string& op : m.ops) {
    OpRule o = policy.OpAccessFor(op);
    if (o.access == OpAccess::kDeny)
      g.Fire(Verdict::kDeny, o.rule,
             "op \"" + op + "\" is denied by the policy" +
                 (o.rule == "ops.unknown" ? " (an op it does not know)" : ""));
  }
  JudgeWrites(m, policy, site, resolved, &g);
  JudgeNotifyDir(m, policy, site, resolved, &g);
  JudgeWorkspace(m, policy, site, resolved, &g);
  text.Judge(m, &g);
  return g;
}

namespace {

// Network "egress": the drone's only way out is hangar's proxy, to exactly the destinations of its
// profile and mission (kernel/egress.h, plan.h EgressPlan).
void JudgeEgress(const Mission& m, const Plan& plan, const Policy& policy, const GateSite& site,
                 const Profile* profile, GateResult* g) {
  for (const std::string& text : plan.egress.allow)
    if (Result<Destination> d = ParseDestination(text); d.ok()) JudgeDestination(policy, *d, g);
  auto deny = [&](const char* rule, std::string why) {
    g->Fire(Verdict::kDeny, rule, std::move(why));
  };
  const EgressPlan& e = plan.egress;
  if (!SandboxedEngine(plan.sandbox.engine))
    deny("plan.egress.sandbox",
         "network \"egress\" needs a sandbox (engine \"bwrap\" or \"namespaces\"): its own "
         "network namespace is what leaves the proxy the only way out");
  // In egress, hangar-confine starts the forwarder before its seccomp filter: only the Landlock
  // ruleset keeps the drone from tracing it into making what the filter forbids (launch/confine.h).
  if (plan.sandbox.landlock_abi < kLandlockHidesFrom)
    deny("plan.egress.landlock",
         "network \"egress\" needs a Landlock ruleset (Landlock ABI 2, Linux 5.19 or later): "
         "without one the drone could trace its forwarder, which no seccomp filter binds");
  if (plan.launcher != "direct")
    deny("plan.egress.launcher",
         "only the direct launcher's supervisor runs the egress proxy, "
         "not launcher \"" +
             plan.launcher + "\"");
  if (profile && e.allow != EgressAllowlist(m, *profile))
    deny("plan.egress.allow",
         "the plan's egress list is not the profile's and the mission's destinations");
  if (profile && e.methods != profile->egress_methods)
    deny("plan.egress.methods", "the plan's plain-HTTP methods are not the profile's");
  if (site.socat.empty())
    deny("plan.egress.forwarder",
         "socat is not installed (Debian package socat): an egress drone would have no way out");
  else if (e.forwarder != site.socat)
    deny("plan.egress.forwarder", "the plan forwards with " + e.forwarder + ", not " + site.socat);
  if (e.proxy != site.bindir + "/hangar-egress")
    deny("plan.egress.proxy", "the plan's proxy is " + e.proxy + ", not hangar's");
  if (e.socket != plan.run + "/egress.sock" || e.port != kEgressPort)
    deny("plan.egress.socket", "the plan's proxy socket or port is not hangar's");
  for (const std::string& v : kEgressProxyVars) {
    auto it = plan.env.find(v);
    if (it == plan.env.end() || it->second != kEgressProxyUrl)
      deny("plan.egress.env", v + " does not name hangar's proxy (" + kEgressProxyUrl + ")");
  }
}

}  // namespace

GateResult GateStage2(const Mission& m, const Plan& plan, const Policy& policy,
                      const GateSite& site, const ResolvedWrites& resolved,
                      const Profile* profile) {
  const std::string& rooms = site.rooms;
  GateResult g;
  auto deny = [&](const char* rule, std::string why) {
    g.Fire(Verdict::kDeny, rule, std::move(why));
  };
  if (plan.deadline_ms <= 0)
    deny("plan.deadline.missing", "the plan carries no deadline");
  else if (plan.deadline_ms != m.deadline_ms())
    deny("plan.deadline.mismatch", "the plan's deadline " + std::to_string(plan.deadline_ms) +
                                       " ms differs from max_minutes (" +
                                       std::to_string(m.deadline_ms()) + " ms)");
  // The engine enforces the deadline in its own unit (whole seconds, whole minutes): the plan says
  // what it will enforce, and that must be the mission's, rounded up by less than one unit.
  if (const int64_t unit = LauncherGranularityMs(plan.launcher); unit <= 0)
    deny("plan.launcher.unknown",
         "launcher \"" + plan.launcher + "\" cannot enforce a deadline here");
  else if (m.deadline_ms() > 0 && (plan.enforced_deadline_ms < m.deadline_ms() ||
                                   plan.enforced_deadline_ms - m.deadline_ms() >= unit))
    deny("plan.deadline.enforced",
         "launcher \"" + plan.launcher + "\" would enforce a deadline of " +
             std::to_string(plan.enforced_deadline_ms) + " ms, not max_minutes (" +
             std::to_string(m.deadline_ms()) + " ms) rounded up to its unit of " +
             std::to_string(unit) + " ms");
  if (plan.argv.empty()) {
    deny("plan.argv.empty", "the plan has no program to run");
  } else if (profile && !profile->argv.empty()) {
    const std::string want =
        ExpandTemplate(profile->argv[0], TemplateVars(plan.id, plan.room, plan.run, site.bindir));
    if (plan.argv[0] != want)
      deny("plan.program", "the plan runs " + plan.argv[0] + ", not " + want +
                               ", the program of profile " + profile->name);
  }
  // An agent harness talks to its model over the network: cut off, it could only wait for its
  // deadline (codex retries for ever). Refused up front, with the reason, instead.
  if (profile && profile->harness != Harness::kCommand && plan.network == "none")
    deny("plan.network.harness", std::string("a ") + HarnessName(profile->harness) +
                                     " drone reaches its model over the network; with network "
                                     "\"none\" it could only wait for its deadline (ask for "
                                     "network \"egress\", its profile listing its model's API)");
  if (plan.id != m.id) deny("plan.id.mismatch", "the plan is for another mission");
  if (!PathInside(plan.room, rooms) || NormalizeAbsolute(plan.room) == NormalizeAbsolute(rooms))
    deny("plan.room.outside", "the plan's room " + plan.room + " is not inside " + rooms);
  if (plan.network != m.network)
    deny("plan.network.mismatch",
         "the plan's network \"" + plan.network + "\" is not the mission's \"" + m.network + "\"");
  const bool egress = plan.network == "egress";
  if (egress) JudgeEgress(m, plan, policy, site, profile, &g);
  for (const auto& [name, value] : plan.env) {
    // The proxy variables an egress plan sets are the kernel's own (JudgeEgress checks them).
    if (egress && std::count(kEgressProxyVars.begin(), kEgressProxyVars.end(), name)) continue;
    RuleVerdict v = policy.EnvVerdict(m.drone, name);
    g.Fire(v.verdict, v.rule,
           "the plan passes " + name + " to the drone; the policy " +
               (v.verdict == Verdict::kDeny ? "keeps it from drones of profile " + m.drone
                                            : "lets it through only with a person's approval"));
  }
  JudgeSandbox(m, plan, policy, site, resolved, &g);
  JudgeWorkspacePlan(m, plan, resolved, &g);
  return g;
}

}  // namespace hangar
