// The kernel: decide(state, signal) -> (state', actions). Pure and deterministic: it reads no
// clock, no file, no environment; time and observations arrive inside signals, and everything it
// wants done leaves as actions for the shell. Same signals, same decisions (so decisions can be
// replayed).
//
// clang-format off
// The state machine (also in man/hangard.8):
//
//   state     | signal                          | next      | actions
//   ----------+---------------------------------+-----------+---------------------------------------
//   (start)   | Recovered (one per mission dir) | as found  | [RecoveredAsFound] none until Ready:
//             |                                 |           |   no launch yet
//   (start)   | Recovered, id known already     | -         | [RecoveredTwice] none (a copied
//             |                                 |           |   spool: the first found, furthest
//             |                                 |           |   on, stands)
//   (start)   | Ready (controls read)           | -         | [Ready] launches begin
//   (none)    | Dropped, unreadable or invalid  | rejected  | [DroppedInvalid] Intake(rejected:
//             |                                 |           |   mission.raw, why.json)
//   (none)    | Dropped, id already in spool    | rejected  | [DroppedDuplicateId] Intake(rejected
//             |                                 |           |   under a fresh id)
//   (none)    | Dropped, gate 1 allow           | queued    | [DroppedAllowed] Intake(queued:
//             |                                 |           |   mission.json, gate1.json)
//   (none)    | Dropped, gate 1 hold / deny     | hold/denied | [DroppedHeldOrDenied] Intake(...,
//             |                                 |             |   gate1.json [+why.json])
//   taken     | IntakeFailed (no space)         | (none)    | [IntakeFailed]
//             |                                 |           |   Record(mission.intake-failed): the
//             |                                 |           |   mission is forgotten (a launch of
//             |                                 |           |   the same decision too); the drop
//             |                                 |           |   waits in incoming/new
//   queued    | slot free, gate 2 allow         | running   | [QueuedLaunched] Launch(plan.json,
//             |                                 |           |   gate2.json, key, shim)
//   queued    | slot free, gate 2 hold / deny   | hold/denied | [QueuedHeldOrDenied]
//             |                                 |             |   Move(gate2.json [+why.json])
//   queued    | slot free, its profile gone     | denied    | [QueuedProfileGone]
//             |   from the config               |           |   Record(mission.denied),
//             |                                 |           |   Move(why.json)
//   queued    | LaunchDone, key existed         | returned  | [LaunchKeyExisted] Finish(outcome
//             |                                 |           |   lost)
//   queued    | LaunchDone failed before key    | returned  | [LaunchFailedBeforeKey]
//             |                                 |           |   Finish(outcome failed, launch
//             |                                 |           |   error)
//   running   | LaunchDone failed               | returned  | [LaunchFailedRunning] Finish(outcome
//             |                                 |           |   failed, launch error)
//   running   | LaunchDone failed after its     | running   | [LaunchFailedAfterEnd] Log only: the
//             |   DroneExited or SupervisorGone |           |   end seen stands (its Observe runs)
//   running   | DroneExited                     | running   | [DroneExited] Observe (slot freed)
//   running   | SupervisorGone                  | running   | [SupervisorGone] Observe (outcome
//             |                                 |           |   will be lost)
//   running   | Observed                        | returned  | [Observed] Finish(return.json;
//             |                                 |           |   notify)
//   hold/queued | Control cancel                | returned  | [CancelUnrun] Finish(outcome
//               |                               |           |   cancelled, never ran)
//   running   | Control cancel                  | running   | [CancelRunning] Kill (the supervisor
//             |                                 |           |   stops the drone)
//   returned  | Control retry, outcome lost,    | queued    | [RetryAllowed] Record(mission.retry),
//             |   failed, timed_out, killed or  |           |   Retry: attempt N's files to
//             |   cancelled after it ran, and   |           |   attempts/N; launched as N+1 (new
//             |   nothing of attempt N alive    |           |   key, gate 2 again)
//   returned  | Control retry, done, cancelled  | returned  | [RetryRefused]
//             |   before it ran, or attempt N   |           |   Record(control.refused),
//             |   may be alive                  |           |   ConsumeControl(bad, why)
//   hold      | Control approve                 | queued    | [Approved] Record(person.approved),
//             |                                 |           |   Move (binds to the mission's sha256
//             |                                 |           |   and the held plan's)
//   queued    | slot free, gate 2 hold, the     | running   | [QueuedApprovedPlan] Launch (the
//             |   plan approved                 |           |   person approved exactly this plan)
//   (start)   | Recovered hold/queued whose     | hold      | [RecoveredChanged]
//             |   mission.json changed          |           |   Record(mission.held), Move: changed
//             |                                 |           |   after intake; no approval carries
//   hold      | Control deny                    | denied    | [Denied] Record(person.denied),
//             |                                 |           |   Move(why.json)
//   any       | Control grant / revoke          | same      | [GrantOrRevoke] Record(grant /
//             |                                 |           |   revoke); refused while failed
//             |                                 |           |   closed
//   any       | LedgerFailed                    | same      | [LedgerFailed]
//             |                                 |           |   Record(ledger.fail-closed); no
//             |                                 |           |   launch or grant until a reanchor
//   any       | Control reanchor (failed closed)| same      | [Reanchor] Record(ledger.reanchor,
//             |                                 |           |   new epoch); launches resume
//   hold/queued | Control reanchor after a      | returned  | [ReanchorReturnsUnproven]
//             |   rollback (LedgerFailed        |           |   Finish(outcome lost): found at the
//             |   rolled_back), found at start  |           |   start on a restored spool, its
//             |                                 |           |   launch after the backup cannot be
//             |                                 |           |   ruled out; never launched by itself
//   any       | Control memory, by the uid that | same      | [MemoryStored] Record(memory.stored),
//             |   owns the requester (or an     |           |   WriteMemory(memory/R/vN.json),
//             |   approver)                     |           |   ConsumeControl
//   any       | Control memory, the same request| same      | [MemoryStoredBefore] WriteMemory
//             |   stored before a stop (its     |           |   (the version it was stored as),
//             |   answer unwritten)             |           |   ConsumeControl; nothing recorded
//   (none)    | Dropped, its requester another  | denied    | [DroppedRequesterTaken]
//             |   uid's (not an approver)       |           |   Intake(denied: gate1.json rule
//             |                                 |           |   requester.owner, why.json)
//   any       | Control bad / unknown id        | same      | [ControlRefused]
//             |                                 |           |   Record(control.refused),
//             |                                 |           |   ConsumeControl(bad, why)
//   running   | OpRequested, refused            | running   | [OpRefused] Record(op.refused),
//             |                                 |           |   AnswerOp
//   running   | OpRequested, allowed            | running   | [OpAllowed] Record(op.allowed), RunOp
//   running   | OpRequested, key done before    | running   | [OpRepeated] Record(op.repeated),
//             |                                 |           |   AnswerOp (the stored result;
//             |                                 |           |   nothing runs)
//   running   | OpFinished                      | running   | [OpFinished] Record(op.result |
//             |                                 |           |   op.unrun), AnswerOp; Observe when
//             |                                 |           |   the drone ended and no other op
//             |                                 |           |   runs
//   returned/denied/rejected | Control purge, | same, purged | [Purged] Record(mission.purged),
//             |   by an approver                |           |   Purge each (tombstone purged/ID.json,
//             |                                 |           |   then the directory and room go);
//             |                                 |           |   the id stays taken, its keys stay
//   live or purged | Control purge of it        | same      | [PurgeSkipped] none for that id (the
//             |                                 |           |   answer names it); refused when no
//             |                                 |           |   id of the request may be purged
//   (start)   | Recovered tombstone (purged/)   | purged    | [RecoveredPurged] none: the id stays
//             |                                 |           |   taken; a later drop of it is a
//             |                                 |           |   duplicate
//   (start)   | RecoveredEnded (every ended     | as found  | [RecoveredEnded] each as its
//             |   mission and tombstone, one    |           |   Recovered, in order: none; their
//             |   signal)                       |           |   ids stay taken
//   (start)   | RecoveredCold (each queued one  | queued    | [RecoveredCold] each at the back of
//             |   beyond queue_warm, one signal)|           |   the queue in order, held cold: no
//             |                                 |           |   mission read
//   queued    | any, a cold one among the first | queued    | [WarmAhead] Warm (the ids):
//             |   queue_warm of the queue       |           |   mission.json read again
//   queued    | Warmed, the bytes taken in      | queued    | [Warmed] held warm; it launches
//             |                                 |           |   when its turn comes
//   queued    | Warmed, other bytes than those  | hold      | [WarmedChanged]
//             |   taken in                      |           |   Record(mission.held), Move, as
//             |                                 |           |   RecoveredChanged
//   queued    | Warmed, unreadable or no        | queued    | [WarmedUnreadable] out of the
//             |   mission                       |           |   queue with its error, never
//             |                                 |           |   launched (as at recovery)
//   (none)    | Dropped, accepted beyond the    | queued    | [IntakeCold] as DroppedAllowed, then
//             |   first queue_warm of the queue |           |   held cold
//   queued    | slot free, gate 2 allow, its    | running   | [CanaryLaunched] Launch,
//             |   profile's definition not the  |           |   Record(canary.launched) after
//             |   one proven, no canary of it   |           |   mission.launched: the canary, its
//             |   running or failed             |           |   profile's others wait
//   queued    | slot free, its profile's canary | queued    | [CanaryWaits] none: held out of the
//             |   running or failed             |           |   queue until the canary passes
//   running   | Tick (or any signal), its       | same      | [CanaryPassed]
//             |   canary ran canary_s, or it    |           |   Record(canary.passed): the
//             |   returned done                 |           |   definition is proven; its others
//             |                                 |           |   go back to the queue's head
//   running   | Observed or LaunchDone, the     | returned  | [CanaryFailed] Record(canary.failed)
//             |   canary ended otherwise first  |           |   after mission.returned: its others
//             |                                 |           |   wait
//   any       | Control release-canary, by an   | same      | [CanaryReleased]
//             |   approver                      |           |   Record(canary.released): the
//             |                                 |           |   definition is proven; its others
//             |                                 |           |   go
//   running   | Observed done, its definition   | returned  | [ProfileProven] Record(profile.proven)
//             |   not proven before (no canary) |           |   after mission.returned
//
// The ledger: every decision is a Record action placed before the action it backs, and every
// mission file that states a decision (intake.json, gate2.json, return.json, approve.json,
// why.json of a denial) carries that entry's seq as "ledger_seq". The kernel numbers records
// itself from State::ledger_seq, so the files can name their seq before the entry is written; the
// shell checks that the ledger gives the same number.
//
// Not a kernel state: "stopped" (a write or sync of the spool that failed, see daemon/daemon.h)
// is the shell's. The kernel's state may then be ahead of the disk, so the shell decides nothing
// more, rather than asking the kernel to.
// clang-format on
//
// Thread: a single thread calls Decide; State is owned by that caller.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "base/boxed.h"
#include "base/json.h"
#include "base/timefmt.h"
#include "kernel/canary.h"
#include "kernel/config.h"
#include "kernel/exit_info.h"
#include "kernel/gate.h"
#include "kernel/grants.h"
#include "kernel/layout.h"
#include "kernel/mission.h"
#include "kernel/phase.h"
#include "kernel/plan.h"
#include "kernel/policy.h"
#include "kernel/requesters.h"
#include "kernel/retry.h"

