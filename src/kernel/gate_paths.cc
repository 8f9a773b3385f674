#include "kernel/gate_paths.h"

#include <algorithm>
#include <functional>

#include "kernel/path_norm.h"

namespace hangar {

namespace {

// True when a component of PATH (normalised) is ".ssh": whoever's keys and authorized_keys those
// are, a drone that writes there can log in as them.
bool InSshDirectory(const std::string& path) {
  for (size_t at = path.find("/.ssh"); at != std::string::npos; at = path.find("/.ssh", at + 1))
    if (at + 5 == path.size() || path[at + 5] == '/') return true;
  return false;
}

// A policy path as reasons name it: with the home pattern it stands for, when it came from one.
std::string Named(const std::string& path, const Policy& policy) {
  auto p = policy.from_pattern.find(path);
  return p == policy.from_pattern.end() ? path : path + " (policy " + p->second + ")";
}

// Where a drone must never write: inside (or over) a protected path, hangar's own directories or
// the rooms of other missions, inside any .ssh directory: why, or "" when `path` is none of these.
std::string Forbidden(const std::string& path, const Policy& policy, const GateSite& site) {
  if (const std::string* dir = policy.ProtectedDirOf(path))
    return "inside protected path " + Named(*dir, policy);
  for (const std::string& dir : policy.protected_paths)
    if (PathInside(dir, path)) return "over protected path " + Named(dir, policy);
  for (const std::string& dir : site.hangar_dirs)
    if (PathInside(path, dir) || PathInside(dir, path)) return "in hangar's own directory " + dir;
  if (!site.rooms.empty() && (PathInside(path, site.rooms) || PathInside(site.rooms, path)))
    return "in the rooms directory " + site.rooms + " (another mission's room)";
  if (!site.bindir.empty() && (PathInside(path, site.bindir) || PathInside(site.bindir, path)))
    return "in hangar's binaries directory " + site.bindir;
  if (InSshDirectory(path)) return "inside an .ssh directory (keys, authorized_keys)";
  return "";
}

// A write that would lay a deny-read path open: inside one, or over one. "" when none.
std::string Hidden(const std::string& path, const Policy& policy) {
  for (const std::string& d : policy.deny_read)
    if (PathInside(path, d) || PathInside(d, path))
      return std::string(PathInside(path, d) ? "inside" : "over") + " deny-read path " +
             Named(d, policy);
  return "";
}

// One way of reading a path a mission names, and how a reason says it ("writes \"x\" is ",
// "writes \"x\" resolves to /y, ").
struct Reading {
  std::string path;  // normalised
  std::string say;
};

// PATH (QUOTED in reasons) as written, normalised, and, when the shell resolved it elsewhere, as
// resolved. Empty, with *invalid saying why, when the path cannot be placed.
std::vector<Reading> Readings(const std::string& path, const std::string& quoted,
                              const GateSite& site, const ResolvedWrites& resolved,
                              std::string* invalid) {
  Result<std::string> lexical = NormalizeUserPath(path, site.home);
  if (!lexical.ok()) {
    *invalid = lexical.status().message();
    return {};
  }
  auto r = resolved.find(path);
  if (r != resolved.end() && !r->second.error.empty()) {
    *invalid = r->second.error;
    return {};
  }
  std::vector<Reading> readings{{*lexical, quoted + " is "}};
  if (r != resolved.end()) {
    const std::string real = NormalizeAbsolute(r->second.path);
    if (real != *lexical) readings.push_back({real, quoted + " resolves to " + real + ", "});
  }
  return readings;
}

// The first of READINGS a drone may not reach: PROTECTED_RULE when it is forbidden ground (a
// protected path, hangar's own, another room, .ssh), DENY_READ_RULE when it lays a deny-read
// path open. One rule at most for one path.
void JudgeReach(const std::vector<Reading>& readings, const Policy& policy, const GateSite& site,
                const char* protected_rule, const char* deny_read_rule, GateResult* g) {
  for (const Reading& r : readings) {
    if (std::string why = Forbidden(r.path, policy, site); !why.empty()) {
      g->Fire(Verdict::kDeny, protected_rule, r.say + why);
      return;
    }
    if (std::string why = Hidden(r.path, policy); !why.empty()) {
      g->Fire(Verdict::kDeny, deny_read_rule, r.say + why);
      return;
    }
  }
}

}  // namespace

void JudgeWrites(const Mission& m, const Policy& policy, const GateSite& site,
                 const ResolvedWrites& resolved, GateResult* g) {
  for (const std::string& w : m.writes) {
    const std::string quoted = "writes \"" + w + "\"";
    std::string invalid;
    std::vector<Reading> readings = Readings(w, quoted, site, resolved, &invalid);
    if (!invalid.empty()) g->Fire(Verdict::kDeny, "paths.invalid", quoted + ": " + invalid);
    JudgeReach(readings, policy, site, "paths.protected", "paths.deny_read", g);
  }
}

void JudgeNotifyDir(const Mission& m, const Policy& policy, const GateSite& site,
                    const ResolvedWrites& resolved, GateResult* g) {
  if (!m.notify_dir) return;
  const std::string quoted = "notify.dir \"" + *m.notify_dir + "\"";
  std::string invalid;
  std::vector<Reading> readings = Readings(*m.notify_dir, quoted, site, resolved, &invalid);
  if (!invalid.empty()) g->Fire(Verdict::kDeny, "notify.dir.invalid", quoted + ": " + invalid);
  // Where hangard, root perhaps, would write DIR/tmp/ID.json and DIR/new/ID.json.
  for (const Reading& r : readings) {
    std::string why = Forbidden(r.path, policy, site);
    if (why.empty()) why = Hidden(r.path, policy);
    if (!why.empty()) {
      g->Fire(Verdict::kDeny, "notify.dir.protected", r.say + why);
      return;
    }
  }
  if (!policy.notify_dirs) return;
  const std::vector<std::string>& listed = *policy.notify_dirs;
  for (const Reading& r : readings)
    if (std::none_of(listed.begin(), listed.end(),
                     [&](const std::string& d) { return NormalizedInside(r.path, d); })) {
      g->Fire(Verdict::kDeny, "notify.dir.unlisted", r.say + "in none of the policy's notify_dirs");
      return;
    }
}

void JudgeWorkspace(const Mission& m, const Policy& policy, const GateSite& site,
                    const ResolvedWrites& resolved, GateResult* g) {
  if (!m.workspace) return;
  const std::string& git = m.workspace->git;
  const std::string quoted = "workspace.git \"" + git + "\"";
  std::string invalid;
  std::vector<Reading> readings = Readings(git, quoted, site, resolved, &invalid);
  if (!invalid.empty()) g->Fire(Verdict::kDeny, "workspace.invalid", quoted + ": " + invalid);
  if (auto r = resolved.find(git);
      r != resolved.end() && r->second.git && !r->second.git->objects.empty()) {
    const std::string objects = NormalizeAbsolute(r->second.git->objects);
    if (objects != NormalizeAbsolute(r->second.path))
      readings.push_back({objects, quoted + " keeps its objects in " + objects + ", "});
  }
  JudgeReach(readings, policy, site, "workspace.protected", "workspace.deny_read", g);
  for (const std::string& w : WritablePaths(m, site, resolved))
    for (const Reading& r : readings)
      if (NormalizedInside(r.path, w) || NormalizedInside(w, r.path)) {
        g->Fire(Verdict::kDeny, "workspace.writable",
                r.say + "and the mission writes " + w +
                    ": the drone could change the repository its checkout borrows from");
        return;
      }
}

void JudgeWorkspacePlan(const Mission& m, const Plan& plan, const ResolvedWrites& resolved,
                        GateResult* g) {
  const std::optional<PlanWorkspace> want = WorkspaceOf(m, resolved);
  if (plan.workspace != want || (want && want->commit.empty())) {
    g->Fire(Verdict::kDeny, "plan.workspace",
            !want                  ? "the plan makes a checkout the mission asks for none of"
            : want->commit.empty() ? "the mission's workspace was not resolved at intake"
                                   : "the plan's checkout is not the repository and commit "
                                     "resolved at intake (" +
                                         want->git + " at " + want->commit + ")");
    return;
  }
  if (!want) return;
  for (const std::string& w : plan.sandbox.write)
    for (const std::string& p : {want->git, want->objects})
      if (NormalizedInside(NormalizeAbsolute(p), NormalizeAbsolute(w)) ||
          NormalizedInside(NormalizeAbsolute(w), NormalizeAbsolute(p))) {
        g->Fire(Verdict::kDeny, "workspace.writable",
                "the sandbox binds " + w + " writable, and the checkout borrows from " + p);
        return;
      }
}

std::vector<std::string> WritablePaths(const Mission& m, const GateSite& site,
                                       const ResolvedWrites& resolved) {
  std::vector<std::string> out;
  for (const std::string& w : m.writes) {
    auto r = resolved.find(w);
    if (r != resolved.end()) {
      if (r->second.error.empty()) out.push_back(NormalizeAbsolute(r->second.path));
      continue;  // unresolvable: never bound (the gate denies the mission)
    }
    Result<std::string> lexical = NormalizeUserPath(w, site.home);
    if (lexical.ok()) out.push_back(*lexical);
  }
  return out;
}

void JudgeSandbox(const Mission& m, const Plan& plan, const Policy& policy, const GateSite& site,
                  const ResolvedWrites& resolved, GateResult* g) {
  auto deny = [g](const char* rule, std::string why) {
    g->Fire(Verdict::kDeny, rule, std::move(why));
  };
  const Sandbox& sb = plan.sandbox;
  // Whether the plan has a sandbox (bubblewrap's or hangar-confine's own: the same one).
  const bool sandboxed = SandboxedEngine(sb.engine);
  if (!sandboxed && sb.engine != "none")
    deny("plan.sandbox.engine", "the plan's sandbox engine \"" + sb.engine + "\" is unknown");
  if (sb.engine == "namespaces" && !sb.bwrap.empty())
    deny("plan.sandbox.unavailable",
         "the plan's sandbox is hangar-confine's own (engine \"namespaces\"), and it names a "
         "program: " +
             sb.bwrap);
  if (sb.engine == "bwrap" && (site.bwrap.empty() || sb.bwrap != site.bwrap))
    deny("plan.sandbox.unavailable",
         site.bwrap.empty() ? "the drone's profile needs bubblewrap (bwrap), which is not "
                              "installed; it is never launched unsandboxed"
                            : "the plan runs " + sb.bwrap + ", not the bubblewrap hangard found (" +
                                  site.bwrap + ")");
  // What hides the paths: the host's Landlock ruleset as well as the mounts where the host has one
  // (the plan the supervisor follows would otherwise make less, or more than it can, of it).
  const int want_landlock = sandboxed ? HidingLandlockAbi(site.landlock_abi) : 0;
  if (sb.landlock_abi != want_landlock)
    deny("plan.sandbox.landlock",
         sb.landlock_abi < kLandlockHidesFrom
             ? "the plan hides paths by mounts alone, but this host has Landlock ABI " +
                   std::to_string(site.landlock_abi) +
                   ": a file renamed over a hidden one would be read (hangard(8), SANDBOX)"
         : !sandboxed
             ? "the plan names a Landlock ruleset (ABI " + std::to_string(sb.landlock_abi) +
                   "), which a plan without a sandbox does not make"
             : "the plan names Landlock ABI " + std::to_string(sb.landlock_abi) +
                   ", not this host's (" +
                   (site.landlock_abi >= kLandlockHidesFrom
                        ? "ABI " + std::to_string(site.landlock_abi)
                        : "none that hides: ABI " + std::to_string(site.landlock_abi)) +
                   ")");
  if (plan.processes != site.limits.processes || plan.file_mb != site.limits.file_mb ||
      plan.memory_mb != site.limits.memory_mb || plan.shm_mb != site.limits.shm_mb)
    deny("plan.limits", "the plan's limits are not the config's (processes " +
                            std::to_string(site.limits.processes) + ", file_mb " +
                            std::to_string(site.limits.file_mb) + ", memory_mb " +
                            std::to_string(site.limits.memory_mb) + ", shm_mb " +
                            std::to_string(site.limits.shm_mb) + ")");
  if (plan.uid != site.drone_uid || plan.gid != site.drone_gid)
    deny("plan.user", site.drone_uid < 0 ? "the plan changes the drone's user, and the config "
                                           "names no drone_user"
                                         : "the plan does not run the drone as the config's "
                                           "drone_user (uid " +
                                               std::to_string(site.drone_uid) + ")");
  if (!sandboxed && site.root && site.drone_uid < 0)
    deny("plan.sandbox.privileged",
         "hangard runs as root, and a drone without a sandbox would hold every capability");
  if (!sandboxed && plan.network == "none")
    deny("plan.network.uncut",
         "the mission's network is \"none\", and a drone without a sandbox keeps the network");
  if (!plan.last_message.empty() && !PathInside(plan.last_message, plan.run) &&
      !PathInside(plan.last_message, plan.room))
    deny("plan.last_message.outside", "the drone's last message " + plan.last_message +
                                          " is neither in its run directory nor in its room");
  if (sb.write.empty() || sb.write[0] != plan.room)
    deny("plan.sandbox.room", "the sandbox does not bind the plan's room first");
  // Writable: the room and exactly the mission's writes as the shell resolved them.
  for (const std::string& w : m.writes)
    if (auto r = resolved.find(w); r != resolved.end() && !r->second.error.empty())
      deny("paths.invalid", "writes \"" + w + "\": " + r->second.error);
  std::vector<std::string> want = WritablePaths(m, site, resolved);
  std::vector<std::string> got;
  for (const std::string& w : sb.write)
    if (w != plan.room) got.push_back(w);
  if (got != want)
    deny("plan.sandbox.write",
         "the sandbox binds writable other paths than the room and the mission's writes");
  // Hidden: the policy's deny-read paths and hangar's own directories; a write may not lay one
  // open again (the room inside a hidden directory is bound over it, and only the room).
  // Policy paths are normalised when the policy loads; the plan's are normalised here, once.
  std::vector<std::string> hide, open;
  for (const std::string& h : sb.hide) hide.push_back(NormalizeAbsolute(h));
  for (const std::string& w : got) open.push_back(NormalizeAbsolute(w));
  // d is hidden when it or one of its ancestors is: one look-up for each of its components, not
  // one comparison with each hidden path (a policy hides some hundred paths, each judged here).
  std::sort(hide.begin(), hide.end());
  auto hidden_by_plan = [&](std::string_view d) {
    for (std::string_view a = d;;) {
      if (std::binary_search(hide.begin(), hide.end(), a, std::less<>())) return true;
      const size_t slash = a.rfind('/');
      if (a.size() <= 1 || slash == std::string_view::npos) return false;
      a = slash == 0 ? std::string_view("/") : a.substr(0, slash);
    }
  };
  auto judge_hidden = [&](const std::string& d) {
    const bool hidden = sandboxed && hidden_by_plan(d);
    if (!hidden) {
      deny("paths.deny_read", d + " is not hidden by the plan's sandbox" +
                                  std::string(sandboxed ? "" : " (it has none)"));
      return;
    }
    for (size_t i = 0; i < open.size(); i++)
      if (NormalizedInside(d, open[i]) || NormalizedInside(open[i], d))
        deny("paths.deny_read", "the sandbox binds " + got[i] + " writable, laying open " + d);
  };
  for (const std::string& d : policy.deny_read)
    if (d[0] == '/') judge_hidden(d);  // a home pattern stands for the paths it was expanded to
  for (const std::string& d : site.hangar_dirs) judge_hidden(NormalizeAbsolute(d));
  if (!site.rooms.empty()) judge_hidden(NormalizeAbsolute(site.rooms));
  for (const std::string& w : got) {
    std::string why = Forbidden(NormalizeAbsolute(w), policy, site);
    if (!why.empty()) deny("paths.protected", "the sandbox binds " + w + " writable, " + why);
  }
}

}  // namespace hangar
