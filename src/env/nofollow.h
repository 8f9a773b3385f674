// No-follow primitives: an owned fd, directories opened one component at a time with
// O_NOFOLLOW beneath a directory fd, the words for file types, and hashing an open file. What the
// room manifest, the declaration reader, the done-check runner and the real Env's maildir drop
// are built on, so that all see a directory a drone could change under them the same way.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"

namespace hangar {

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

}  // namespace hangar
