// Plan: the exact launch the launcher will perform (argv, environment, room, deadline). The kernel
// builds it from the mission and the profile; stage 2 of the gate judges exactly this; the shim
// runs exactly this (it reads plan.json, the file whose sha256 the kernel recorded).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "kernel/config.h"
#include "kernel/mission.h"
#include "kernel/resolved.h"

namespace hangar {

// The loopback port of the forwarder to hangar's egress proxy inside an egress sandbox, and the
// URL the drone's HTTP(S)_PROXY and ALL_PROXY name.
inline constexpr int kEgressPort = 3128;
// The least Landlock ABI whose ruleset can hide paths (Linux 5.19: it handles REFER, without which
// it would forbid every rename between directories, the room's too; shell/landlock.h).
inline constexpr int kLandlockHidesFrom = 2;
// The Landlock ABI a bubblewrap plan names on a host with HOST_ABI: it where it can hide, else 0.
// BuildPlan writes it; stage 2 judges the plan's against it.
inline int HidingLandlockAbi(int host_abi) {
  return host_abi >= kLandlockHidesFrom ? host_abi : 0;
}
// Sandbox::landlock_abi of a plan that does not say (written before plans said; absent from JSON).
inline constexpr int kLandlockUnsaid = -1;
inline const std::string kEgressProxyUrl = "http://127.0.0.1:3128";
// The variables the plan of an egress drone sets to kEgressProxyUrl.
inline const std::vector<std::string> kEgressProxyVars = {
    "ALL_PROXY", "HTTPS_PROXY", "HTTP_PROXY", "all_proxy", "http_proxy", "https_proxy"};
// What the mission leaves to its profile: a codex or claude drone (an agent that must reach its
// model) gets network "egress" when the mission names no network; any other, "none".
void ApplyProfileDefaults(Mission* m, const Config& config);
// The destinations an egress plan allows: the profile's, then the mission's, as text, sorted.
std::vector<std::string> EgressAllowlist(const Mission& m, const Profile& p);

// The drone's sandbox, as the launcher will build it (launch/sandbox_argv.h turns it into the
// bubblewrap command line). Stage 2 judges it: every deny-read path hidden, no write inside a
// protected path, the network cut when the mission's network is "none".
struct Sandbox {
  std::string engine = "bwrap";    // "bwrap", "namespaces" (hangar-confine's own) or "none"
  std::string bwrap;               // engine bwrap: the program (absolute); empty: not installed
  std::vector<std::string> hide;   // hidden from the drone (absolute, normalised, sorted)
  std::vector<std::string> write;  // bound read-write: the room first, then the mission's writes
                                   // with their symlinks resolved when the mission was taken in
  // The Landlock ABI of the ruleset that hides the paths too (shell/landlock.h: what stays hidden
  // when the host renames a file over a hidden one), the host's at hangard's start; 0: hangard's
  // host has none that hides (below ABI 2), or engine "none"; kLandlockUnsaid: a plan of
  // hangar-kernel/3 or before, which did not say. Stage 2 judges it against the host's. The
  // supervisor never hides less: it refuses to run a plan that names a ruleset on a kernel that
  // cannot make one, and makes one wherever its kernel can (launch/sandbox_command.h).
  int landlock_abi = 0;
};

// Network "egress" (kernel/egress.h): the drone's one way out. The supervisor runs `proxy`
// (hangar-egress) outside the sandbox on `socket`, which the sandbox binds at the same path;
// inside, hangar-confine starts `forwarder` (socat) on 127.0.0.1:port to that socket before the
// drone runs, and the plan's env points HTTP(S)_PROXY and ALL_PROXY (both cases) at it.
struct EgressPlan {
  std::vector<std::string> allow;    // the profile's and the mission's destinations, sorted, unique
  std::vector<std::string> methods;  // the profile's egress_methods; empty: any plain-HTTP method
  std::string proxy;                 // {bindir}/hangar-egress
  std::string forwarder;             // socat (absolute); empty: not installed (stage 2 denies)
  std::string socket;                // RUN/egress.sock
  int port = kEgressPort;
};

// The mission's workspace as the launch makes it (man/hangar-mission.5, WORKSPACE): before the
// drone starts, its room becomes a checkout of `commit` whose repository borrows `objects` (the
// source's object directory, read only) and shares nothing writable with the source.
struct PlanWorkspace {
  std::string git;      // the source repository, resolved at intake
  std::string objects;  // its object directory (absolute)
  std::string commit;   // the commit the mission's ref named at intake (hex)
  json::Value ToJson() const;
  bool operator==(const PlanWorkspace&) const = default;
};

struct Plan {
  std::string id;
  int attempt = 1;
  std::string launcher = "direct";
  std::vector<std::string> argv;           // argv[0] is a path or a name looked up in env PATH
  std::map<std::string, std::string> env;  // the drone's whole environment
  std::string room;                        // cwd of the drone; the only place it may write
  std::string run;              // supervisor files: lock, shim.json, exit.json, stdout, stderr
  std::string stdin_path;       // empty: /dev/null
  bool prompt_in_room = false;  // the prompt is also written to ROOM/MISSION.md
  std::string last_message;     // where the drone writes its last message; may be empty
  std::string stdout_file = "stdout";  // the drone's stdout, in the run directory
  // Directories made in the room before the drone starts (plain names), e.g. codex's ".codex"
  // (its CODEX_HOME must exist and be writable; inside the sandbox only the room is).
  std::vector<std::string> room_dirs;
  std::string network = "none";
  EgressPlan egress;  // network "egress" only
  Sandbox sandbox;
  int64_t deadline_ms = 0;  // the mission's, enforced by the direct launcher's supervisor:
  int64_t grace_ms = 0;     // SIGTERM to the group, then SIGKILL after grace_ms
  // The deadline the launcher's engine will enforce, in its own unit: deadline_ms rounded up to
  // the launcher's granularity (LauncherGranularityMs): RuntimeMaxSec for systemd, --time for
  // Slurm. Stage 2 refuses a plan where it differs from the mission's by that much or more.
  int64_t enforced_deadline_ms = 0;
  // The supervisor's rlimits and the sandbox's /dev/shm (DroneLimits; the config's, which stage 2
  // checks). 0: none (a plan written before limits existed).
  int64_t processes = 0, file_mb = 0, memory_mb = 0, shm_mb = 0;
  // The uid and gid the drone runs as (config drone_user); -1: the supervisor's own.
  int64_t uid = -1, gid = -1;
  bool systemd_user = false;    // launcher "systemd": the user's manager (systemd-run --user)
  std::string slurm_partition;  // launcher "slurm": sbatch --partition; empty: the default
  std::optional<PlanWorkspace> workspace;  // a workspace mission's checkout

