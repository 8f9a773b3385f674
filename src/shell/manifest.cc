#include "shell/manifest.h"

#include <dirent.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "base/sha256.h"

namespace hangar {

namespace {

std::string Base64(std::string_view raw) {
  std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(raw.data()), int(raw.size()));
  out.resize(size_t(n));
  return out;
}

// Sets KEY to RAW, or to its repaired text plus KEY_b64 when RAW is not valid UTF-8.
void PutName(json::Object* o, const std::string& key, const std::string& raw) {
  if (json::ValidUtf8(raw)) {
    (*o)[key] = raw;
    return;
  }
  (*o)[key] = ReplaceInvalidUtf8(raw);
  (*o)[key + "_b64"] = Base64(raw);
}

Result<std::string> ReadLink(int dir, const std::string& name, size_t hint) {
  std::string buf(hint + 1, '\0');
  for (;;) {
    ssize_t n = readlinkat(dir, name.c_str(), buf.data(), buf.size());
    if (n < 0) return Status::Io(std::strerror(errno));
    if (size_t(n) < buf.size()) return buf.substr(0, size_t(n));
    buf.resize(buf.size() * 2);  // the target grew, or the size was not reported
  }
}

class Walk {
 public:
  Walk(int room, const ManifestLimits& limits) : room_(room), limits_(limits) {}

  // Everything below the room, in path byte order. A key ending in '/' stands for "read this
  // directory"; it sorts after the directory's own entry and before any path below it, so the
  // entries come out in byte order of their full paths.
  void Run() {
    Expand("");
    while (!pending_.empty()) {
      std::string key = std::move(pending_.extract(pending_.begin()).value());
      if (key.back() == '/') {
        key.pop_back();
        Expand(key);
      } else {
        Visit(key);
      }
    }
  }

  void Fill(json::Object* out) {
    (*out)["entries"] = entries_;
    (*out)["listed"] = int64_t(manifest_.size());
    (*out)["omitted_entries"] = omitted_entries_;
    (*out)["omitted_bytes"] = omitted_bytes_;
    (*out)["unhashed_files"] = unhashed_files_;
    (*out)["unhashed_bytes"] = unhashed_bytes_;
    (*out)["bytes"] = bytes_;
    (*out)["errors"] = std::move(errors_);
    (*out)["manifest"] = std::move(manifest_);
  }

 private:
  static std::string Parent(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
  }

  void Error(const std::string& verb, const std::string& path, const std::string& reason) {
    errors_.push_back("cannot " + verb + " " + ReplaceInvalidUtf8(path) + ": " + reason);
  }

  // An fd for directory REL, reusing the one last opened when REL is it or lies below it.
  int DirFd(const std::string& rel) {
    if (rel.empty()) return room_;
    if (cur_.get() >= 0 && rel == cur_path_) return cur_.get();
    Result<UniqueFd> fd = Status::Ok();
    if (cur_.get() >= 0 && rel.size() > cur_path_.size() && rel.starts_with(cur_path_ + "/")) {
      fd =
          OpenDirBeneath(cur_.get(), std::string_view(rel).substr(cur_path_.size() + 1), cur_path_);
    } else {
      fd = OpenDirBeneath(room_, rel);
    }
    cur_.Reset();
    if (!fd.ok()) {
      errors_.push_back(fd.status().message());
      return -1;
    }
    cur_ = std::move(fd).value();
    cur_path_ = rel;
    return cur_.get();
  }

  void Expand(const std::string& rel) {
    int fd = DirFd(rel);
    if (fd < 0) return;
    // fdopendir takes its own fd, so the walk's fd stays usable for the *at calls that follow.
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    DIR* d = own < 0 ? nullptr : fdopendir(own);
    if (!d) {
      if (own >= 0) close(own);
      return Error("read dir", rel, std::strerror(errno));
    }
    const std::string prefix = rel.empty() ? "" : rel + "/";
    for (;;) {
      errno = 0;
      struct dirent* e = readdir(d);
      if (!e) {
        if (errno != 0) Error("read dir", rel, std::strerror(errno));
        break;
      }
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      pending_.insert(prefix + e->d_name);
    }
    closedir(d);
  }

