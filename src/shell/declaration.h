// DECLARATION.json as the kernel observes it: the drone's own statement of what it will do,
// written into its room before it works. The kernel stores it, hashes it and checks its shape; it
// never follows its words.
#pragma once

#include <cstddef>
#include <string>

#include "base/json.h"

namespace hangar {

inline constexpr size_t kMaxDeclarationBytes = 1 << 20;  // 1 MiB

// Reads ROOM/DECLARATION.json without following a symlink (openat(O_NOFOLLOW|O_NONBLOCK) under
// the room's fd, the room itself opened with O_NOFOLLOW), reading at most 1 MiB. Returns:
//   {"present":false}                          no such entry ("error" added when the room itself
//                                               cannot be opened)
//   {"present":true,"valid":false,"error"}     a symlink, a directory, a fifo, ... (nothing read,
//                                               nothing hashed), or a file over 1 MiB ("size" too)
//   {"present":true,"size","sha256","valid":true,"content":{...}}
//   {"present":true,"size","sha256","valid":false,"error":"field: reason"}
// Valid: UTF-8 text holding one JSON object with exactly the keys will, will_not, ops and
// external_acts, each a list of strings. The first problem found is the error, checked in this
// order: UTF-8, JSON syntax, an object, unknown keys (in byte order), then the four keys in the
// order above. Safe to call from several threads at once.
json::Value ReadDeclaration(const std::string& room);

}  // namespace hangar
