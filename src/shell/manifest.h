// The room manifest: every entry under a drone's room, as the kernel itself sees it.
//
// The walk never follows a symbolic link: the room is opened with O_NOFOLLOW, each directory below
// it with openat(O_NOFOLLOW|O_DIRECTORY) under its parent's fd, each entry is examined with
// fstatat(AT_SYMLINK_NOFOLLOW), and only regular files are opened for reading (O_NONBLOCK, so an
// entry swapped for a FIFO cannot block the kernel). Nothing is filtered by name or mtime. A limit
// never cuts silently: whatever it leaves out is counted in the result.
//
// This file also holds the no-follow primitives the walk is built on; the declaration reader and
// the done-check runner use them so that all three see the room the same way.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/json.h"
#include "base/status.h"

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

// An owned file descriptor, closed when destroyed.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  void Reset();

 private:
  int fd_ = -1;
};

// Opens ROOM as a directory, refusing a final symlink ("cannot open room R: a symbolic link, not
// followed"). Earlier components of ROOM are the kernel's own configuration and may be symlinks.
Result<UniqueFd> OpenRoom(const std::string& room);

// Opens directory REL ('/'-separated, relative; "" is DIR itself) beneath DIR one component at a
// time with openat(O_NOFOLLOW|O_DIRECTORY). Errors name the prefix that failed, after DIR_NAME
// and a "/" (none when DIR_NAME ends in one) when given: "cannot open dir a/b: a symbolic link,
// not followed"; NotFound when a component is missing; ".." is refused.
Result<UniqueFd> OpenDirBeneath(int dir, std::string_view rel, std::string_view dir_name = "");

// The manifest's word for the file type in MODE: "file", "dir", "symlink", "fifo", "socket",
// "chardev", "blockdev" ("unknown" for anything else).
std::string_view EntryType(mode_t mode);

// Why an entry of MODE is not read as a regular file: "a symbolic link, not followed",
// "a directory, not a regular file", "a fifo, not a regular file", ...
std::string NotRegularReason(mode_t mode);

struct FileHash {
  int64_t size = 0;
  std::string sha256;  // lower-case hex
};
// Hashes FD's content from offset 0 to its end with pread (the fd's offset is left alone).
// Invalid when there are more than MAX_BYTES bytes (a file that grew while read); Io with the
// reason alone (strerror) when a read fails.
Result<FileHash> HashFd(int fd, int64_t max_bytes);

// S with each invalid UTF-8 sequence replaced by U+FFFD; S itself when it is valid.
std::string ReplaceInvalidUtf8(std::string_view s);

}  // namespace hangar
