// The replay's comparison (man/hangar-signals.5, DIGESTS): what a decision did as text, the
// missions it named, and digests of the kernel's state after it, each written straight as
// canonical JSON (they are computed after every decision, live and replayed). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "kernel/kernel.h"

namespace hangar {

// The kernel build a signal record names (man/hangar-signals.5): raised whenever this binary's
// decide() may decide a recorded signal otherwise than the build before it.
inline constexpr std::string_view kKernelBuild = "hangar-kernel/4";

// What a decision did, for the replay's diff: its actions without their explanations, as text.
// A Log goes; a Record keeps its kind, seq, time and body but not the gate's "rules", "reason"
// and "policy" (which the state holds: MissionRec::gate); files are named, not hashed; a control
// request's or an op's answer is not compared, its Record is; a launch is its plan's sha256. Two
// decisions the same here act the same on the spool, the ledger's verdicts and the window.
std::string DecisionText(const std::vector<Action>& acts);

// True when the decision does more than write log lines (the signal record writes its line with
// such a decision's entries, before its anchor lines and acts; a replay tells extra and missing
// steps by it).
bool Acts(const std::vector<Action>& acts);

// The missions a decision may have changed: the signal's own and each action's (a Record's
// body "id"), sorted, each once.
std::vector<std::string> TouchedIds(const Signal& s, const std::vector<Action>& acts);

// A mission's part of the digests as canonical JSON (its phase, attempt, ends, error, gate, the
// sha256s it is bound to, its owner, the window's keys), appended to *out.
void AppendMissionText(std::string* out, const MissionRec& r);

// sha256 (hex) of what a decision over IDS leaves in the state: those missions (absent ones as
// null) and the grants in force. Cheap with many missions: the recorder writes it every signal.
std::string StepDigest(const State& s, const std::vector<std::string>& ids);
// The text StepDigest hashes, and GlobalDigest's: a replay hashes them on another thread.
std::string StepText(const State& s, const std::vector<std::string>& ids);
std::string GlobalText(const State& s);
// sha256 (hex) of the rest of the state, what every decision shares: the queue's length and
// head, the slots held, the id counter, the ledger's seq and time, fail-closed, the clock, the
// rollback. A decision that differs changes it for all that follow, so the replay reports where
// it first differs, not every step after.
std::string GlobalDigest(const State& s);
// sha256 (hex) of the whole state: every mission, the queue in order, the grants, the rest.
std::string StateDigest(const State& s);

}  // namespace hangar
