// Config format v1 (man/hangar.conf.5): one JSON file naming the spool, the rooms, the slots and
// the drone profiles. A mission chooses a profile by name; it never names a command. Parsing is
// pure: the caller reads the file and says where it lives (relative paths are resolved against it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/timefmt.h"
#include "kernel/egress.h"

namespace hangar {

// How the rendered prompt reaches the drone.
enum class PromptVia { kStdin, kFile, kBoth };

// Which agent harness a profile runs, and so how hangar reads its output.
//   command  any argv the admin configures; stdout is kept as run/stdout.
//   codex    Codex CLI (`codex exec --json`): argv built from program and args unless given;
//            stdout kept as run/events.jsonl and summarised in the return as harness-reported.
//   claude   Claude Code (`claude -p --output-format stream-json`): stdout kept as
//            run/stream.jsonl; its final result's is_error makes the outcome failed even at rc 0.
enum class Harness { kCommand, kCodex, kClaude };
const char* HarnessName(Harness h);

// Whether sandbox engine ENGINE confines the drone: "bwrap" and "namespaces" make the same
// sandbox, "none" none.
inline bool SandboxedEngine(const std::string& engine) {
  return engine == "bwrap" || engine == "namespaces";
}

struct Profile {
  std::string name;
  // argv template; placeholders {room} {run} {id} {bindir} {prompt} are expanded in the plan.
  // For codex and claude without an "argv", built from "program" and "args" (see BuildHarnessArgv).
  std::vector<std::string> argv;
  PromptVia prompt = PromptVia::kStdin;
  // Where the drone writes its last message (template); empty = none.
  std::string last_message;
  // The drone's whole environment (templates allowed in values). Nothing else reaches it.
  std::map<std::string, std::string> env;
  // Where a drone of this profile in network "egress" may connect through hangar's proxy (its
  // model's API), with the mission's own "egress"; an internal address only as an exact ip:port.
  std::vector<Destination> egress;
  // The plain-HTTP methods its egress proxy forwards ("GET", "HEAD"), as given; empty: any. An
  // HTTPS tunnel (CONNECT) is judged by destination alone: what it carries is encrypted.
  std::vector<std::string> egress_methods;
  // The drone's sandbox: "bwrap" (bubblewrap: read-only root, writes only in its room and the
  // mission's writes, deny-read paths and hangar's own directories hidden, network cut unless the
  // mission's network is "host"), "namespaces" (the same sandbox, made by hangar-confine itself:
  // shell/namespace_sandbox.h) or "none" (no sandbox: the gate then denies any launch whose
  // policy has deny-read paths or whose network is "none", as nothing would enforce them).
  std::string sandbox = "bwrap";
  // Where the drone's stdout is kept in the run directory ("stdout", "events.jsonl", ...).
  std::string stdout_file = "stdout";
  Harness harness = Harness::kCommand;
  // Directories made in the room before the drone starts (plain names): a harness's state
  // directory, which must exist and be writable (inside the sandbox only the room is).
  std::vector<std::string> room_dirs;
  // Who starts and supervises the drone, and enforces its deadline: "direct" (hangar-shim, on this
  // machine), "systemd" (a transient unit, RuntimeMaxSec) or "slurm" (a batch job, --time).
  std::string launcher = "direct";
  // The sha256 of the profile's definition: its object in the config as canonical JSON (keys
  // sorted, no whitespace). A definition no mission has returned done with is tried by one canary
  // first (man/hangar.conf.5, canary_s).
  std::string sha256;
};

// Settings of the engine launchers (man/hangar.conf.5, "launchers").
struct LauncherSettings {
  bool systemd_user = false;    // systemd-run --user: the user's manager, not the system's
  std::string slurm_partition;  // sbatch --partition; empty: the cluster's default
  int poll_s = 2;               // how often hangard asks the engines how their drones are
};

// Limits on every drone and done-check, enforced outside it (man/hangar.conf.5, limits): by the
// supervisor's setrlimit(2) before bubblewrap runs, by the sandbox's /dev/shm, by the window, and
// for drones of the engine launchers also by the engine (systemd MemoryMax=/TasksMax=, Slurm
// --mem). Memory under the direct launcher is RLIMIT_DATA, per process: a cgroup v2 total needs a
// delegated subtree, which this version does not drive.
struct DroneLimits {
  int64_t processes = 1024;  // RLIMIT_NPROC: processes of the drone's uid (not enforced for uid 0)
  int64_t file_mb = 4096;    // RLIMIT_FSIZE: the largest file a drone may write, in MiB
  int64_t memory_mb = 8192;  // RLIMIT_DATA of each drone process (heap and private mappings), MiB
  int64_t shm_mb = 256;      // the size of the sandbox's /dev/shm tmpfs, in MiB
  int ops_per_minute = 60;   // op handlers the window starts for one mission in any 60 s
  bool operator==(const DroneLimits&) const = default;
};

// An op's handler (man/hangar-ops.5): the program the window runs for an allowed request, with
// the request's args as JSON on stdin, in the mission's ops directory, for at most timeout_s.
struct OpHandler {
  std::string name;
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // the handler's whole environment (PATH added)
  int timeout_s = 30;
};

inline constexpr const char* kCodexLastMessage = "{run}/last-message.txt";

// The argv of a codex or claude profile built from its program and extra args, with the flags the
// harness needs to run unattended and report in JSON; `sandboxed` says hangar's bubblewrap is the
// sandbox (codex then runs without its own, which would nest inside ours). Pure.
// last_message: where codex writes its last message (-o), a template like "{run}/last-message.txt".
std::vector<std::string> BuildHarnessArgv(Harness h, const std::string& program,
                                          const std::vector<std::string>& args, bool sandboxed,
                                          const std::vector<std::string>& allowed_tools,
                                          const std::string& last_message = kCodexLastMessage);

// Retention (man/hangar.conf.5): how long an ended mission's directory and room stay after it
// ended, per state; hangard purges what is older every every_s seconds, as an approver's
// "hangar purge" would (recorded on the ledger; the id stays taken). Unset: kept for ever.
struct Retention {
  std::optional<TimeMs> returned, denied, rejected;
  int every_s = 3600;
  bool any() const { return returned || denied || rejected; }
};

struct Config {
  std::string file;   // where it was read from (for messages)
  std::string spool;  // absolute; empty when the file does not say (then --spool decides)
  std::string rooms;  // absolute or relative to the spool ("rooms" by default)
  int slots = 0;      // 0: one per CPU, decided by the shell
  int kill_grace_s = 5;
  int notify_retry_s = 30;
  // The canary (man/hangard.8, CANARY): a profile whose definition differs from the one its last
  // mission returned done with launches one mission alone, its others wait until that one has run
  // this many seconds or returned done. 0: no canary.
  int canary_s = 60;
  // The cold queue (man/hangar.conf.5, queue_warm): how many missions at the head of the queue
  // hangard holds read and parsed; the others are small records, read again near the head.
  int queue_warm = 64;
  int64_t manifest_max_entries = 100000;
  int64_t manifest_max_hash_bytes = int64_t(4) << 30;
  std::map<std::string, Profile> profiles;
  std::map<std::string, OpHandler> ops;  // op name -> its handler; an op without one never runs
  LauncherSettings launchers;
  DroneLimits limits;
  Retention retention;
  // The login name drones and done-checks run as (man/hangar.conf.5, drone_user); empty: hangard's
  // own user. Only a hangard run as root can change to it.
  std::string drone_user;
  // Who may decide (man/hangar.conf.5): login names and @groups that may approve, deny, grant,
  // revoke and reanchor, besides root and hangard's own user; four_eyes: the uid that dropped a
  // mission never approves it nor grants to it.
  std::vector<std::string> approvers;
  bool four_eyes = false;
  // The signal record (man/hangar-signals.5): on unless a measurement of its cost turns it off;
  // a start without it cannot be replayed.
  bool record_signals = true;
  // OpenSSH's allowed_signers file (absolute): when set, every approve must be signed by a key it
  // lists (hangar approve --sign), whatever uid dropped it.
  std::string allowed_signers;
  // The ledger's name (SPOOL/ledger/NAME, ANCHOR/NAME.anchor) and the anchor directory: absolute,
  // or empty when the file does not say (then hangard's --anchor must).
  // The gate's policy file (man/hangar-policy.5), absolute; empty: the built-in default policy.
  std::string policy;
  std::string ledger_name = "live";
  std::string anchor;
  // Signed checkpoints of the ledger: after this many entries or this many seconds (whichever
  // comes first, and only when there is something new), signed with the Ed25519 key at
  // checkpoint_key (absolute; empty: ANCHOR/NAME.key, created on first start).
  int64_t checkpoint_every = 100;
  int64_t checkpoint_seconds = 300;
  std::string checkpoint_key;
};

// Parses config text. `file` names it in errors and anchors relative paths. Errors read
// "FILE: FIELD: reason".
Result<Config> ParseConfig(std::string_view text, const std::string& file);

}  // namespace hangar
