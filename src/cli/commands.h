// The commands of `hangar` (man/hangar.1). Each Run* does one command against ctx and returns the
// process exit status (cli/exit_code.h); it prints its result on ctx.out and its errors on ctx.err.
// The pure helpers beside them are the rules a test pins down.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/timefmt.h"
#include "cli/context.h"

namespace hangar::cli {

// submit FILE|-: validates a mission and drops it into incoming/new.
int RunSubmit(const Context& ctx, const std::string& file);
// hangar check FILE|-: stage 1 judged as intake would, nothing dropped (cli/check.cc).
int RunCheck(const Context& ctx, const std::string& file);
// The name `submit` gives a drop: CompactTime(now) + "-" + six hex digits of random24. It is a
// valid id, and it becomes the mission's id when the mission has no "id" field.
std::string FreshId(TimeMs now, uint32_t random24);

// config check [FILE]: the config (default: the one hangard reads) as hangard parses it, each
// program a profile or op handler names executable, each template's placeholders known, its policy
// loadable; 0 when all hold, 78 with every problem named otherwise (man hangar.1, config check).
int RunConfigCheck(const Context& ctx, const std::string& file);

// ls [STATE...] [--requester R] [--since TIME] [--json-lines]: the missions, oldest first by
// intake time.
struct ListArgs {
  std::vector<std::string> states;  // none: all
  std::string requester, since;
  bool json_lines = false;
  std::optional<double> watch;  // --watch S: the live states again every S seconds
};
int RunList(const Context& ctx, const ListArgs& a);
// --since's TIME: an RFC 3339 time, or a duration back from NOW (90s, 10m, 2h, 3d).
std::optional<TimeMs> SinceTime(const std::string& text, TimeMs now);

// purge [ID...] [--older-than SPAN|TIME] [--state S]... [--dry-run] [--why TEXT]: asks the kernel
// to purge ended missions (man/hangar.1, PURGE): the IDs named, or those of the STATES (returned,
// denied, rejected by default) that ended before the time or longer ago than the span.
struct PurgeArgs {
  std::vector<std::string> ids, states;
  std::string older_than, why;
  bool dry_run = false;
};
int RunPurge(const Context& ctx, const PurgeArgs& a);

// show ID: everything the spool says about one mission.
int RunShow(const Context& ctx, const std::string& id);

// wait ID [--timeout S]: blocks until the mission ends; 0 when done, 1 otherwise, 75 on timeout.
int RunWait(const Context& ctx, const std::string& id, std::optional<double> timeout_s);

// logs ID [-f] [--stderr | --events] [--tail N]: the drone's output (man hangar.1, logs); with
// follow, until the mission ends, then `wait`'s exit status.
struct LogsArgs {
  std::string id;
  bool follow = false, stderr_only = false, events = false;
  int64_t tail = -1;  // -1: all
};
int RunLogs(const Context& ctx, const LogsArgs& a);

// cancel ID: asks the kernel (control/new) to stop a mission that is held, queued or running.
int RunCancel(const Context& ctx, const std::string& id);
// The request file's content and name (docs/ARCHITECTURE.md, Control requests).
json::Value CancelRequest(const std::string& id, const std::string& by, TimeMs now);
std::string CancelRequestName(const std::string& id, TimeMs now, pid_t pid);

// approve ID / deny ID --why TEXT: a person's decision on a held mission, as a control request.
// approve, signed when SIGN_KEY is given: ssh-keygen -Y sign -f SIGN_KEY -n hangar of the
// mission's ApprovalMessage as it is held now, under PRINCIPAL (default: $USER).
int RunApprove(const Context& ctx, const std::string& id, const std::string& why,
               const std::string& sign_key = "", const std::string& principal = "");
int RunDeny(const Context& ctx, const std::string& id, const std::string& why);
// retry ID: asks the kernel to launch a returned mission again as its next attempt (new key), when
// its last attempt did not end normally (kernel/retry.h) and nothing of it still lives.
int RunRetry(const Context& ctx, const std::string& id);
// grant / revoke OP --mission ID | --requester NAME [--until TIME]: control requests the kernel
// records in the ledger; grants exist nowhere else.
struct GrantArgs {
  std::string op, mission, requester, until;
};
int RunGrant(const Context& ctx, const GrantArgs& a, bool revoke);
// grants [--all]: grants in force (or every grant and revocation), folded from the ledger.
int RunGrants(const Context& ctx, bool all);
// patch ID: the patch a returned workspace mission's change holds (run/change.patch, its sha256
// checked against return.json); 66 when it has none. apply ID [--to PATH] [--3way]: that patch
// applied to PATH (default: the mission's repository) with the user's git apply --index, refused
// (65) when PATH has uncommitted changes or is not at the base commit (unless --3way).
int RunPatch(const Context& ctx, const std::string& id);
int RunApply(const Context& ctx, const std::string& id, const std::string& to, bool three_way);
// ledger reanchor --why TEXT: asks a failed-closed kernel to start a new epoch.
int RunReanchor(const Context& ctx, const std::string& why);
// release-canary PROFILE [--why TEXT]: lets the missions that wait on PROFILE's canary launch.
int RunReleaseCanary(const Context& ctx, const std::string& profile, const std::string& why);
// ledger verify [--checkpoint FILE] / ledger show [--from SEQ] [--kind K]. anchor_dir: --anchor,
// else what hangard.json or the config names.
int RunLedgerVerify(const Context& ctx, const std::string& anchor_dir,
                    const std::string& checkpoint);
int RunLedgerShow(const Context& ctx, int64_t from, const std::string& kind);

// policy check FILE: reads a policy file with the kernel's reader; prints
// "FILE: ok, policy v1, N rules (sha256 HEX)" and exits 0, or names the field and the reason and
// exits 65 (invalid, or larger than 1 MiB) or 66 (missing, unreadable, not a regular file).
int RunPolicyCheck(const Context& ctx, const std::string& file);

// replay [--from SEQ] [--to SEQ] [--policy FILE] [--config FILE] [--into DIR]: the signal record
// fed again to this binary's kernel after the live ledger verified; the steps that differ, and a
// summary. 0 when none differs, 1 when some do, 65 when the record or ledger cannot be trusted,
// 64 when DIR is in the live spool or anchor directory (cli/replay_cmd.cc).
struct ReplayArgs {
  int64_t from = 0;
  std::optional<int64_t> to;
  std::string policy, config, into;
};
int RunReplay(const Context& ctx, const ReplayArgs& a);
// policy try FILE [--since TIME]: a replay with FILE as the policy; the missions it would have
// decided otherwise. 0 none, 1 some, 65 when FILE is not a policy.
int RunPolicyTry(const Context& ctx, const std::string& file, const std::string& since);

// memory put --requester R FILE|-: checks a work state (man/hangar-memory.5) with the kernel's
// parser (65 naming the field) and hands it to the kernel, which stores it as R's next version
// when this uid owns R (77 otherwise); exits by the kernel's answer (cli/answer.h).
int RunMemoryPut(const Context& ctx, const std::string& requester, const std::string& file);
// memory log --requester R: the versions as the ledger records them, each file checked.
int RunMemoryLog(const Context& ctx, const std::string& requester);
// memory show --requester R [--version N]: one version's sections (0: the latest); 66 when there
// is none, 65 when its file is not what the ledger stored.
int RunMemoryShow(const Context& ctx, const std::string& requester, int64_t version);
// memory diff --requester R [--from N] [--to M]: diff -u of two versions (default the last two).
int RunMemoryDiff(const Context& ctx, const std::string& requester, int64_t from, int64_t to);
// resume --requester R [--max-bytes N]: the resume pack (kernel/resume_pack.h), at most N bytes.
int RunResume(const Context& ctx, const std::string& requester, size_t max_bytes);

// status: kernel presence, counts per state, oldest waiting missions, notify backlog.
int RunStatus(const Context& ctx, bool check = false);
// Whether a live hangard holds lock_file: true when a lock excludes our shared one (flock
// LOCK_SH|LOCK_NB on a fresh descriptor), false when the file is absent or nobody holds it,
// nullopt when the file cannot be opened to tell.
std::optional<bool> KernelAlive(const std::string& lock_file);

}  // namespace hangar::cli