  void Visit(const std::string& path) {
    const std::string parent = Parent(path);
    const std::string name = parent.empty() ? path : path.substr(parent.size() + 1);
    int dir = DirFd(parent);
    if (dir < 0) return;
    struct stat st {};
    if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return Error("stat", path, std::strerror(errno));
    }
    entries_++;
    const bool regular = S_ISREG(st.st_mode);
    if (regular) bytes_ += st.st_size;
    if (S_ISDIR(st.st_mode)) pending_.insert(path + "/");
    if (int64_t(manifest_.size()) >= limits_.max_entries) {
      omitted_entries_++;
      if (regular) omitted_bytes_ += st.st_size;
      return;
    }
    json::Object entry;
    PutName(&entry, "path", path);
    entry["type"] = EntryType(st.st_mode);
    entry["size"] = int64_t(st.st_size);
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    entry["mode"] = mode;
    if (regular) entry["sha256"] = Hash(dir, name, path, st);
    if (S_ISLNK(st.st_mode)) {
      Result<std::string> target = ReadLink(dir, name, size_t(st.st_size));
      if (target.ok()) {
        PutName(&entry, "target", *target);
      } else {
        entry["target"] = nullptr;
        Error("read link", path, target.status().message());
      }
    }
    manifest_.emplace_back(std::move(entry));
  }

  // The file's sha256, or null when the budget is spent or the file cannot be read as it was seen.
  json::Value Hash(int dir, const std::string& name, const std::string& path,
                   const struct stat& seen) {
    if (!budget_spent_ && seen.st_size > limits_.max_hash_bytes - hashed_) budget_spent_ = true;
    if (!budget_spent_) {
      Result<FileHash> h = HashAt(dir, name, seen);
      if (h.ok()) {
        hashed_ += h->size;
        return h->sha256;
      }
      Error("hash", path, h.status().message());
    }
    unhashed_files_++;
    unhashed_bytes_ += seen.st_size;
    return nullptr;
  }

  static Result<FileHash> HashAt(int dir, const std::string& name, const struct stat& seen) {
    int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return Status::Io(std::strerror(errno));
    UniqueFd file(fd);
    struct stat st {};
    if (fstat(fd, &st) != 0) return Status::Io(std::strerror(errno));
    if (st.st_dev != seen.st_dev || st.st_ino != seen.st_ino || !S_ISREG(st.st_mode)) {
      return Status::Invalid("replaced during the walk");
    }
    Result<FileHash> h = HashFd(fd, seen.st_size);
    if (h.ok() && h->size == seen.st_size) return h;
    if (!h.ok() && h.status().code() == Code::kIo) return h.status();
    return Status::Invalid("changed while read");
  }

  const int room_;
  const ManifestLimits limits_;
  std::set<std::string> pending_;
  UniqueFd cur_;  // the directory last opened below the room, named cur_path_
  std::string cur_path_;

  int64_t entries_ = 0, omitted_entries_ = 0, omitted_bytes_ = 0;
  int64_t unhashed_files_ = 0, unhashed_bytes_ = 0, bytes_ = 0, hashed_ = 0;
  bool budget_spent_ = false;
  json::Array errors_, manifest_;
};

}  // namespace

json::Value RoomManifest(const std::string& room, const ManifestLimits& limits) {
  json::Object out;
  out["path"] = ReplaceInvalidUtf8(room);
  Result<UniqueFd> fd = OpenRoom(room);
  if (!fd.ok()) {
    Walk(-1, limits).Fill(&out);
    out["errors"] = json::Array{fd.status().message()};
    return out;
  }
  Walk walk(fd->get(), limits);
  walk.Run();
  walk.Fill(&out);
  return out;
}

}  // namespace hangar
