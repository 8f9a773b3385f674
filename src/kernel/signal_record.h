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

#include "base/json.h"
#include "base/status.h"
#include "kernel/kernel.h"

namespace hangar {

using BlobOut = std::function<std::string(std::string_view bytes)>;
using BlobIn = std::function<Result<std::string>(const std::string& ref)>;

json::Value SignalToJson(const Signal& s, const BlobOut& out);
// Strict: Invalid naming the field for anything that is not what SignalToJson writes, or a blob
// BlobIn cannot give back.
Result<Signal> ParseSignal(std::string_view text, const BlobIn& in);

// The action as canonical JSON: {"action": KIND, ...its fields}. Two decisions are the same when
// their actions' texts are equal, in order.
json::Value ActionToJson(const Action& a);

// sha256 (hex) of the state's canonical text: each mission's phase, attempt, ends, error, the
// sha256s it is bound to, its owner, the window's keys; the queue in order; the slots held; the
// counter; the ledger seq and time; fail-closed, the clock, the rollback; the grants in force.
std::string StateDigest(const State& s);

}  // namespace hangar
