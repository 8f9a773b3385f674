// The room manifest: every entry under a drone's room, as the kernel itself sees it.
//
// The walk never follows a symbolic link: the room is opened with O_NOFOLLOW, each directory below
// it with openat(O_NOFOLLOW|O_DIRECTORY) under its parent's fd, each entry is examined with
// fstatat(AT_SYMLINK_NOFOLLOW), and only regular files are opened for reading (O_NONBLOCK, so an
// entry swapped for a FIFO cannot block the kernel). Nothing is filtered by name or mtime. A limit
// never cuts silently: whatever it leaves out is counted in the result.
//
// The walk is built on the no-follow primitives of env/nofollow.h, which the declaration reader
// and the done-check runner use too, so that all three see the room the same way.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/json.h"
#include "base/status.h"
#include "base/utf8.h"
#include "env/nofollow.h"

namespace hangar {

struct ManifestLimits {
  int64_t max_entries = 100000;               // entries listed; more are counted, not listed
  int64_t max_hash_bytes = int64_t(4) << 30;  // bytes hashed; later files get "sha256": null
};

// Walks ROOM and returns the "room" object of return.json (man/hangar-return.5):
//   {"path","entries","listed","omitted_entries","omitted_bytes","unhashed_files",
//    "unhashed_bytes","bytes","errors":[...],"manifest":[ENTRY...]}
// ENTRY: {"path","type","size","mode","sha256" (files),"target" (symlinks)}, plus "path_b64" /
// "target_b64" (base64 of the raw bytes) when the name is not valid UTF-8, in which case "path" /
// "target" carry U+FFFD in place of the invalid bytes.
//
// Entries are visited in byte order of their room-relative paths, so the manifest is sorted, the
// listed entries are exactly the first max_entries paths, and the hash budget is spent in that
// order: once a file does not fit in what is left of it, that file and every later one is listed
// unhashed. unhashed_files/bytes count every listed regular file without a sha256, whether the
// budget ran out or an error (named in "errors") prevented hashing.
//
// At most four file descriptors are open at once whatever the depth: a directory left for a
// subtree is reached again from the room fd, one O_NOFOLLOW component at a time. A room that is
// missing, not a directory or a symlink yields an empty manifest and an error; never a crash.
// Safe to call from several threads at once.
json::Value RoomManifest(const std::string& room, const ManifestLimits& limits);

}  // namespace hangar
