// The shell's spool transitions: each kernel action that moves a mission between state directories,
// done as a sequence of durable steps (Env) so that a crash between any two steps leaves the spool
// in a state the next start understands (docs/ARCHITECTURE.md "Ids and intake", "Keys").
// A non-Ok Status is an I/O failure of the spool itself: hangard stops (fail-stop) rather than
// guess; the directories stay the truth for the next start.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "kernel/kernel.h"
#include "shell/env.h"
#include "shell/layout.h"

namespace hangar {

// incoming/new/NAME -> STATE/ID with the kernel's files (raw bytes moved, never copied).
Status PerformIntake(Env* env, const Layout& l, const Intake& in);

// Puts back every intake cut short by a crash (STATE/.ID.tmp directories). Returns what it did.
Result<std::vector<std::string>> RecoverIntakes(Env* env, const Layout& l);

// Writes the files into FROM/ID and renames it to TO/ID.
Status PerformMove(Env* env, const Layout& l, const Move& mv);

// Everything of a launch before the supervisor starts: plan.json, gate2.json, the O_EXCL key, the
// room, run/ with the prompt, queued/ID -> running/ID, launch.json. On an existing key it stops
// before anything moves and sets *key_existed. Returns the running mission directory.
Result<std::string> PrepareLaunch(Env* env, const Layout& l, const Launch& launch, TimeMs now,
                                  bool* key_existed);

// Removes control/new/NAME, or moves it to control/bad/NAME with NAME.why.json.
Status PerformConsumeControl(Env* env, const Layout& l, const ConsumeControl& c);

}  // namespace hangar
