#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>

#include "base/wait_pool.h"
#include "env/env.h"
#include "env/file_batches.h"
#include "env/nofollow.h"
#include "env/remove_tree.h"

namespace hangar {

namespace {

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// How every file is opened for reading: never through a final symlink, never blocking on a FIFO.
constexpr int kReadFlags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;

// Env::ReadFile of the file open on fd (or of the open(2) that failed: fd < 0 and errno), closing
// fd. The file is named dir/rel in errors (rel alone when dir is empty). *owner, when given: the
// file's uid, from the same fstat.
Result<std::string> ReadOpened(int fd, std::string_view dir, const std::string& rel,
                               size_t max_bytes, int64_t* owner = nullptr) {
  auto path = [&] { return dir.empty() ? rel : std::string(dir) + "/" + rel; };
  if (fd < 0) {
    int e = errno;
    if (e == ELOOP)
      return Status::Invalid("cannot read " + path() + ": a symbolic link, not a regular file");
    return Status::Errno("read " + path(), e);
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return Status::Errno("stat " + path(), e);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a device";
    return Status::Invalid("cannot read " + path() + ": " + what + ", not a regular file");
  }
  if (owner) *owner = int64_t(st.st_uid);
  const size_t size = size_t(st.st_size);
  if (size > max_bytes) {
    close(fd);
    return Status::Invalid("cannot read " + path() + ": larger than " + std::to_string(max_bytes) +
                           " bytes (" + std::to_string(size) + " bytes)");
  }
  // Read straight into the result, asking one byte more than fstat said: the stated size back in a
  // short read is the end of a regular file, without a further read(2) that returns 0 (ls reads a
  // file of every mission). Anything else (a file that grew or shrank meanwhile, a short read
  // before the stated size, a size of 0 as some pseudo-files give) reads on until read(2) says 0.
  std::string out;
  size_t got = 0;
  size_t want = size + 1;
  for (;;) {
    if (out.size() < got + want) out.resize(got + want);
    ssize_t n = read(fd, out.data() + got, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return Status::Errno("read " + path(), e);
    }
    got += size_t(n);
    if (got > max_bytes) {  // grew while we read
      close(fd);
      return Status::Invalid("cannot read " + path() + ": larger than " +
                             std::to_string(max_bytes) + " bytes");
    }
    if (n == 0 || (got == size && size_t(n) < want)) break;
    want = 65536;
  }
  close(fd);
  out.resize(got);
  return out;
}

// Env::Dir on an O_DIRECTORY descriptor: openat(2) below it.
class RealDir : public Env::Dir {
 public:
  RealDir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~RealDir() override { close(fd_); }
  RealDir(const RealDir&) = delete;
  RealDir& operator=(const RealDir&) = delete;

  Result<std::string> ReadFile(const std::string& rel, size_t max_bytes) override {
    return ReadOpened(openat(fd_, rel.c_str(), kReadFlags), path_, rel, max_bytes);
  }

 private:
  int fd_;
  std::string path_;
};

// A flock held by its descriptor: closing it lets go.
class HeldLock : public Env::Lock {
 public:
  explicit HeldLock(UniqueFd fd) : fd_(std::move(fd)) {}

 private:
  UniqueFd fd_;
};

class Real : public Env {
  // A batch's fsyncs wait at once on this many threads (measured in docs/BENCHMARKS.md: more wait
  // no shorter), and at most this many of its files are open at once.
  static constexpr size_t kSyncsAtOnce = 8;
  static constexpr size_t kFilesAtOnce = 64;

  // PATH opened for appending (O_APPEND, never following a symbolic link), created with mode 0644
  // when absent (*created says so).
  static Result<UniqueFd> OpenForAppend(const std::string& path, bool* created) {
    const int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW;
    int fd = open(path.c_str(), flags);
    if (fd < 0 && errno == ENOENT) {
      fd = open(path.c_str(), flags | O_CREAT | O_EXCL, 0644);
      *created = fd >= 0;
    }
    if (fd < 0) return Status::Errno("open " + path + " for appending", errno);
    return UniqueFd(fd);
  }

  // fn(i) for each i of [0, n) at once, on the caller's thread and the threads kept for it
  // (base/wait_pool.h). The pool is never destroyed: its threads stay parked until the process
  // ends, and another thread may still write through RealEnv while exit() destroys statics.
  static void AtOnce(size_t n, const std::function<void(size_t)>& fn) { Pool()->Each(n, fn); }
  static WaitPool* Pool() {
    static WaitPool* const pool = new WaitPool(kSyncsAtOnce - 1);
    return pool;
  }

