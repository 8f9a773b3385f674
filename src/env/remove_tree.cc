#include "env/remove_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "env/nofollow.h"

namespace hangar {

namespace {

// The names in the directory open at FD (not . or ..). The fd stays ours: fdopendir gets a dup.
Result<std::vector<std::string>> Names(int fd, const std::string& shown) {
  const int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0) return Status::Errno("read directory " + shown, errno);
  DIR* d = fdopendir(dup_fd);
  if (!d) {
    const int e = errno;
    close(dup_fd);
    return Status::Errno("read directory " + shown, e);
  }
  std::vector<std::string> names;
  errno = 0;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  const int e = errno;
  closedir(d);
  if (e) return Status::Errno("read directory " + shown, e);
  return names;
}

// Empties the directory NAME beneath PARENT, then removes it. depth bounds the recursion.
Status RemoveBeneath(int parent, const std::string& name, const std::string& shown, int depth) {
  if (depth > 4096) return Status::Invalid("cannot remove " + shown + ": nested too deep");
  if (unlinkat(parent, name.c_str(), 0) == 0) return Status::Ok();
  if (errno == ENOENT) return Status::Ok();
  if (errno != EISDIR && errno != EPERM) return Status::Errno("remove " + shown, errno);
  int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == EACCES) {  // a directory made unreadable: ours to open again
    if (fchmodat(parent, name.c_str(), 0700, 0) == 0)
      fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) return Status::Errno("open directory " + shown, errno);
  UniqueFd dir(fd);
  struct stat st {};
  if (fstat(dir.get(), &st) == 0 && (st.st_mode & 0700) != 0700) (void)fchmod(dir.get(), 0700);
  Result<std::vector<std::string>> names = Names(dir.get(), shown);
  if (!names.ok()) return names.status();
  for (const std::string& n : *names)
    if (Status s = RemoveBeneath(dir.get(), n, shown + "/" + n, depth + 1); !s.ok()) return s;
  if (unlinkat(parent, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
    return Status::Errno("remove directory " + shown, errno);
  return Status::Ok();
}

}  // namespace

Status RemoveTreeNoFollow(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string parent = slash == std::string::npos ? "."
                             : slash == 0               ? "/"
                                                        : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..")
    return Status::Invalid("cannot remove " + path + ": not a name");
  const int fd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::Errno("open directory " + parent, errno);
  UniqueFd dir(fd);
  struct stat st {};
  if (fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return Status::Errno("remove " + path, errno);
  return RemoveBeneath(dir.get(), name, path, 0);
}

}  // namespace hangar
