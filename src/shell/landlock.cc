#include "shell/landlock.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "kernel/path_norm.h"

namespace hangar {

namespace {

// An owned descriptor (hangar-confine links this file alone, statically: no env/ in it).
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }
  int get_and_forget() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

constexpr __u64 kRead = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
// Moving or linking a file to another directory: denied by any ruleset that does not handle it
// (ABI 2 and later), so handled, and granted everywhere (the mounts decide where writes go).
constexpr __u64 kRefer = LANDLOCK_ACCESS_FS_REFER;
constexpr __u64 kHandled = kRead | kRefer;

// An inode: what a rule binds, and how an alias (a hard link, a bind mount) of a hidden path or
// an ancestor is recognised beside it.
using Inode = std::pair<dev_t, ino_t>;

std::string Failed(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// "/" + name, or dir + "/" + name.
std::string Child(const std::string& dir, const char* name) {
  return dir == "/" ? "/" + std::string(name) : dir + "/" + name;
}

class Ruleset {
 public:
  std::string Create() {
    landlock_ruleset_attr attr{};
    attr.handled_access_fs = kHandled;
    fd_ = Fd(int(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0)));
    return fd_.get() < 0 ? Failed("landlock_create_ruleset") : "";
  }

  // A rule on what FD names (a directory: reading beneath it; else reading it) granting WANT,
  // narrowed to what applies to its type; none for a symbolic link or one of SKIP (hidden paths
  // and ancestors, by inode: a hard link or a bind mount of one beside it grants nothing).
  std::string Add(int fd, const std::string& path, __u64 want, const std::set<Inode>& skip) {
    struct stat st {};
    if (fstat(fd, &st) != 0) return Failed("stat " + path);
    if (S_ISLNK(st.st_mode) || skip.count({st.st_dev, st.st_ino})) return "";
    landlock_path_beneath_attr rule{};
    rule.parent_fd = fd;
    rule.allowed_access = S_ISDIR(st.st_mode) ? want : want & LANDLOCK_ACCESS_FS_READ_FILE;
    if (rule.allowed_access == 0) return "";
    if (syscall(SYS_landlock_add_rule, fd_.get(), LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
      return Failed("landlock_add_rule " + path);
    return "";
  }

  // Add for PATH, opened without following its last component; a path gone or out of reach
  // grants nothing.
  std::string AddPath(const std::string& path, __u64 want, const std::set<Inode>& skip = {}) {
    Fd fd(open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0) return errno == ENOENT || errno == EACCES ? "" : Failed("open " + path);
    return Add(fd.get(), path, want, skip);
  }

  // A rule for every entry of ancestor DIR (open as LISTED) that is neither hidden nor an ancestor
  // itself.
  std::string AddBeside(const std::string& dir, int listed, const std::set<std::string>& hide,
                        const std::set<std::string>& ancestors, const std::set<Inode>& skip) {
    int dfd = fcntl(listed, F_DUPFD_CLOEXEC, 0);  // closedir closes it; LISTED stays the caller's
    if (dfd < 0) return Failed("list " + dir);
    DIR* d = fdopendir(dfd);
    if (d == nullptr) {
      close(dfd);
      return Failed("list " + dir);
    }
    std::string why;
    for (;;) {
      errno = 0;  // set before each readdir: only its own failure may be read after it
      const dirent* e = readdir(d);
      if (e == nullptr) {
        if (errno != 0) why = Failed("list " + dir);
        break;
      }
      if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
      const std::string path = Child(dir, e->d_name);
      if (e->d_type == DT_LNK || hide.count(path) || ancestors.count(path)) continue;
      Fd fd(openat(dirfd(d), e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC));
      if (fd.get() < 0) {
        if (errno == ENOENT || errno == EACCES) continue;  // gone since the listing
        why = Failed("open " + path);
        break;
      }
      why = Add(fd.get(), path, kRead, skip);
      if (!why.empty()) break;
    }
    closedir(d);
    return why;
  }

  int Release() { return fd_.get_and_forget(); }
  void Adopt(int fd) { fd_ = Fd(fd); }

 private:
  Fd fd_;
};

// Whether hidden path PATH needs the ruleset: it exists (or cannot be looked at), or the
// directory that would hold it belongs to someone other than root or anyone may write it (a home,
// /tmp: where a credential may appear after the launch). A missing path in a root-owned directory
// (the homes of system accounts: /bin/.ssh, /usr/sbin/.aws) is not covered, as without Landlock:
// covering it would grant each entry of /usr/bin one by one at every launch (4.3 ms a launch,
// not 2.4).
bool Guarded(const std::string& path, const LstatFn& look) {
  struct stat st {};
  if (const int err = look(path, &st); err == 0 || (err != ENOENT && err != ENOTDIR)) return true;
  for (std::string up = path; up.size() > 1;) {
    up.resize(std::max<size_t>(up.rfind('/'), 1));
    if (look(up, &st) == 0)
      return S_ISDIR(st.st_mode) && (st.st_uid != 0 || (st.st_mode & S_IWOTH));
  }
  return false;
}

int LstatNow(const std::string& path, struct stat* st) {
  return lstat(path.c_str(), st) == 0 ? 0 : errno;
}

}  // namespace

int LandlockAbi() {
  const long abi =
      syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : int(abi);
}

std::string ReadRuleset(const std::vector<std::string>& hide_in, const std::vector<int>& see,
                        int* fd, std::vector<std::string>* kept, const LstatFn& lstat_fn) {
  *fd = -1;
  kept->clear();
  const LstatFn look = lstat_fn ? lstat_fn : LstatFn(LstatNow);
  std::set<std::string> hide;
  for (const std::string& h : hide_in) {
    const std::string n = NormalizeAbsolute(h);
    // The sandbox's /proc and /dev are its own (EnterRuleset grants them whole): mounts hide there.
    if (!PathInside(n, "/proc") && !PathInside(n, "/dev") && Guarded(n, look)) hide.insert(n);
  }
  // A hidden path inside another is covered by it (and listing inside a hidden directory would
  // grant its other entries).
  for (auto it = hide.begin(); it != hide.end();) {
    bool covered = false;
    for (const std::string& h : hide) covered = covered || (h != *it && NormalizedInside(*it, h));
    it = covered ? hide.erase(it) : std::next(it);
  }
  // The directories on the way from / to each hidden path, each of which must be listed; a hidden
  // path beneath one that cannot be (EACCES: another user's 0711 home, hangard not root) is left
  // to the mounts, or every entry beside it would be unreadable to the drone.
  std::set<std::string> ancestors, unlistable;
  std::map<std::string, Fd> listed;  // each ancestor, opened once: checked, then listed
  for (auto it = hide.begin(); it != hide.end();) {
    std::vector<std::string> up;
    for (size_t slash = it->find('/'); slash != std::string::npos && slash < it->size();
         slash = it->find('/', slash + 1))
      if (std::string a = slash == 0 ? "/" : it->substr(0, slash); a != *it) up.push_back(a);
    bool listable = true;
    for (const std::string& a : up) {
      if (unlistable.count(a) || listed.count(a)) {
        listable = listable && !unlistable.count(a);
        continue;
      }
      Fd dfd(open(a.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (dfd.get() >= 0) {
        listed.emplace(a, std::move(dfd));
      } else if (errno == EACCES) {
        unlistable.insert(a);
        listable = false;
      } else if (errno != ENOENT && errno != ENOTDIR) {  // gone: nothing beneath it is granted
        return Failed("open " + a);
      }
    }
    if (listable) ancestors.insert(up.begin(), up.end());
    it = listable ? std::next(it) : hide.erase(it);
  }
  if (hide.empty()) return "";
  std::set<Inode> skip;  // hidden paths and ancestors, by inode
  for (const std::string& p : hide) {
    // stat(2): what the path names. Its lstat, already seen, says the same unless it is a link.
    struct stat st {};
    int err = look(p, &st);
    if ((err == 0 && S_ISLNK(st.st_mode)) || (err != 0 && err != ENOENT && err != ENOTDIR))
      err = stat(p.c_str(), &st) == 0 ? 0 : errno;
    if (err == 0) skip.insert({st.st_dev, st.st_ino});
  }
  for (const std::string& a : ancestors)  // (listed also holds those of paths left out)
    if (auto it = listed.find(a); it != listed.end())
      if (struct stat st{}; fstat(it->second.get(), &st) == 0) skip.insert({st.st_dev, st.st_ino});

  Ruleset rules;
  if (std::string why = rules.Create(); !why.empty()) return why;
  if (!hide.count("/"))
    if (std::string why = rules.AddPath("/", LANDLOCK_ACCESS_FS_READ_DIR | kRefer); !why.empty())
      return why;
  for (const std::string& a : ancestors)
    if (auto it = listed.find(a); it != listed.end())
      if (std::string why = rules.AddBeside(a, it->second.get(), hide, ancestors, skip);
          !why.empty())
        return why;
  for (int s : see)  // an ancestor among them is listed entry by entry; a hidden one stays hidden
    if (std::string why = rules.Add(s, "descriptor " + std::to_string(s), kRead, skip);
        !why.empty())
      return why;
  *fd = rules.Release();
  kept->assign(hide.begin(), hide.end());
  return "";
}

std::string EnterRuleset(int fd) {
  // The sandbox's own /proc and /dev (bwrap mounts them new: no inode the ruleset could name).
  Ruleset own;
  own.Adopt(fd);
  for (const char* d : {"/proc", "/dev"}) {
    std::string why = own.AddPath(d, kRead);
    if (!why.empty()) {
      own.Release();
      return why;
    }
  }
  own.Release();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return Failed("prctl(PR_SET_NO_NEW_PRIVS)");
  if (syscall(SYS_landlock_restrict_self, fd, 0) != 0) return Failed("landlock_restrict_self");
  return "";
}

}  // namespace hangar
