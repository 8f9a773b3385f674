#include "env/nofollow.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "base/sha256.h"
#include "base/utf8.h"

namespace hangar {

namespace {

struct TypeName {
  mode_t format;
  std::string_view word, phrase;
};
constexpr TypeName kTypeNames[] = {
    {S_IFREG, "file", "a regular file"},     {S_IFDIR, "dir", "a directory"},
    {S_IFLNK, "symlink", "a symbolic link"}, {S_IFIFO, "fifo", "a fifo"},
    {S_IFSOCK, "socket", "a socket"},        {S_IFCHR, "chardev", "a character device"},
    {S_IFBLK, "blockdev", "a block device"},
};

const TypeName* FindType(mode_t mode) {
  for (const TypeName& t : kTypeNames) {
    if ((mode & S_IFMT) == t.format) return &t;
  }
  return nullptr;
}

// O_NOFOLLOW|O_DIRECTORY on a symlink fails with ENOTDIR or ELOOP; say which it was.
Status OpenDirError(int dir, const std::string& name, const std::string& what, int err) {
  struct stat st {};
  if ((err == ENOTDIR || err == ELOOP) &&
      fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    return Status::Invalid("cannot " + what + ": a symbolic link, not followed");
  }
  return Status::Errno(what, err);
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    Reset();
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

void UniqueFd::Reset() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

Result<UniqueFd> OpenRoom(const std::string& room) {
  int fd = open(room.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return UniqueFd(fd);
  return OpenDirError(AT_FDCWD, room, "open room " + ReplaceInvalidUtf8(room), errno);
}

Result<UniqueFd> OpenDirBeneath(int dir, std::string_view rel, std::string_view dir_name) {
  UniqueFd cur(fcntl(dir, F_DUPFD_CLOEXEC, 0));
  if (cur.get() < 0) return Status::Errno("duplicate a directory fd", errno);
  size_t pos = 0;
  while (pos <= rel.size()) {
    size_t slash = rel.find('/', pos);
    if (slash == std::string_view::npos) slash = rel.size();
    const std::string name(rel.substr(pos, slash - pos));
    std::string shown(dir_name);
    if (!shown.empty() && !shown.ends_with('/')) shown += "/";
    const std::string what = "open dir " + ReplaceInvalidUtf8(shown.append(rel.substr(0, slash)));
    pos = slash + 1;
    if (name.empty() || name == ".") continue;
    if (name == "..") return Status::Invalid("cannot " + what + ": \"..\" leaves the room");
    int fd = openat(cur.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return OpenDirError(cur.get(), name, what, errno);
    cur = UniqueFd(fd);
  }
  return cur;
}

std::string_view EntryType(mode_t mode) {
  const TypeName* t = FindType(mode);
  return t ? t->word : "unknown";
}

std::string NotRegularReason(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link, not followed";
  const TypeName* t = FindType(mode);
  return t ? std::string(t->phrase) + ", not a regular file" : "not a regular file";
}

Result<FileHash> HashFd(int fd, int64_t max_bytes) {
  constexpr size_t kChunk = 64 << 10;
  auto buf = std::make_unique_for_overwrite<char[]>(kChunk);
  Sha256 h;
  FileHash out;
  for (;;) {
    ssize_t n = pread(fd, buf.get(), kChunk, out.size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Io(std::strerror(errno));
    if (n == 0) break;
    out.size += n;
    if (out.size > max_bytes)
      return Status::Invalid("more than " + std::to_string(max_bytes) + " bytes");
    h.Update(buf.get(), size_t(n));
  }
  out.sha256 = h.FinishHex();
  return out;
}

}  // namespace hangar
