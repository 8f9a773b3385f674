// The signal record's codec: every signal decide() consumes, written as one JSON object that reads
// back as exactly the same signal (man/hangar-signals.5), so a replay feeds the kernel what the
// live kernel saw, byte for byte. Pure: the bytes a signal carries (a drop, a control request, a
// mission, an op request, a stored op result, an observation) leave through BlobOut, which keeps
// them content-addressed and returns their reference ("sha256:HEX"), and come back through
// BlobIn; the shell decides where blobs live.
//
// Format, version 1: {"signal": KIND, FIELD: VALUE...} with KIND one of dropped, recovered,
// control, launch-done, drone-exited, supervisor-gone, observed, ready, ledger-failed,
// op-requested, op-finished, intake-failed, and the fields of that signal (kernel.h) under their
// names there. A text that may not be UTF-8 (a file name, a read error naming it) is a JSON string
// when it is, else {"hex": HEX}. Every field is written, so a reader never guesses a default.
//
// Also here, for the replay's diff: an action as canonical JSON (ActionToJson), and a digest of
// the kernel's state (StateDigest) over what decides the next decisions.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/simdjson_util.h"
#include "base/status.h"
#include "kernel/kernel.h"

namespace hangar {

using BlobOut = std::function<std::string(std::string_view bytes)>;
using BlobIn = std::function<Result<std::string>(const std::string& ref)>;

// The signal's KIND as the record names it ("dropped", "control", ...).
const char* SignalKind(const Signal& s);

json::Value SignalToJson(const Signal& s, const BlobOut& out);
// Strict: Invalid naming the field for anything that is not what SignalToJson writes, or a blob
// BlobIn cannot give back.
Result<Signal> ParseSignal(std::string_view text, const BlobIn& in);

// For a reader of whole records (the signal log, man/hangar-signals.5): the signal at FIELD of a
// document parsed already. Throws strict::Failure naming the field, as the strict readers do.
Signal ReadSignalAt(simdjson::dom::element e, const std::string& field, const BlobIn& in);

// The action as canonical JSON: {"action": KIND, ...its fields}. Two decisions are the same when
// their actions' texts are equal, in order.
json::Value ActionToJson(const Action& a);

// The kernel build a signal record names (man/hangar-signals.5): raised whenever this binary's
// decide() may decide a recorded signal otherwise than the build before it.
inline constexpr std::string_view kKernelBuild = "hangar-kernel/1";

// What a decision did, for the replay's diff: its actions without their explanations, as text.
// A Log goes; a Record keeps its kind, seq, time and body but not the gate's "rules", "reason"
// and "policy" (which the state holds: MissionRec::gate); files are named, not hashed; a control
// request's or an op's answer is not compared, its Record is. Two decisions the same here act the
// same on the spool, the ledger's verdicts and the window.
std::string DecisionText(const std::vector<Action>& acts);

// The missions a decision may have changed: the signal's own and each action's (a Record's
// body "id"), sorted, each once.
std::vector<std::string> TouchedIds(const Signal& s, const std::vector<Action>& acts);
// sha256 (hex) of what a decision over IDS leaves in the state: those missions as StateDigest
// writes them (absent ones as null) and the grants in force. Cheap with many missions: the live
// recorder writes it after every signal.
std::string StepDigest(const State& s, const std::vector<std::string>& ids);
// sha256 (hex) of the rest of the state, what every decision shares: the queue's length and
// head, the slots held, the id counter, the ledger's seq and time, fail-closed, the clock, the
// rollback. A decision that differs changes it for all that follow, so the replay reports where
// it first differs, not every step after.
std::string GlobalDigest(const State& s);

// sha256 (hex) of the state's canonical text: each mission's phase, attempt, ends, error, the
// sha256s it is bound to, its owner, the window's keys; the queue in order; the slots held; the
// counter; the ledger seq and time; fail-closed, the clock, the rollback; the grants in force.
std::string StateDigest(const State& s);

}  // namespace hangar
