// What a Claude Code session reported: the facts of the stdout of
//   claude -p --output-format stream-json --verbose ...
// (one JSON object a line: {"type":"system",...}, "assistant", "user", ..., and last
// {"type":"result",...}). Recorded sessions: src/shell/testdata/claude_stream*.jsonl (Claude Code
// 2.1.332, against tests/model-server/messages_server.py; tests/model-server/run-claude records
// them).
//
// This is the drone's own account, never the kernel's: it says what Claude Code believes it did.
// Whether the mission is done is for the done-checks to say.
#pragma once

#include <cstddef>
#include <string_view>

#include "base/json.h"

namespace hangar {

struct ClaudeResultLimits {
  size_t max_result_bytes = 64 * 1024;  // "result" text kept; cut at a UTF-8 boundary
  size_t max_tool_uses = 64;            // tool uses listed; the rest are counted
  size_t max_input_bytes = 256;         // each tool use's input summary
  size_t max_errors = 8;                // strings of the result's "errors" kept
  size_t max_error_bytes = 1024;        // each of them
};

// Reads JSONL (the whole stdout) and returns, as an object:
//   "present"            a {"type":"result"} line was found (the last one counts)
//   "is_error"           true unless that line says "is_error": false. THE verdict: Claude Code
//                        marks an API error "subtype": "success" with "is_error": true, and its
//                        exit status is not the verdict either, so a caller lets is_error win
//                        over both. A stream without a result line (killed, crashed) is an error.
//   "subtype"            string|null: "success", "error_max_turns", "error_max_budget_usd", ...
//   "terminal_reason"    string|null: "completed", "api_error", "budget_exhausted", ...
//   "api_error_status"   int|null: the HTTP status of the failed model call
//   "num_turns"          int|null
//   "result"             string|null: the final text (or the API error message); at most
//                        max_result_bytes, then "result_truncated": true
//   "errors"             [string...] the result's "errors" (a budget stop has them, no "result"),
//                        at most max_errors, each cut at max_error_bytes; "errors_omitted": N
//   "permission_denials" int: tool uses the permission mode refused (dontAsk refuses quietly:
//                        the session goes on and may still end with is_error false)
//   "tool_uses"          [{"name","input"}...] from the assistant messages in order; "input" is
//                        a summary: the "command", "file_path", "path", "pattern" or "url"
//                        string when the input has one, else its canonical JSON; past
//                        max_input_bytes it is cut at a UTF-8 boundary and "..." appended
//   "tool_uses_omitted"  int: tool uses past max_tool_uses
//   "bad_lines"          int: non-blank lines that are not a JSON object (a partial last line
//                        from a killed process counts)
// Never throws (short of memory exhaustion); any input gives an object of this shape. Pure: no
// I/O, safe from any thread.
json::Value ReadClaudeResult(std::string_view jsonl, const ClaudeResultLimits& limits = {});

}  // namespace hangar
