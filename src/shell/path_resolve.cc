#include "shell/path_resolve.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "kernel/mission.h"
#include "kernel/path_norm.h"

namespace hangar {

namespace {

constexpr int kMaxLinks = 40;  // the kernel's MAXSYMLINKS; one more is ELOOP

// Pushes the components of `path` onto the stack `todo`, so that the first one is on top.
void PushComponents(std::string_view path, std::vector<std::string>* todo) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > pos) parts.emplace_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
  todo->insert(todo->end(), parts.rbegin(), parts.rend());
}

// "/a/b" for {"a", "b"}; "" for none.
std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out;
}

// Sets *target to the link at `disk`; returns 0 or the errno of readlink(2). The buffer grows
// past `size_hint` (st_size, which is 0 for some /proc links) until the target fits.
int ReadLinkNow(const std::string& disk, size_t size_hint, std::string* target) {
  std::string buf(size_hint < 64 ? 64 : size_hint + 1, '\0');
  for (;;) {
    const ssize_t n = readlink(disk.c_str(), buf.data(), buf.size());
    if (n < 0) return errno;
    if (static_cast<size_t>(n) < buf.size()) {
      buf.resize(n);
      *target = std::move(buf);
      return 0;
    }
    buf.resize(buf.size() * 2);
  }
}

int LstatNow(const std::string& disk, struct stat* st) {
  return lstat(disk.c_str(), st) == 0 ? 0 : errno;
}

bool StopsWalk(int err) {
  return err == ENOENT || err == ENOTDIR;
}

}  // namespace

int DiskLook::Lstat(const std::string& path, struct stat* st) {
  auto [it, fresh] = stats_.try_emplace(path);
  if (fresh) {
    ++calls_;
    it->second.err = LstatNow(path, &it->second.st);
  }
  if (it->second.err == 0) *st = it->second.st;
  return it->second.err;
}

int DiskLook::ReadLink(const std::string& path, size_t size_hint, std::string* target) {
  auto [it, fresh] = links_.try_emplace(path);
  if (fresh) {
    ++calls_;
    it->second.first = ReadLinkNow(path, size_hint, &it->second.second);
  }
  if (it->second.first == 0) *target = it->second.second;
  return it->second.first;
}

Result<std::string> ResolveExistingPath(std::string_view path, const std::string& root) {
  return ResolveExistingPath(path, root, nullptr);
}

Result<std::string> ResolveExistingPath(std::string_view path, const std::string& root,
                                        DiskLook* look) {
  if (path.find('\0') != std::string_view::npos) {
    return Status::Invalid("a path may not hold a NUL byte");
  }
  if (!path.starts_with('/')) return Status::Invalid("not an absolute path");
  const std::string what = "resolve " + std::string(path);
  std::vector<std::string> todo;  // components still to walk, the next one last
  PushComponents(path, &todo);
  std::vector<std::string> done;  // the real components reached so far; none is a link
  bool at_dir = true;             // Join(done) is a directory (the root is)
  int links = 0;
  while (!todo.empty()) {
    std::string name = std::move(todo.back());
    todo.pop_back();
    if (!at_dir) {  // even "." and ".." need a directory: ENOTDIR
      todo.push_back(std::move(name));
      break;
    }
    if (name == ".") continue;
    if (name == "..") {
      if (!done.empty()) done.pop_back();  // a real directory's parent, and never above root
      continue;
    }
    const std::string disk = root + Join(done) + "/" + name;
    struct stat st {};
    if (const int err = look ? look->Lstat(disk, &st) : LstatNow(disk, &st); err != 0) {
      if (!StopsWalk(err)) return Status::Errno(what + ": lstat " + disk, err);
      todo.push_back(std::move(name));
      break;
    }
    if (!S_ISLNK(st.st_mode)) {
      done.push_back(std::move(name));
      at_dir = S_ISDIR(st.st_mode);
      continue;
    }
    if (++links > kMaxLinks) return Status::Errno(what, ELOOP);
    std::string target;
    if (const int err = look ? look->ReadLink(disk, st.st_size, &target)
                             : ReadLinkNow(disk, st.st_size, &target);
        err != 0) {
      if (!StopsWalk(err)) return Status::Errno(what + ": readlink " + disk, err);
      todo.push_back(std::move(name));  // the link went away meanwhile: walk no further
      break;
    }
    if (target.starts_with('/')) done.clear();
    PushComponents(target, &todo);
  }
  std::string rest;
  bool climbs = false;
  for (auto it = todo.rbegin(); it != todo.rend(); ++it) {
    rest += "/" + *it;
    climbs = climbs || *it == "..";
  }
  // "/srv/missing/../work/link/x": a ".." after the missing part climbs back into what exists,
  // where a link may wait. The lexical result has no ".." left: walk it once more.
  if (climbs) return ResolveExistingPath(NormalizeAbsolute(Join(done) + rest), root, look);
  return NormalizeAbsolute(Join(done) + rest);
}

ResolvedWrites ResolveWrites(const Mission& m, const std::string& home, const std::string& root) {
  ResolvedWrites out;
  auto resolve = [&](const std::string& w) {
    Result<std::string> full = ExpandHome(w, home);
    Result<std::string> real = full.ok() ? ResolveExistingPath(*full, root) : full;
    out[w] = real.ok() ? ResolvedPath{*real, ""} : ResolvedPath{"", real.status().message()};
  };
  for (const std::string& w : m.writes) resolve(w);
  if (m.notify_dir) resolve(*m.notify_dir);
  return out;
}

}  // namespace hangar