namespace hangar {

// What the kernel knows of the world, fixed when hangard starts.
struct KernelSetup {
  Config config;                    // profiles, slots (> 0 here), grace
  std::string spool;                // absolute
  std::string rooms;                // absolute
  std::string bindir;               // where hangar's binaries live ({bindir} in profiles)
  Policy policy = DefaultPolicy();  // what the gate judges by (man/hangar-policy.5)
  std::string policy_sha256 = PolicyDigest(DefaultPolicy());  // named in every gate entry
  TextRules text_rules = TextRules(DefaultPolicy());          // the policy's text rules, built once
  std::string home = "/";  // "~" in a mission's writes: hangard's home (absolute)
  std::string anchor;      // the anchor directory: hidden from drones, never written by them
  std::string bwrap;       // the bubblewrap program hangard found; empty: not installed
  std::string socat;       // the egress forwarder (socat) hangard found; empty: not installed
  bool root = false;       // hangard runs as root (GateSite::root)
  int64_t drone_uid = -1, drone_gid = -1;  // config drone_user, looked up at start; -1: none
  int landlock_abi = 0;  // the host's Landlock ABI at start (shell/landlock.h); 0: none
  // The uids that may approve, deny, grant, revoke and reanchor: the config's approvers, users and
  // groups' members resolved by the shell, with root and hangard's own uid always among them.
  std::set<int64_t> approvers;
  // False in a replay, which writes no file and compares an action's files by name only
  // (kernel/decision_digest.h): the texts no decision reads are left empty, those of intake.json,
  // gate1.json and why.json at intake and of gate2.json, why.json and the prompt at launch. The
  // texts whose sha256 goes on the ledger (plan.json, return.json) are made all the same.
  bool file_texts = true;

