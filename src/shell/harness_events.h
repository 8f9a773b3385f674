// What an agent harness REPORTED about its own run, read from the event stream it printed
// (`codex exec --json`, saved as RUN/events.jsonl). This is the drone's account, stored beside what
// the kernel observed and never mistaken for it: codex reports the commands it ran and the files
// its apply_patch tool changed, not a file a command wrote, and not a patch it refused to apply.
// Text in it is data; nothing here acts on it.
//
// The reader never throws and never fails on the content: a line that is not what codex-cli 0.171
// prints is counted as bad and skipped. Every list has a cap; what a cap leaves out is counted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/json.h"
#include "env/env.h"

namespace hangar {

inline constexpr size_t kMaxHarnessEntries = 1000;                 // per list
inline constexpr size_t kMaxHarnessEventBytes = size_t(16) << 20;  // of events.jsonl read

// Summarizes codex's JSON lines:
//   {"lines":N,         non-blank lines read
//    "bad_lines":N,     lines that are not JSON objects with a string "type", or whose event has
//                       the wrong shape (nothing is taken from them)
//    "messages":N,      item.completed items of type agent_message
//    "commands":[{"command","exit_code" (int or null),"status"}...]
//                       item.completed items of type command_execution, in order
//    "file_changes":[{"path","kind","status"}...]
//                       one per change of each item.completed item of type file_change; kind is
//                       add, update or delete, status the item's (completed, failed)
//    "errors":["..."...]  "error" events, turn.failed errors and items of type error
//    "usage":{...}      the integer fields of every turn.completed usage, summed; absent if none
//    "commands_omitted":N, "file_changes_omitted":N, "errors_omitted":N
//                       present only when a list reached max_entries}
// Other events (thread.started, item.started, reasoning items, ...) are counted in lines only.
json::Value SummarizeCodexEvents(std::string_view jsonl, size_t max_entries = kMaxHarnessEntries);

// Reads at most max_bytes of the regular file at path (a final symlink is not followed) and
// summarizes its complete lines, adding "present":true, "bytes" (the file's size) and, when the
// file was longer than max_bytes, "bytes_unread" (everything after the last whole line read).
// An absent file gives {"present":false}; one that cannot be read (a symlink, a directory, an I/O
// error) {"present":true,"error":"cannot ..."}.
json::Value ReadCodexEvents(Env& env, const std::string& path,
                            size_t max_bytes = kMaxHarnessEventBytes);

}  // namespace hangar
