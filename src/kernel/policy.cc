#include "kernel/policy.h"

#include <algorithm>
#include <cmath>

#include "base/sha256.h"
#include "kernel/path_norm.h"

namespace hangar {

const char* OpAccessName(OpAccess a) {
  switch (a) {
    case OpAccess::kAllow:
      return "allow";
    case OpAccess::kDeny:
      return "deny";
    case OpAccess::kGrant:
      return "grant";
  }
  return "?";
}

Policy DefaultPolicy() {
  Policy p;
  p.acts_unknown = Verdict::kHold;
  p.max_minutes = kPolicyMaxMinutes;
  p.network = {{"egress", Verdict::kAllow}, {"none", Verdict::kAllow}, {"host", Verdict::kHold}};
  p.ops_unknown = OpAccess::kDeny;
  // Credentials in every home (and hangard's) hidden from drones and refused as writes: the
  // agent's own credentials reach it only through its profile's environment. Sorted, as
  // ParsePolicy stores them ('/' sorts before '~').
  p.deny_read = {"/etc/shadow",         "/root",         "~*/.aws",
                 "~*/.azure",           "~*/.claude",    "~*/.codex",
                 "~*/.config/gcloud",   "~*/.config/gh", "~*/.docker/config.json",
                 "~*/.git-credentials", "~*/.gnupg",     "~*/.kube",
                 "~*/.netrc",           "~*/.ssh"};
  // Sorted, as ParsePolicy stores them.
  p.env_deny = {
      "*_KEY", "*_SECRET*",    "*_TOKEN",        "ANTHROPIC_API_KEY",
      "AWS_*", "GITHUB_TOKEN", "OPENAI_API_KEY",
  };
  return p;
}

Policy ExpandHomePatterns(const Policy& p, const std::vector<std::string>& homes,
                          const std::string& own_home) {
  Policy out = p;
  auto expand = [&](std::vector<std::string>* paths) {
    std::set<std::string> all(paths->begin(), paths->end());
    // A path inside one the list names already adds nothing ("/root" covers "/root/.ssh").
    auto covered = [&](const std::string& path) {
      for (const std::string& given : *paths)
        if (given[0] == '/' && NormalizedInside(path, given)) return true;
      return false;
    };
    for (const std::string& pattern : *paths) {
      const bool every = pattern.starts_with("~*/"), own = pattern.starts_with("~/");
      if (!every && !own) continue;
      const std::string rel = pattern.substr(every ? 3 : 2);
      for (const std::string& home : every ? homes : std::vector<std::string>{own_home}) {
        if (home.empty() || home[0] != '/') continue;
        const std::string path = NormalizeAbsolute(home + "/" + rel);
        if (!covered(path) && all.insert(path).second) out.from_pattern.emplace(path, pattern);
      }
    }
    paths->assign(all.begin(), all.end());
  };
  expand(&out.protected_paths);
  expand(&out.deny_read);
  return out;
}

bool EnvGlobMatch(std::string_view glob, std::string_view name) {
  // Greedy with one backtrack point: the last '*' seen and where its match ended.
  size_t g = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (g < glob.size() && glob[g] == '*') {
      star = g++;
      mark = n;
    } else if (g < glob.size() && glob[g] == name[n]) {
      ++g;
      ++n;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

// --- queries -------------------------------------------------------------------------------------

RuleVerdict Policy::ActVerdict(std::string_view verb) const {
  auto it = acts.find(std::string(verb));
  if (it == acts.end())
    return {acts_unknown, acts_unknown == Verdict::kAllow ? "" : "acts.unknown"};
  if (it->second == Verdict::kAllow) return {Verdict::kAllow, ""};
  return {it->second, std::string("acts.") + VerdictName(it->second) + "." + it->first};
}

RuleVerdict Policy::NetworkVerdict(std::string_view mode) const {
  auto it = network.find(std::string(mode));
  if (it != network.end() && it->second == Verdict::kAllow) return {Verdict::kAllow, ""};
  return {it == network.end() ? Verdict::kDeny : it->second, "network." + std::string(mode)};
}

RuleVerdict Policy::EgressVerdict(const Destination& d) const {
  for (const std::string& p : egress_deny)
    if (EgressPatternMatches(p, d)) return {Verdict::kDeny, "egress.deny"};
  for (const std::string& p : egress_hold)
    if (EgressPatternMatches(p, d)) return {Verdict::kHold, "egress.hold"};
  return {Verdict::kAllow, ""};
}

OpRule Policy::OpAccessFor(std::string_view op) const {
  auto it = ops.find(std::string(op));
  if (it == ops.end()) return {ops_unknown, ops_unknown == OpAccess::kAllow ? "" : "ops.unknown"};
  if (it->second == OpAccess::kAllow) return {OpAccess::kAllow, ""};
  return {it->second, std::string("ops.") + OpAccessName(it->second) + "." + it->first};
}

bool Policy::DroneAllowed(std::string_view profile) const {
  return !drones || drones->count(std::string(profile)) > 0;
}

bool Policy::EnvDenied(std::string_view profile, std::string_view name) const {
  bool denied = false;
  for (const std::string& g : env_deny)
    if (EnvGlobMatch(g, name)) {
      denied = true;
      break;
    }
  if (!denied) return false;
  auto it = env_allow.find(std::string(profile));
  return it == env_allow.end() || !it->second.count(std::string(name));
}

RuleVerdict Policy::EnvVerdict(std::string_view profile, std::string_view name) const {
  if (EnvDenied(profile, name)) return {Verdict::kDeny, "env.deny"};
  for (const std::string& g : env_hold)
    if (EnvGlobMatch(g, name)) {
      auto it = env_allow.find(std::string(profile));
      if (it != env_allow.end() && it->second.count(std::string(name))) break;
      return {Verdict::kHold, "env.hold"};
    }
  return {Verdict::kAllow, ""};
}

const std::string* Policy::ProtectedDirOf(std::string_view path) const {
  for (const std::string& dir : protected_paths)
    if (PathInside(path, dir)) return &dir;
  return nullptr;
}

std::vector<std::string> Policy::RuleIds() const {
  std::vector<std::string> ids;
  for (Verdict v : {Verdict::kDeny, Verdict::kHold})
    for (const auto& [verb, verdict] : acts)
      if (verdict == v) ids.push_back(std::string("acts.") + VerdictName(v) + "." + verb);
  if (acts_unknown != Verdict::kAllow) ids.push_back("acts.unknown");
  if (drones) ids.push_back("drones");
  if (check_programs) ids.push_back("checks.program");
  ids.push_back("max_minutes");
  for (const char* mode : {"host", "none"})
    if (NetworkVerdict(mode).verdict != Verdict::kAllow)
      ids.push_back(std::string("network.") + mode);
  if (!egress_deny.empty()) ids.push_back("egress.deny");
  if (!egress_hold.empty()) ids.push_back("egress.hold");
  for (OpAccess a : {OpAccess::kDeny, OpAccess::kGrant})
    for (const auto& [op, access] : ops)
      if (access == a) ids.push_back(std::string("ops.") + OpAccessName(a) + "." + op);
  if (ops_unknown != OpAccess::kAllow) ids.push_back("ops.unknown");
  if (!protected_paths.empty()) ids.push_back("paths.protected");
  if (!deny_read.empty()) ids.push_back("paths.deny_read");
  if (!protected_paths.empty() || !deny_read.empty()) ids.push_back("notify.dir.protected");
  if (notify_dirs) ids.push_back("notify.dir.unlisted");
  if (!env_deny.empty()) ids.push_back("env.deny");
  if (!env_hold.empty()) ids.push_back("env.hold");
  for (const TextRule& r : text_rules) ids.push_back("text." + r.id);
  return ids;
}

// --- the canonical document ----------------------------------------------------------------------

namespace {

template <typename Map, typename V>
json::Array NamesWith(const Map& m, V value) {
  json::Array a;
  for (const auto& [name, v] : m)
    if (v == value) a.emplace_back(name);
  return a;
}

// Sorted and unique, whatever order a hand-made Policy holds them in.
template <typename Container>
json::Array List(const Container& c) {
  std::set<std::string> sorted(c.begin(), c.end());
  return json::Array(sorted.begin(), sorted.end());
}

}  // namespace

json::Value Policy::ToJson() const {
  json::Object o;
  o["hangar_policy"] = kPolicyVersion;
  o["acts"] = json::Object{{"deny", NamesWith(acts, Verdict::kDeny)},
                           {"hold", NamesWith(acts, Verdict::kHold)},
                           {"allow", NamesWith(acts, Verdict::kAllow)},
                           {"unknown", VerdictName(acts_unknown)}};
  if (drones) o["drones"] = List(*drones);
  if (check_programs) o["check_programs"] = List(*check_programs);
  if (max_minutes == std::floor(max_minutes) && std::abs(max_minutes) < 1e15)
    o["max_minutes"] = int64_t(max_minutes);
  else
    o["max_minutes"] = max_minutes;
  o["network"] = json::Object{{"allow", NamesWith(network, Verdict::kAllow)},
                              {"hold", NamesWith(network, Verdict::kHold)}};
  o["ops"] = json::Object{{"allow", NamesWith(ops, OpAccess::kAllow)},
                          {"deny", NamesWith(ops, OpAccess::kDeny)},
                          {"grant", NamesWith(ops, OpAccess::kGrant)},
                          {"unknown", OpAccessName(ops_unknown)}};
  auto as_written = [&](const std::vector<std::string>& paths) {
    std::vector<std::string> out;
    for (const std::string& path : paths)
      if (!from_pattern.count(path)) out.push_back(path);
    return List(out);
  };
  o["protected_paths"] = as_written(protected_paths);
  o["deny_read"] = as_written(deny_read);
  if (notify_dirs) o["notify_dirs"] = List(*notify_dirs);
  if (!egress_deny.empty() || !egress_hold.empty())  // absent: the digest of older files
    o["egress"] = json::Object{{"deny", List(egress_deny)},
                               {"hold", List(egress_hold)}};  // absent: the digest of older files
  o["env_deny"] = List(env_deny);
  o["env_hold"] = List(env_hold);
  json::Object allow;
  for (const auto& [profile, names] : env_allow) allow[profile] = List(names);
  o["env_allow"] = std::move(allow);
  json::Array rules;
  std::vector<const TextRule*> by_id;
  for (const TextRule& r : text_rules) by_id.push_back(&r);
  std::sort(by_id.begin(), by_id.end(),
            [](const TextRule* a, const TextRule* b) { return a->id < b->id; });
  for (const TextRule* rule : by_id) {
    const TextRule& r = *rule;
    json::Object verbs;
    for (const auto& [lang, list] : r.verbs) verbs[lang] = List(list);
    rules.emplace_back(json::Object{
        {"id", r.id}, {"verbs", std::move(verbs)}, {"verdict", "hold"}, {"why", r.why}});
  }
  o["text_rules"] = std::move(rules);
  return o;
}

std::string PolicyDigest(const Policy& p) {
  return Sha256Hex(json::Write(p.ToJson()));
}

}  // namespace hangar
