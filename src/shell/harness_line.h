// One line of an agent harness's JSON event stream, as `hangar logs --events` shows it (man
// hangar.1, logs): codex's `exec --json` events and claude's `--output-format stream-json`
// lines, told apart by their "type". What they say is the drone's account, shown as data.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hangar {

// The lines LINE is summarised as, each "KIND: TEXT" (TEXT at most 200 bytes, cut on a UTF-8
// boundary with "..."):
//   command: CMD (exit N)      codex command_execution, completed
//   file: KIND PATH            codex file_change, one per change
//   message: TEXT              codex agent_message; claude assistant text
//   error: TEXT                codex error, turn.failed
//   tool: NAME INPUT           claude tool_use (INPUT: its command, file_path, path, ... or JSON)
//   result: SUBTYPE            claude's result line
// Nothing for a line that is blank, not JSON, or an event with nothing to show (thread.started,
// item.started, reasoning, ...).
std::vector<std::string> HarnessEventLines(std::string_view line);

}  // namespace hangar
