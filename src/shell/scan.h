// Scanning the spool into kernel signals. The directories are the truth; inotify only says when to
// look. Reading is bounded (1 MiB per mission or control file) and never follows a final symlink
// or blocks on a FIFO: what cannot be read becomes a signal that says why.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "env/env.h"
#include "kernel/kernel.h"
#include "kernel/layout.h"

namespace hangar {

// Names waiting in DIR (incoming/new or control/new), in order; names starting with '.' are
// somebody's unfinished file and are skipped, as in maildir.
Result<std::vector<std::string>> Waiting(Env* env, const std::string& dir);

Dropped ReadDrop(Env* env, const Layout& l, const std::string& name, TimeMs now);
ControlDropped ReadControl(Env* env, const Layout& l, const std::string& name, TimeMs now);
// True when control/done/NAME.json answers these very bytes (its request_sha256): the request was
// decided and answered before a stop kept it from being removed. It is then removed, not decided
// again. A name answered before for other bytes (a name used again) is decided anew.
bool AnsweredBefore(Env* env, const Layout& l, const ControlDropped& c);
// What a signed approve of held mission ID signs (ApprovalMessage, kernel/control.h), read as
// hangard and the CLI both read it: the sha256 of hold/ID/mission.json's bytes into
// *mission_sha256 and hold/ID/gate2.json's plan_sha256 ("" when absent) into *plan_sha256.
// mission.json's read error when it cannot be read (the mission is not held).
Result<std::string> HeldApprovalMessage(Env* env, const Layout& l, const std::string& id,
                                        std::string* mission_sha256, std::string* plan_sha256);

// RUN_DIR/exit.json, written by the supervisor as its last act before it lets go of its lock.
// NotFound until then; Invalid when malformed (the message names the file and field).
Result<ExitInfo> ReadExit(Env* env, const std::string& run_dir);

// Every mission directory of the spool as a Recovered signal: the tombstones of purged missions
// first (shell/purge.h RecoverPurged, which finishes a purge a stop cut short), terminal states
// next, then running, hold, queued (queued in intake order), so the kernel counts busy slots
// before it launches.
// alive(run_dir) tells whether a supervisor holds that run directory's lock. A live mission's
// "writes" are resolved again against home (ResolveWrites).
// With cold, only the first `warm` queued missions (in intake order) are read whole; the others
// are read as far as intake.json, retry.json and approve.json say and go into *cold, in launch
// order, for one RecoveredCold (kernel/kernel.h, the cold queue). A queued mission whose
// intake.json gives no sha256 is read whole wherever it stands: nothing could check its bytes when
// they are read again.
Result<std::vector<Recovered>> RecoverMissions(Env* env, const Layout& l, const std::string& home,
                                               TimeMs now,
                                               const std::function<bool(const std::string&)>& alive,
                                               std::vector<std::string>* log, size_t warm = 0,
                                               std::vector<ColdFound>* cold = nullptr);

// What Warm reads of cold queued mission ID: queued/ID/mission.json (or why it could not be
// read) and its writes resolved again against home, as recovery reads a queued mission.
Warmed ReadWarmed(Env* env, const Layout& l, const std::string& home, const std::string& id,
                  TimeMs now);

}  // namespace hangar