 public:
  TimeMs Now() override {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }

  void Alongside(const std::function<void()>& first, const std::function<void()>& second) override {
    Pool()->Beside(first, second);
  }

  Status WriteFileAtomic(const std::string& dir, const std::string& name,
                         std::string_view data) override {
    return WriteViaTmp(dir, name, data, true, std::nullopt, true);
  }

  Status WriteFileVisible(const std::string& dir, const std::string& name,
                          std::string_view data) override {
    return WriteViaTmp(dir, name, data, false, std::nullopt, true);
  }

  Status WriteFilesAtomic(const std::string& dir, const Files& files) override {
    if (files.empty()) return Status::Ok();
    if (Status s = WriteFilesDirLater(dir, files); !s.ok()) return s;
    return FsyncPath(dir);
  }

  Status WriteFilesDirLater(const std::string& dir, const Files& files) override {
    if (files.empty()) return Status::Ok();
    return WriteFilesDirsLater({{dir, files}}).front();
  }

  // Each file as WriteViaTmp writes it (a temporary name, its data fsynced, renamed into place),
  // but in parts of the batch: every file of a part written, then their data fsynced at once
  // (AtOnce), then each renamed into place in the batch's order. A directory's first
  // error ends that directory: the files before it stay written, those after it are not written.
  std::vector<Status> WriteFilesDirsLater(const std::vector<DirFiles>& batch) override {
    TmpFileBatch files(batch);
    for (size_t begin = 0; begin < files.size(); begin += kFilesAtOnce) {
      const size_t end = std::min(files.size(), begin + kFilesAtOnce);
      files.Write(begin, end);
      AtOnce(end - begin, [&](size_t k) { files.Sync(begin + k); });
      files.Place(begin, end);
    }
    return files.Results();
  }

  // Behind WriteFileAtomic, WriteFileVisible and CreateFileAtomic: data written to the temporary
  // name, then renamed onto dir/name (replacing what is there, or Exists when REPLACE is false),
  // and with SYNC the file and dir fsynced. MODE, when given, is the file's exactly (whatever the
  // umask); else 0644 less the umask.
  Status WriteViaTmp(const std::string& dir, const std::string& name, std::string_view data,
                     bool sync, std::optional<mode_t> mode, bool replace) {
    const std::string tmp = AtomicTmpPath(dir, name);
    const std::string dst = dir + "/" + name;
    int fd = OpenFreshTmp(tmp, mode.value_or(0644));
    if (fd < 0) return Status::Errno("create " + tmp, errno);
    Status s =
        !mode || fchmod(fd, *mode) == 0 ? Status::Ok() : Status::Errno("chmod " + tmp, errno);
    if (s.ok()) s = WriteAll(fd, data, tmp, sync);
    close(fd);
    if (s.ok() &&
        (replace ? rename(tmp.c_str(), dst.c_str())
                 : renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, dst.c_str(), RENAME_NOREPLACE)) != 0)
      s = errno == EEXIST && !replace ? Status::Exists("cannot create " + dst + ": it exists")
                                      : Status::Errno("rename " + tmp + " to " + dst, errno);
    if (!s.ok()) {
      unlink(tmp.c_str());
      return s;
    }
    return sync ? FsyncPath(dir) : Status::Ok();
  }

  Status CreateFileAtomic(const std::string& dir, const std::string& name, std::string_view data,
                          mode_t mode) override {
    return WriteViaTmp(dir, name, data, true, mode, false);
  }

  Status CreateExclusive(const std::string& dir, const std::string& name,
                         std::string_view data) override {
    const std::string path = dir + "/" + name;
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return Status::Errno("create " + path, errno);
    Status s = WriteAll(fd, data, path);
    close(fd);
    if (!s.ok()) return s;  // the key stays: a half-written key still means "do not do it again"
    return FsyncPath(dir);
  }

  // Every key created (O_EXCL) and written in order, in parts of kFilesAtOnce (the descriptors
  // open at once): a part's data fsynced at once, then the next part; DIR fsynced once, after the
  // last. The first error other than Exists stops the batch (env.h); no key is ever removed.
  std::vector<Status> CreateExclusives(const std::string& dir, const Files& files) override {
    KeyBatch keys(dir, files);
    for (size_t begin = 0; begin < keys.size() && !keys.stopped(); begin += kFilesAtOnce) {
      const size_t end = std::min(keys.size(), begin + kFilesAtOnce);
      keys.Create(begin, end);
      AtOnce(end - begin, [&](size_t k) { keys.Sync(begin + k); });
      keys.Close(begin, end);
    }
    return keys.Finish(keys.AnyMade() ? FsyncPath(dir) : Status::Ok());
  }

