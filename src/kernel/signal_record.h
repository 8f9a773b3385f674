// The signal record's codec: every signal decide() consumes, written as one JSON object that reads
// back as exactly the same signal (man/hangar-signals.5), so a replay feeds the kernel what the
// live kernel saw, byte for byte. Pure: the bytes a signal carries (a drop, a control request, a
// mission, an op request, a stored op result, an observation) leave through BlobOut, which keeps
// them content-addressed and returns their reference ("sha256:HEX"), and come back through
// BlobIn; the shell decides where blobs live.
//
// Format, version 1: {"signal": KIND, FIELD: VALUE...} with KIND one of dropped, recovered,
// control, launch-done, drone-exited, supervisor-gone, observed, ready, ledger-failed,
// op-requested, op-finished, intake-failed, tick, recovered-ended, and the fields of that signal
// (kernel.h) under their names there. A text that may not be UTF-8 (a file name, a read error
// naming it) is a JSON string when it is, else {"hex": HEX}. Every field is written, so a reader
// never guesses a default.
//
// The replay's comparison of decisions and states is kernel/decision_digest.h.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/simdjson_util.h"
#include "base/status.h"
#include "kernel/decision_digest.h"
#include "kernel/kernel.h"
#include "kernel/record_fields.h"

namespace hangar {

// The signal's KIND as the record names it ("dropped", "control", ...).
const char* SignalKind(const Signal& s);

json::Value SignalToJson(const Signal& s, const BlobOut& out);
// Strict: Invalid naming the field for anything that is not what SignalToJson writes, or a blob
// BlobIn cannot give back.
Result<Signal> ParseSignal(std::string_view text, const BlobIn& in);

// For a reader of whole records (the signal log, man/hangar-signals.5): the signal at FIELD of a
// document parsed already. Throws strict::Failure naming the field, as the strict readers do.
Signal ReadSignalAt(simdjson::dom::element e, const std::string& field, const BlobIn& in);

}  // namespace hangar
