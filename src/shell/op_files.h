// The window's files (man/hangar-ops.5). In the room, written by the drone and read here as
// untrusted input: ROOM/ops/NAME.json, opened under the room's fd without following a symlink
// anywhere, at most kMaxOpRequestBytes. In the mission directory, written only by hangard:
// running/ID/ops/NAME.request.json (the bytes as read), NAME.args.json, NAME.out, NAME.result.json,
// keys/KEY.json (taken O_EXCL before a handler runs, never rewritten) and keys/KEY.result.json
// (the result of the act run under KEY, written once when there is one).
// Safe to call from several threads at once.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "env/env.h"
#include "kernel/kernel.h"

namespace hangar {

// ROOM/ops/NAME.json as OpRequested wants it (bytes, or read_error), with the declaration read
// now and the state of the request's key under MISSION_OPS/keys.
OpRequested ReadOpRequest(Env* env, const std::string& room, const std::string& mission_ops,
                          const std::string& id, const std::string& name, TimeMs now);

// The request NAMEs in ROOM/ops (files NAME.json, see OpRequestName), sorted; empty when ROOM/ops
// cannot be opened.
std::vector<std::string> ListOpRequests(const std::string& room);

// Creates ROOM/ops (0755) when it is missing; the room must exist.
Status MakeOpsDir(const std::string& room);

// Takes MISSION_OPS/keys/KEY.json with O_EXCL (durably). Exists when it was taken already.
Status TakeOpKey(Env* env, const std::string& mission_ops, const std::string& key,
                 const std::string& text);

// Writes ROOM/ops/NAME.result.json: a new file (O_EXCL|O_NOFOLLOW) under a dot name, renamed into
// place without replacing anything, the directory opened without following a symlink. An error
// (the drone left something there, the room is gone) names the path; the mission directory keeps
// the answer either way.
Status WriteRoomResult(const std::string& room, const std::string& name, const std::string& text);

// The window's record of a mission for its return: every answer in MISSION_OPS (NAME.result.json,
// written by hangard) as {"request","op","key","status","rule"}, and every request left in
// ROOM/ops without one as {"request","op"} (op null when it does not parse). At most `max` of
// each; "omitted" counts the rest. Never fails: what cannot be read is left out and counted.
json::Value ReadOpsEvidence(const std::string& mission_ops, const std::string& room,
                            size_t max = 1000);

}  // namespace hangar