  // plan.json: canonical JSON, indented (json::WritePretty's bytes), written member by member;
  // its sha256 is what stage 2 passed and the ledger records.
  std::string Text() const;
  json::Value ToJson() const;  // Text() read back
  static Result<Plan> FromJson(const json::Value& v);
};

// The sandbox a mission's run done-checks run in (shell/done_checks.h), as the kernel decides it:
// the drone's hidden paths, limits and user; the room read-only and no network are the shell's.
struct CheckSandbox {
  std::string bwrap;              // empty: bubblewrap is not installed, no run check runs
  std::string confine;            // hangar-confine (absolute)
  std::vector<std::string> hide;  // absolute
  DroneLimits limits = {};        // all but ops_per_minute apply to checks too
  int64_t uid = -1, gid = -1;     // the drone_user checks run as; -1: hangard's own
  // The drone's profile has sandbox engine "namespaces": its checks run in hangar-confine's own
  // sandbox too (bwrap unused); any other engine, "none" too: in bubblewrap (never unsandboxed).
  bool namespaces = false;
};

struct PlanPlaces {
  std::string room, run, bindir;
  int kill_grace_s = 5;
  std::string bwrap;                // the bubblewrap program; empty: not installed
  std::vector<std::string> hide;    // deny-read paths and hangar's own directories
  std::vector<std::string> writes;  // the mission's writes, resolved, in the mission's order
  LauncherSettings launchers;
  DroneLimits limits;
  int64_t uid = -1, gid = -1;  // drone_user's
  std::string socat;           // the forwarder program hangard found; empty: not installed
  std::optional<PlanWorkspace> workspace = std::nullopt;  // the mission's, as resolved at intake
  int landlock_abi = 0;  // the host's Landlock ABI at hangard's start; 0: none
};

// The granularity of the deadline LAUNCHER enforces, in ms: 1 for "direct" (its supervisor counts
// milliseconds), 1000 for "systemd" (RuntimeMaxSec in whole seconds), 60000 for "slurm" (--time in
// whole minutes); -1 for a launcher that cannot enforce one (unknown).
int64_t LauncherGranularityMs(const std::string& launcher);

// DEADLINE_MS rounded up to a whole number of GRANULARITY_MS (> 0).
int64_t RoundUpDeadline(int64_t deadline_ms, int64_t granularity_ms);

Plan BuildPlan(const Mission& m, const Profile& p, const PlanPlaces& where, int attempt);

// The checkout a workspace mission's plan must make, from the shell's resolution at intake;
// nullopt for a mission without a workspace. A resolution that is missing or failed gives a
// workspace with no commit (stage 2 denies it: plan.workspace).
std::optional<PlanWorkspace> WorkspaceOf(const Mission& m, const ResolvedWrites& resolved);

// What hangar itself puts in a workspace mission's room (as paths relative to ROOM): ops/,
// DECLARATION.json, MISSION.md when the prompt is written there, the profile's room_dirs, and the
// last message when it is kept in the room. Left out of the change; a commit that holds one of
// their first components fails the checkout (launch/checkout.h).
std::vector<std::string> RoomOwn(const std::string& room, bool prompt_in_room,
                                 const std::vector<std::string>& room_dirs,
                                 const std::string& last_message);

// The launch key of an attempt, "launch.ID.ATTEMPT": taken O_EXCL in keys/ before the drone runs.
inline std::string LaunchKeyName(const std::string& id, int attempt) {
  return "launch." + id + "." + std::to_string(attempt);
}

// The values of the placeholders for one mission.
std::map<std::string, std::string> TemplateVars(const std::string& id, const std::string& room,
                                                const std::string& run, const std::string& bindir);

// Expands {room} {run} {id} {bindir} {prompt} in s; unknown braces stay as they are.
std::string ExpandTemplate(const std::string& s, const std::map<std::string, std::string>& vars);

}  // namespace hangar