  // The files written and (when every file's write went through) the keys created, then the keyed
  // files of the keys created, then one wait for every fsync: the files', keys' and keyed files'
  // data, KEY_DIR (the keys are created before it starts) and DIRS. More than kFilesAtOnce files,
  // keys and keyed files: Env's calls in turn, each in its parts.
  TogetherDone WriteTogether(const Together& t) override {
    TmpFileBatch files(t.files);
    KeyBatch keys(t.key_dir, t.keys);
    size_t nkeyed = 0;
    for (const Keyed& k : t.keyed) nkeyed += k.files.files.size();
    if (files.size() + keys.size() + nkeyed > kFilesAtOnce) return Env::WriteTogether(t);
    const size_t nf = files.size(), nk = keys.size(), nd = t.dirs.size();
    files.Write(0, nf);
    std::vector<Status> refused = KeysAfter(files.Written(), nk);
    if (refused.empty()) keys.Create(0, nk);
    // The keyed files of the keys just created, written now, their data fsynced in the same wait.
    std::vector<size_t> keyed_at;
    const std::vector<DirFiles> keyed_dirs = KeyedOf(
        t.keyed, [&](size_t key) { return key < nk && keys.Created(key); }, &keyed_at);
    TmpFileBatch keyed(keyed_dirs);
    const size_t nx = keyed.size();
    keyed.Write(0, nx);
    const bool key_dir = keys.AnyCreated();
    std::vector<Status> dirs(nd);
    Status key_dir_synced = Status::Ok();
    const size_t kd = key_dir ? 1 : 0;  // keys/ and the keys first: the launches wait on them
    AtOnce(kd + nk + nf + nx + nd, [&](size_t j) {
      if (j < kd) {
        key_dir_synced = FsyncPath(t.key_dir);
      } else if ((j -= kd) < nk) {
        keys.Sync(j);
      } else if ((j -= nk) < nf) {
        files.Sync(j);
      } else if ((j -= nf) < nx) {
        keyed.Sync(j);
      } else {
        dirs[j - nx] = FsyncPath(t.dirs[j - nx]);
      }
    });
    files.Place(0, nf);
    keyed.Place(0, nx);
    keys.Close(0, nk);
    TogetherDone r;
    for (const Status& s : dirs)
      if (!s.ok()) {
        r.dirs = s;
        break;
      }
    r.files = files.Results();
    r.keys = !refused.empty() ? std::move(refused)
             : nk             ? keys.Finish(key_dir_synced)
                              : std::vector<Status>{};
    r.keyed = KeyedDone(t.keyed, keyed_at, keyed.Results());
    return r;
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (Status s = RenameLater(from, to); !s.ok()) return s;
    Status s = FsyncPath(Parent(to));
    if (!s.ok()) return s;
    if (Parent(from) != Parent(to)) return FsyncPath(Parent(from));
    return Status::Ok();
  }

  Status RenameNoReplace(const std::string& from, const std::string& to) override {
    if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0)
      return Status::Errno("rename " + from + " to " + to, errno);
    Status s = FsyncPath(Parent(to));
    if (!s.ok()) return s;
    if (Parent(from) != Parent(to)) return FsyncPath(Parent(from));
    return Status::Ok();
  }

  Status RenameLater(const std::string& from, const std::string& to) override {
    if (rename(from.c_str(), to.c_str()) != 0)
      return Status::Errno("rename " + from + " to " + to, errno);
    return Status::Ok();
  }

  Status SyncDirs(const std::vector<std::string>& dirs, const std::string& then) override {
    if (dirs.empty()) return Status::Ok();
    std::vector<Status> each(dirs.size());
    AtOnce(dirs.size(), [&](size_t i) { each[i] = FsyncPath(dirs[i]); });
    for (const Status& s : each)
      if (!s.ok()) return s;
    return then.empty() ? Status::Ok() : FsyncPath(then);
  }

  Status SyncPaths(const std::vector<std::string>& paths) override {
    std::vector<Status> each(paths.size());
    AtOnce(paths.size(), [&](size_t i) {
      const int fd = open(paths[i].c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) {
        each[i] = Status::Errno("open " + paths[i], errno);
        return;
      }
      if (fsync(fd) != 0) each[i] = Status::Errno("fsync " + paths[i], errno);
      close(fd);
    });
    for (const Status& s : each)
      if (!s.ok()) return s;
    return Status::Ok();
  }

  Status MakeDir(const std::string& path) override {
    if (Status s = MakeDirVisible(path); !s.ok()) return s;
    return FsyncPath(Parent(path));
  }

