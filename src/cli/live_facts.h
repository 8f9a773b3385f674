// What `hangar show` adds from a mission's run directory (man hangar.1, show): for a running
// mission its drone's pid, how long it has run, the deadline left, its last lines of output (or a
// harness's last event); for a returned one how long it ran and its last message. Everything the
// drone wrote is quoted as data by the table that prints it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/json.h"
#include "cli/output.h"
#include "cli/spool_view.h"

namespace hangar::cli {

// The facts of the mission at REF (its plan.json, run/shim.json, run/stdout or the
// harness's events, run/last-message.txt), as seen at NOW; none when it has not been launched.
// JSON: {"pid", "elapsed_ms", "deadline_left_ms", "last_lines": [...], "last_event",
// "last_message"}, each null when unknown.
json::Value LiveFacts(const SpoolView& view, const MissionRef& ref, TimeMs now);
// Its rows for the table: pid, elapsed, deadline, output, event, message (what is known).
std::vector<Row> LiveRows(const json::Value& facts);

// The last N lines of the file at PATH (N >= 0), reading at most its last 16 MiB; empty when it
// cannot be read.
std::vector<std::string> LastLines(const std::string& path, size_t n);

// Where, in the open regular file FD as it ends now, its last N lines start (reading at most its
// last 16 MiB: then no earlier than that).
off_t StartOfLastLines(int fd, size_t n);

}  // namespace hangar::cli
