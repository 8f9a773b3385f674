// Reading the append-only line files of the ledger (segments, anchors) front to back in bounded
// memory, and finding their tails without reading them whole.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "env/env.h"

namespace hangar::ledger {

// Calls fn(line, line_no, complete) for each line of path in order (line without "\n", line_no
// from 1). The last line is passed with complete = false when the file does not end in "\n".
// Stops at, and returns, the first non-Ok that fn returns.
Status ForEachLine(Env* env, const std::string& path,
                   const std::function<Status(std::string_view, int64_t, bool)>& fn);

// The same a block at a time, for readers that handle many lines at once: reads of about `chunk`
// bytes (more when one line is longer), each passed whole as fn(text, first_line_no, complete):
// text is one or more complete lines, each ending in "\n", the first being line first_line_no.
// A last line without "\n" comes alone, with complete = false. text lives until fn returns.
Status ForEachLineBlock(Env* env, const std::string& path, size_t chunk,
                        const std::function<Status(std::string_view, int64_t, bool)>& fn);

// Offset of the last '\n' strictly before end, or -1; reads backwards a chunk at a time.
Result<int64_t> LastNewlineBefore(Env* env, const std::string& path, uint64_t end);

}  // namespace hangar::ledger