  Status MakeDirVisible(const std::string& path) override {
    if (mkdir(path.c_str(), 0755) != 0) return Status::Errno("create directory " + path, errno);
    return Status::Ok();
  }

  Status Remove(const std::string& path) override {
    if (unlink(path.c_str()) != 0) {
      if (errno != EISDIR || rmdir(path.c_str()) != 0)
        return Status::Errno("remove " + path, errno);
    }
    return FsyncPath(Parent(path));
  }

  Status RemoveTree(const std::string& path) override {
    if (Status s = RemoveTreeNoFollow(path); !s.ok()) return s;
    return FsyncPath(Parent(path));
  }

  Status AppendDurable(const std::string& path, std::string_view data) override {
    return AppendTogether({{path, data}}).front();  // a file it created: its directory at once
  }

  std::vector<Status> AppendTogether(const std::vector<Appended>& parts) override {
    const size_t n = parts.size();
    if (n > kSyncsAtOnce) return Env::AppendTogether(parts);
    std::vector<Status> r(n);
    std::vector<UniqueFd> fds(n);
    std::vector<size_t> syncs;  // part i's file; n + i: its directory, when it was created
    for (size_t i = n; i-- > 0;) {  // the last part written first (env.h)
      bool created = false;
      Result<UniqueFd> fd = OpenForAppend(parts[i].path, &created);
      if (!fd.ok()) {
        r[i] = fd.status();
        continue;
      }
      fds[i] = std::move(fd).value();
      r[i] = WriteAll(fds[i].get(), parts[i].data, parts[i].path, false);
      if (!r[i].ok()) continue;
      syncs.push_back(i);
      if (created) syncs.push_back(n + i);
    }
    std::vector<Status> synced(syncs.size());
    AtOnce(syncs.size(), [&](size_t j) {
      const size_t i = syncs[j] % n;
      synced[j] = syncs[j] < n
                      ? (fsync(fds[i].get()) == 0 ? Status::Ok()
                                                  : Status::Errno("fsync " + parts[i].path, errno))
                      : FsyncPath(Parent(parts[i].path));
    });
    for (size_t j = 0; j < syncs.size(); ++j)
      if (!synced[j].ok() && r[syncs[j] % n].ok()) r[syncs[j] % n] = synced[j];
    return r;
  }

  Status Truncate(const std::string& path, uint64_t size) override {
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return Status::Errno("open " + path, errno);
    Status s;
    if (ftruncate(fd, off_t(size)) != 0)
      s = Status::Errno("truncate " + path, errno);
    else if (fsync(fd) != 0)
      s = Status::Errno("fsync " + path, errno);
    close(fd);
    return s;
  }

