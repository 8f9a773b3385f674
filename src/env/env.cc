#include "env/env.h"

#include <unistd.h>

#include <cerrno>

namespace hangar {

namespace {

// Env::Dir by joined paths: each read walks the directory's path again.
class PathDir : public Env::Dir {
 public:
  PathDir(Env* env, std::string path) : env_(env), path_(std::move(path)) {}
  Result<std::string> ReadFile(const std::string& rel, size_t max_bytes) override {
    return env_->ReadFile(path_ + "/" + rel, max_bytes);
  }

 private:
  Env* env_;
  std::string path_;
};

}  // namespace

std::string AtomicTmpPath(const std::string& dir, const std::string& name) {
  return dir + "/." + name + ".tmp." + std::to_string(getpid());
}

Result<std::string> Env::ReadFileOwned(const std::string& path, size_t max_bytes, int64_t* owner) {
  *owner = -1;
  return ReadFile(path, max_bytes);
}

Result<Env::FileInfo> Env::Lstat(const std::string& path) {
  return Status::Unavailable("no file information for " + path);
}

Result<uint64_t> Env::FreeBytes(const std::string& path) {
  return Status::Unavailable("no free space known for " + path);
}

Result<uint64_t> Env::FilesystemOf(const std::string& path) {
  return Status::Unavailable("no filesystem known for " + path);
}

Result<std::unique_ptr<Env::Lock>> Env::LockExclusive(const std::string& path, bool,
                                                      const std::string&) {
  return Status::Io("cannot lock " + path + ": this Env has no locks");
}

std::vector<Status> Env::KeysAfter(const std::vector<Status>& files, size_t n) {
  for (const Status& f : files)
    if (!f.ok()) return std::vector<Status>(n, Status::Io("not created: " + f.message()));
  return {};
}

std::vector<Env::DirFiles> Env::KeyedOf(const std::vector<Keyed>& keyed,
                                        const std::function<bool(size_t key)>& made,
                                        std::vector<size_t>* at) {
  std::vector<DirFiles> r;
  for (size_t k = 0; k < keyed.size(); ++k)
    if (made(keyed[k].key)) {
      r.push_back(keyed[k].files);
      at->push_back(k);
    }
  return r;
}

std::vector<Status> Env::KeyedDone(const std::vector<Keyed>& keyed, const std::vector<size_t>& at,
                                   const std::vector<Status>& written) {
  std::vector<Status> r;
  for (const Keyed& k : keyed)
    r.push_back(Status::NotFound("not written in " + k.files.dir + ": its key was not made"));
  for (size_t j = 0; j < at.size(); ++j) r[at[j]] = written[j];
  return r;
}

std::vector<Status> Env::AppendTogether(const std::vector<Appended>& parts) {
  std::vector<Status> r;
  r.reserve(parts.size());
  for (const Appended& p : parts) r.push_back(AppendDurable(p.path, p.data));
  return r;
}

Result<std::unique_ptr<Env::Dir>> Env::OpenDir(const std::string& path) {
  if (!Exists(path)) return Status::Errno("open directory " + path, ENOENT);
  return std::unique_ptr<Dir>(std::make_unique<PathDir>(this, path));
}

}  // namespace hangar