  // What the gate judges paths and plans by: the rooms, home, hangar's own directories, bwrap.
  GateSite Site() const;
  // What every sandbox hides: the policy's deny-read paths, hangar's own places, the rooms.
  std::vector<std::string> Hidden() const;
  // The spool's places (kernel/layout.h), for the paths of plans and observations.
  Layout Places() const { return Layout{spool, rooms}; }
};

// Who dropped a file, as the OS says: the uid that owns the file the shell read (fstat of the
// descriptor it read, before the rename that claims it) and that uid's login name (its decimal
// form when it has none). -1 and "": unknown.
struct Dropper {
  int64_t uid = -1;
  std::string user;
};

// A person's approval binds to what was approved: the mission's bytes and, for a hold at stage 2,
// the plan. Few missions have one: held out of line (base/boxed.h).
struct Approval {
  std::string held_plan_sha256;      // held at stage 2: the plan the person is asked about
  std::string approved_sha256;       // a recorded approval: of the mission it approved
  std::string approved_plan_sha256;  // ... and of the plan, when it was held at stage 2
};
// The window's book of one mission: when it started its handlers, the last minute's (a vector: an
// empty deque allocates some 600 bytes); the keys of ops whose handler runs now; the request names
// answered or running. Only missions that asked for an op have one: held out of line.
struct OpsBook {
  std::vector<TimeMs> starts;
  std::set<std::string> running, seen;
};

// The kernel's record of one mission. Every mission ever seen keeps one (and a deep queue holds one
// for each queued mission), so what few missions need is held out of line (Boxed).
struct MissionRec {
  Phase phase = Phase::kQueued;
  int attempt = 0;      // launched attempts
  bool exited = false;  // the drone's end is known (or its supervisor is gone)
  bool lost = false;    // the supervisor vanished without an exit record
  // The drone's end is observed only once no handler of the window runs for it (observe_waits
  // says the drone ended meanwhile).
  bool observe_waits = false;
  // Restore (man/hangar-spool.5, BACKUP AND RESTORE): found in hold or queued (or in incoming/new)
  // when hangard started on a rolled-back ledger. Its launch after the backup cannot be ruled
  // out, so the reanchor returns it lost instead of launching it.
  bool unproven = false;
  // Purged (hangar purge, retention): its directory and room are gone, a tombstone keeps the id
  // taken; phase is the terminal state it was purged from.
  bool purged = false;
  // The cold queue: a queued mission beyond the first config.queue_warm of the queue is held
  // without its mission (mission null, resolved empty; sha256 the bytes taken in), and read
  // again from queued/ID/mission.json (Warm, then Warmed) when it nears the head. warming: a
  // Warm of it is out and its Warmed not yet decided.
  bool cold = false;
  bool warming = false;
  // Kept while the mission is live (hold, queued, running); shared and immutable, so an ended
  // mission's record does not carry a Mission's size inline.
  std::shared_ptr<const Mission> mission;
  TimeMs accepted = 0;  // intake time
  Boxed<ExitInfo> exit;
  std::string error;  // why the kernel could not launch or judge it (makes the outcome failed)
  // The last gate verdict on it, "stage N VERDICT rule,rule": a replay under another policy that
  // fires other rules for the same verdict differs here, in the state, not in the decision.
  std::string gate;
  std::string sha256;  // of the mission's bytes as taken in (live phases)
  Boxed<Approval> approval;
  ResolvedWrites resolved;  // the mission's writes as the shell resolved them
  Dropper owner;            // who dropped the mission: may cancel and retry it
  Boxed<OpsBook> ops;       // the window's book
  // The definition of its profile it was launched with (Profile::sha256); "" when unknown (not
  // launched by this start: a mission found running launched with what the config said then).
  std::string profile_sha256;
};

struct State {
  std::map<std::string, MissionRec> missions;
  std::deque<std::string> queue;  // queued ids in launch order
  int running = 0;                // drones holding a slot
  uint64_t counter = 0;           // for generated ids
  // False while hangard recovers at start: nothing launches before every mission is known and
  // every control request that waited (a cancel) is read. Ready sets it.
  bool ready = true;
  int64_t ledger_seq = 0;   // the ledger's head seq: the next Record takes ledger_seq + 1
  std::string fail_closed;  // why launches and grants are refused; empty when they are not
  // Time: the latest time on the ledger (the shell gives the head entry's at start). No entry is
  // dated before it, and grants expire by the later of it and the signal's clock. A signal whose
  // clock is more than kClockSlackMs before it holds launches (clock_behind) until the clock
  // catches up, recorded once as a clock.behind entry.
  TimeMs ledger_time = 0;
  bool clock_behind = false;
  // The ledger is behind what its anchor or checkpoint vouches for (a spool restored from a
  // backup): set by LedgerFailed, cleared by the reanchor that returns the unproven missions.
  bool rolled_back = false;
  std::vector<int64_t> unvouched_grants;  // voided by the reanchor (LedgerFailed)
  GrantBook grants;          // folded from the ledger at start, then from the kernel's own records
  RequesterBook requesters;  // likewise: whose each requester is, its work states' versions
  CanaryBook canaries;       // likewise: each profile's proven definition and its canary
  // Queued missions that wait on their profile's canary (running or failed), by profile, in launch
  // order: out of the queue until the canary passes or is released, then back at its head.
  std::map<std::string, std::deque<std::string>> canary_held;
};

// ---- signals: what the shell saw ----

// A file in incoming/new. bytes is empty with read_error set when it could not be read as a
// regular file of at most 1 MiB (the raw thing still moves to rejected/).
struct Dropped {
  std::string name;
  std::string bytes;
  std::string read_error;
  TimeMs now = 0;
  ResolvedWrites resolved;  // the mission's "writes" as the shell resolved them on disk
  Dropper by = {};
  bool found_at_start = false;  // it waited in incoming/new when hangard started
  // ParseMission(bytes), when the shell has parsed them already: hangard does, to resolve the
  // writes; a replay's reading thread does, beside the deciding one. Never recorded: with none,
  // decide parses the bytes itself, to the same result (ParseMission is pure).
  std::shared_ptr<const MissionOrError> parsed = nullptr;
};
// A mission directory found at start (or after an inotify overflow) in a state directory.
struct Recovered {
  std::string id;
  Phase phase = Phase::kQueued;
  std::string mission_bytes;  // live phases only
  TimeMs accepted = 0;
  int attempt = 0;                // running: from launch.json; hold, queued: retry.json "previous"
  std::optional<ExitInfo> exit;   // running: exit.json present
  bool supervisor_alive = false;  // running: its lock is held
  TimeMs now = 0;
  std::string intake_sha256;         // intake.json "sha256": the bytes taken in
  std::string held_plan_sha256;      // hold: gate2.json "plan_sha256" when held at stage 2
  std::string approved_sha256;       // approve.json "mission_sha256", when approved
  std::string approved_plan_sha256;  // approve.json "plan_sha256"
  ResolvedWrites resolved;           // live phases: the mission's "writes", resolved again now
  Dropper by = {};                   // intake.json "uid" and "user": who dropped the mission
  // A tombstone (purged/ID.json): the mission was purged from PHASE; nothing else is read of it.
  bool purged = false;
};
// The ended missions found at start, in the order found: the tombstones in purged/ and the mission
// directories in returned/, denied/ and rejected/, each as the Recovered it stands for (only these
// fields of it are read). One signal for all: they decide nothing but which ids stay taken, and a
// long-lived spool holds many (one record line each would grow the signal record at every start).
struct EndedFound {
  std::string id;
  Phase phase = Phase::kReturned;
  TimeMs accepted = 0;
  int attempt = 0;
  Dropper by = {};
  bool purged = false;
};
struct RecoveredEnded {
  std::vector<EndedFound> missions;
  TimeMs now = 0;
};
// The queued missions found at start beyond the first config.queue_warm, in launch order, each
// as what its intake.json, retry.json and approve.json say (its mission.json is not read: it is
// read again by Warm when it nears the head). One signal for all, as RecoveredEnded: a deep
// queue's start reads and records a small record of each.
struct ColdFound {
  std::string id;
  TimeMs accepted = 0;
  int attempt = 0;                                    // retry.json "previous"
  Dropper by = {};                                    // intake.json "uid" and "user"
  std::string intake_sha256;                          // intake.json "sha256": the bytes taken in
  std::string approved_sha256, approved_plan_sha256;  // approve.json, when approved
};
struct RecoveredCold {
  std::vector<ColdFound> missions;
  TimeMs now = 0;
};
// What Warm read of a cold queued mission: queued/ID/mission.json and its writes resolved again
// now; read_error says why the bytes could not be read (then bytes is empty).
struct Warmed {
  std::string id;
  std::string bytes;
  std::string read_error;
  ResolvedWrites resolved;
  TimeMs now = 0;
};
// A signed approve's signature as the shell checked it (shell/signature.h): ssh-keygen -Y verify
// against the config's allowed_signers, of ApprovalMessage built from the mission as the shell
// found it in hold/.
struct SignatureCheck {
  bool verified = false;
  std::string error;                        // why it did not verify
  std::string mission_sha256, plan_sha256;  // what the verified message bound
};
struct ControlDropped {
  std::string name;
  std::string bytes;
  std::string read_error;
  TimeMs now = 0;
  Dropper by = {};
  // A retry request for a mission in returned/: what the shell read of it (kernel/retry.h).
  std::optional<RetryFacts> retry = std::nullopt;
  std::optional<SignatureCheck> signature = std::nullopt;  // a signed approve, checked
  // A cancel of a mission in queued/: its mission.json as the shell read it, for a cold one's
  // return (its drone, requester, deadline and notify_dir); used only when its sha256 is the one
  // taken in.
  std::optional<std::string> cancel_mission = std::nullopt;
};
struct LaunchDone {
  std::string id;
  bool ok = false;
  bool key_existed = false;
  bool in_running = false;  // where the mission directory is when the launch failed
  std::string error;
  TimeMs now = 0;
};
// Recovery is over and the control requests that waited are taken: launches may begin.
struct Ready {
  TimeMs now = 0;
};
// Time has come for a decision that waits on the clock alone: a canary has run canary_s seconds
// (CanaryDue says when; the shell sends it then).
struct Tick {
  TimeMs now = 0;
};
struct DroneExited {
  std::string id;
  ExitInfo exit;
  TimeMs now = 0;
};
struct SupervisorGone {  // lock free and no exit.json: the supervisor died without a record
  std::string id;
  TimeMs now = 0;
};
struct Observation {
  json::Value room;         // the room manifest
  json::Value declaration;  // DECLARATION.json as observed
  json::Value checks;       // done-check results
  bool checks_passed = true;
  json::Value files;  // stdout, stderr, last message: {file,size,sha256}
  // The window's record: {"answered": [{request, op, key, status, rule}...], "unanswered":
  // [{request, op|null}...], "omitted": N} (man/hangar-return.5).
  json::Value ops;
  // What the harness itself reported (codex events, claude's result), kept apart from what the
  // kernel observed: null for a command profile.
  json::Value harness;
  // Network "egress": every connection hangar's proxy saw, {"list": [...], "omitted": N} (man
  // hangar-return.5); null for another network.
  json::Value connections;
  // A workspace mission: the change as hangar computed it (shell/change.h, man hangar-return.5);
  // null for another mission.
  json::Value change;
};
struct Observed {
  std::string id;
  Observation obs;
  TimeMs now = 0;
};

// A request file in a running mission's ROOM/ops (man/hangar-ops.5), read by the shell without
// following a symlink: bytes empty with read_error set when it could not be read. The shell also
// says what it found of the request's key in the mission's ops/keys (when the request parsed) and
// the declaration as it stood when the request was read.
enum class OpKeyState { kFree, kTaken, kDone };
struct OpRequested {
  std::string id, name;  // name: NAME of ops/NAME.json
  std::string bytes, read_error;
  json::Value declaration;             // shell/declaration.h's record
  OpKeyState key = OpKeyState::kFree;  // kTaken: taken, no result (ran, or was running, before)
  std::string stored_result;           // kDone: the result recorded under that key
  TimeMs now = 0;
};
// An op's handler ended (RunOp answered). started false: it could not be started, error says why,
// and its key was released (nothing ran, so the same request may come again).
struct OpFinished {
  std::string id, name, op, key;
  bool started = false;
  std::optional<int> rc, signal;
  bool timed_out = false;
  std::string error;
  json::Value output;       // {"file","size","sha256"} of the handler's output, or null
  std::string output_text;  // its first bytes (at most kOpOutputShown), as data
  bool output_cut = false;  // the output was longer than output_text
  TimeMs now = 0;
};
inline constexpr size_t kOpOutputShown = 64 * 1024;

// The ledger failed verification (at start, or the head check before a launch), or its anchor
// could not be written: fail closed.
// rolled_back: the ledger lacks entries its anchor or signed checkpoint vouches for (rolled back
// or rewritten from some seq on: a spool restored from a backup); see MissionRec::unproven.
// unvouched_grants: the seqs of grants in an unanchored tail that start-up would not adopt; the
// reanchor voids them (its body's "void"), so reanchoring never brings a forged grant to life.
struct LedgerFailed {
  std::string reason;
  TimeMs now = 0;
  bool rolled_back = false;
  std::vector<int64_t> unvouched_grants = {};
};

// An Intake the kernel decided could not be done for lack of space (ENOSPC, EDQUOT): the shell
// left the drop, or put it back, in incoming/new/NAME and takes it again later. The kernel forgets
// the mission it decided to take in as ID (and its launch, when the same decision launched it), as
// if the drop had not been seen; the next Dropped of NAME is decided afresh.
struct IntakeFailed {
  std::string name, id;
  std::string reason;
  TimeMs now = 0;
};

using Signal = std::variant<Dropped, Recovered, ControlDropped, LaunchDone, DroneExited,
                            SupervisorGone, Observed, Ready, LedgerFailed, OpRequested, OpFinished,
                            IntakeFailed, Tick, RecoveredEnded, RecoveredCold, Warmed>;

// ---- actions: what the shell must do, in order ----

// Take incoming/new/NAME into TO/ID (see docs/ARCHITECTURE.md "Ids and intake").
struct Intake {
  std::string name, id;
  Phase to = Phase::kQueued;
  std::map<std::string, std::string> files;  // written into the mission directory first
  // to hold with a notify dir: the requester hears of the hold (ID.hold.json, the gate verdict).
  std::optional<std::string> notify_dir;
};
// Launch attempt `attempt` of a queued mission: make the room and run dir, write the prompt, write
// plan.json and gate2.json, create the key (O_EXCL) and then write launch.json, rename queued/ID ->
// running/ID, start the supervisor. Answer with LaunchDone.
struct Launch {
  std::string id;
  int attempt = 1;
  Plan plan;
  std::string plan_text, gate2_text, prompt;
  std::string plan_sha256;  // of plan_text, as the gate passed and the ledger recorded it
  int64_t seq = 0;          // its mission.launched entry's: the launch key names it
};
// Observe a mission whose drone ended: manifest, declaration, done-checks. Answer with Observed.
struct Observe {
  std::string id;
  std::string room, run;
  std::string mission_ops;              // running/ID/ops: the window's answers
  Harness harness = Harness::kCommand;  // how to read the drone's stdout
  std::string stdout_file = "stdout";   // in run
  std::vector<DoneCheck> checks;
  std::map<std::string, std::string> check_env;
  CheckSandbox check_sandbox;  // where run checks run: the drone's hidden paths, limits, user
  std::string last_message;
  bool egress = false;  // network "egress": the proxy's connections are part of the observation
  // A workspace mission: the change is computed against workspace->commit (shell/change.h), and
  // room_own names what hangar itself put in the room (ops, MISSION.md, DECLARATION.json, the
  // profile's room_dirs, a last message kept there), left out of the change.
  std::optional<PlanWorkspace> workspace;
  std::vector<std::string> room_own;
};
// Stop a running drone through its supervisor (SIGTERM to the shim, by exact identity).
struct Kill {
  std::string id;
};
// Write files into FROM/ID, then rename FROM/ID -> TO/ID. With notify_dir, deliver return.json
// (to returned) or the gate verdict that held it as ID.hold.json (to hold).
struct Move {
  std::string id;
  Phase from = Phase::kQueued, to = Phase::kReturned;
  std::map<std::string, std::string> files;
  std::optional<std::string> notify_dir;
};
// Take returned/ID back to queued/ID for attempt previous + 1 (man/hangar-spool.5 "RETRY"):
// attempt `previous`'s launch.json, plan.json, gate2.json, approve.json, retry.json and run/ move
// into attempts/PREVIOUS/; returned/ID -> queued/ID; `files` (retry.json) are written; return.json
// moves into attempts/PREVIOUS/ last. The mission's ops/ (the window's keys) and its room stay.
struct Retry {
  std::string id;
  int previous = 0;
  std::map<std::string, std::string> files;
};
// Remove control/new/NAME; when bad, move it to control/bad/BAD_NAME with BAD_NAME.why.json
// (a generated name: a request's own name may be too long or taken there).
// Done with control/new/NAME: the answer (control/done/NAME.json, man/hangar-spool.5) written
// first, then the request removed or, when bad, filed as control/bad/BAD_NAME beside its why.
struct ConsumeControl {
  std::string name;
  bool bad = false;
  std::string bad_name;
  std::string why;
  std::string answer;
};
// One line for the log (stderr), e.g. "M1 queued -> running".
struct Log {
  std::string line;
};
// Append entry `seq` to the ledger, durably, then its anchor line. The shell appends all Records
// of one Decide together (group commit) before performing any other action of it.
// With new_epoch the entry opens the next epoch (a reanchor) and the shell adds to its body the
// head it follows ("previous": {epoch, seq, hash}), which only the ledger knows.
struct Record {
  int64_t seq = 0;
  std::string kind;
  json::Value body;
  TimeMs time = 0;
  bool new_epoch = false;
};

// Run an allowed op: write `files` into running/ID/ops, take the op key ops/keys/KEY.json
// (O_EXCL), run the handler with args on stdin, in running/ID/ops, for at most its timeout.
// Answer with OpFinished.
struct RunOp {
  std::string id, name, op, key;
  OpHandler handler;
  std::map<std::string, std::string> env;  // the handler's whole environment
  std::map<std::string, std::string> files;
};
// Answer a request: write `files` into running/ID/ops (NAME.result.json among them), then the
// result into the room as ROOM/ops/NAME.result.json (never replacing or following anything there).
// keep: store the result in the key file ops/keys/KEY.json; release: remove the key file.
struct AnswerOp {
  std::string id, name, key;
  std::string result;
  std::map<std::string, std::string> files;
  bool keep = false, release = false;
};

// Store version `version` of a requester's work state (man/hangar-memory.5): `text` becomes
// memory/REQUESTER/vVERSION.json, created whole and never replaced (the same bytes found there
// already: done; other bytes: an error, for the ledger names this version's sha256).
struct WriteMemory {
  std::string requester;
  int64_t version = 0;
  std::string text;
};

// Purge a mission in a terminal state (man/hangar-spool.5 "PURGE"): write the tombstone
// purged/ID.json (durably), then remove FROM/ID and its room, and a notify record left for it.
// Its keys stay. A stop in between is finished at the next start, from the tombstone.
struct Purge {
  std::string id;
  Phase from = Phase::kReturned;
  std::string tombstone;
};

// Read queued/ID/mission.json of each cold mission named (and resolve its writes again, as
// recovery does); answer with a Warmed for each, in order. Reads only.
struct Warm {
  std::vector<std::string> ids;
};

using Action = std::variant<Intake, Launch, Observe, Kill, Move, ConsumeControl, Log, Record, RunOp,
                            AnswerOp, Retry, WriteMemory, Purge, Warm>;

// The kernel. Decide consumes one signal and returns the actions, in the order they must run.
std::vector<Action> Decide(const KernelSetup& setup, State* state, const Signal& signal);

// True when a signal decided now could launch a drone (ready, not failed closed, a slot free):
// the shell checks the ledger's head against its anchor first, as the protected act requires.
bool MayLaunch(const KernelSetup& setup, const State& state);

// How far a signal's clock may lag the ledger's latest time before the kernel holds launches: the
// shell's threads read the clock at slightly different moments (an observation's `now` may be a
// little older than an entry just written).
inline constexpr TimeMs kClockSlackMs = 60 * 1000;

// When the earliest running canary will have run canary_s seconds (the shell sends Tick then);
// none while no canary runs.
std::optional<TimeMs> CanaryDue(const State& state);

}  // namespace hangar