  Status WriteMaildir(const std::string& dir, const std::string& name, std::string_view data,
                      int64_t owner = -1) override {
    if (!dir.starts_with('/'))
      return Status::Invalid("cannot open dir " + dir + ": not an absolute path");
    if (("/" + dir + "/").find("/../") != std::string::npos)
      return Status::Invalid("cannot open dir " + dir + ": a \"..\" in it, not followed");
    UniqueFd root(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (root.get() < 0) return Status::Errno("open dir /", errno);
    Result<UniqueFd> box = OpenDirBeneath(root.get(), std::string_view(dir).substr(1), "/");
    if (!box.ok()) return box.status();
    Result<UniqueFd> tmp = OpenDirBeneath(box->get(), "tmp", dir);
    if (!tmp.ok()) return tmp.status();
    Result<UniqueFd> fresh = OpenDirBeneath(box->get(), "new", dir);
    if (!fresh.ok()) return fresh.status();
    if (owner > 0)
      for (const auto& [fd, shown] :
           {std::pair{box->get(), dir}, std::pair{tmp->get(), dir + "/tmp"},
            std::pair{fresh->get(), dir + "/new"}}) {
        struct stat st {};
        if (fstat(fd, &st) != 0) return Status::Errno("stat " + shown, errno);
        if (int64_t(st.st_uid) != owner)
          return Status::Invalid(shown + " is owned by uid " + std::to_string(st.st_uid) +
                                 ", not by uid " + std::to_string(owner) +
                                 ", who dropped the mission: not delivered");
      }
    const std::string from = dir + "/tmp/" + name, to = dir + "/new/" + name;
    unlinkat(tmp->get(), name.c_str(), 0);  // a leftover of ours, or anything planted: not followed
    UniqueFd fd(openat(tmp->get(), name.c_str(),
                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (fd.get() < 0) return Status::Errno("create " + from, errno);
    Status s = WriteAll(fd.get(), data, from);
    fd.Reset();
    if (s.ok() && renameat(tmp->get(), name.c_str(), fresh->get(), name.c_str()) != 0)
      s = Status::Errno("rename " + from + " to " + to, errno);
    if (!s.ok()) {
      unlinkat(tmp->get(), name.c_str(), 0);
      return s;
    }
    if (fsync(fresh->get()) != 0) return Status::Errno("fsync " + dir + "/new", errno);
    return Status::Ok();
  }

  Result<uint64_t> FileSize(const std::string& path) override {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return Status::NotFound("cannot stat " + path + ": no such file");
      return Status::Errno("stat " + path, errno);
    }
    if (!S_ISREG(st.st_mode))
      return Status::Invalid("cannot read " + path + ": not a regular file");
    return uint64_t(st.st_size);
  }

  Result<std::string> ReadAt(const std::string& path, uint64_t offset, size_t n) override {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return Status::Errno("read " + path, errno);
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      close(fd);
      return Status::Invalid("cannot read " + path + ": not a regular file");
    }
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
      ssize_t r = pread(fd, out.data() + got, n - got, off_t(offset + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        int e = errno;
        close(fd);
        return Status::Errno("read " + path, e);
      }
      if (r == 0) break;
      got += size_t(r);
    }
    close(fd);
    out.resize(got);
    return out;
  }

  Result<std::string> ReadFile(const std::string& path, size_t max_bytes) override {
    return ReadOpened(open(path.c_str(), kReadFlags), "", path, max_bytes);
  }

  Result<std::string> ReadFileOwned(const std::string& path, size_t max_bytes,
                                    int64_t* owner) override {
    *owner = -1;
    return ReadOpened(open(path.c_str(), kReadFlags), "", path, max_bytes, owner);
  }

  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    Result<std::vector<DirEntry>> listed = Entries(path, false);
    if (!listed.ok()) return listed.status();
    std::vector<DirEntry> entries = std::move(listed).value();
    std::vector<std::string> names;
    names.reserve(entries.size());
    for (DirEntry& e : entries) names.push_back(std::move(e.name));
    return names;
  }

  Result<std::vector<DirEntry>> ListEntries(const std::string& path) override {
    return Entries(path, true);
  }

  // The names in path, sorted, without "." and ".."; with typed, whether each is a directory
  // (d_type, or lstat where the filesystem does not fill it in).
  static Result<std::vector<DirEntry>> Entries(const std::string& path, bool typed) {
    DIR* d = opendir(path.c_str());
    if (!d) return Status::Errno("list " + path, errno);
    std::vector<DirEntry> entries;
    while (struct dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      bool dir = e->d_type == DT_DIR;
      if (typed && e->d_type == DT_UNKNOWN) {
        struct stat st {};
        dir = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
      }
      entries.push_back({std::move(n), dir});
    }
    closedir(d);
    std::sort(entries.begin(), entries.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    return entries;
  }

  Result<std::unique_ptr<Dir>> OpenDir(const std::string& path) override {
    int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Status::Errno("open directory " + path, errno);
    return std::unique_ptr<Dir>(std::make_unique<RealDir>(fd, path));
  }

  bool Exists(const std::string& path) override {
    struct stat st {};
    return lstat(path.c_str(), &st) == 0;
  }

  Result<FileInfo> Lstat(const std::string& path) override {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) return Status::Errno("lstat " + path, errno);
    return FileInfo{S_ISREG(st.st_mode), uint64_t(st.st_nlink),
                    TimeMs(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000};
  }

  Result<uint64_t> FilesystemOf(const std::string& path) override {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return Status::Errno("stat " + path, errno);
    return uint64_t(st.st_dev);
  }

  Result<std::unique_ptr<Lock>> LockExclusive(const std::string& path, bool directory,
                                              const std::string& what) override {
    const std::string& named = what.empty() ? path : what;
    UniqueFd fd(directory ? open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                          : open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (fd.get() < 0) return Status::Errno("open " + named, errno);
    if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) return Status::Unavailable(named + " is locked by another process");
      return Status::Errno("lock " + named, errno);
    }
    return std::unique_ptr<Lock>(std::make_unique<HeldLock>(std::move(fd)));
  }

  Result<uint64_t> FreeBytes(const std::string& path) override {
    struct statvfs v {};
    if (statvfs(path.c_str(), &v) != 0) return Status::Errno("statvfs " + path, errno);
    return uint64_t(v.f_bavail) * uint64_t(v.f_frsize);
  }
};

}  // namespace

Env* RealEnv() {
  static Real real;
  return &real;
}

}  // namespace hangar
