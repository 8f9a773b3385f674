#include "env/file_batches.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace hangar {

Status FsyncPath(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::Errno("open directory " + path, errno);
  int rc = fsync(fd);
  int e = errno;
  close(fd);
  if (rc != 0) return Status::Errno("fsync " + path, e);
  return Status::Ok();
}

Status WriteAll(int fd, std::string_view data, const std::string& path, bool sync) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Errno("write " + path, errno);
    }
    off += size_t(n);
  }
  if (sync && fsync(fd) != 0) return Status::Errno("fsync " + path, errno);
  return Status::Ok();
}

int OpenFreshTmp(const std::string& tmp, mode_t mode) {
  unlink(tmp.c_str());
  return open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
}

TmpFileBatch::TmpFileBatch(const std::vector<Env::DirFiles>& batch)
    : batch_(batch), result_(batch.size()), stopped_(batch.size(), 0) {
  for (size_t d = 0; d < batch.size(); ++d)
    for (const auto& [name, data] : batch[d].files) files_.push_back({d, name, data, {}, -1, {}});
}

void TmpFileBatch::Write(size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    File& f = files_[i];
    if (stopped_[f.dir]) continue;
    f.tmp = AtomicTmpPath(batch_[f.dir].dir, std::string(f.name));
    f.fd = OpenFreshTmp(f.tmp, 0644);
    if (f.fd < 0) f.s = Status::Errno("create " + f.tmp, errno);
    if (f.s.ok()) f.s = WriteAll(f.fd, f.data, f.tmp, false);
    if (!f.s.ok()) stopped_[f.dir] = 1;
  }
}

std::vector<Status> TmpFileBatch::Written() const {
  std::vector<Status> r(batch_.size());
  for (const File& f : files_)
    if (!f.s.ok() && r[f.dir].ok()) r[f.dir] = f.s;
  return r;
}

void TmpFileBatch::Sync(size_t i) {
  File& f = files_[i];
  if (f.fd >= 0 && f.s.ok() && fsync(f.fd) != 0) f.s = Status::Errno("fsync " + f.tmp, errno);
}

void TmpFileBatch::Place(size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    File& f = files_[i];
    if (f.fd < 0 && f.s.ok()) continue;  // not written: its directory had stopped
    if (f.fd >= 0) close(f.fd);
    f.fd = -1;
    const std::string dst = batch_[f.dir].dir + "/" + std::string(f.name);
    if (f.s.ok() && result_[f.dir].ok() && rename(f.tmp.c_str(), dst.c_str()) != 0)
      f.s = Status::Errno("rename " + f.tmp + " to " + dst, errno);
    if (f.s.ok() && result_[f.dir].ok()) continue;
    unlink(f.tmp.c_str());
    if (result_[f.dir].ok()) result_[f.dir] = f.s;
    stopped_[f.dir] = 1;
  }
}

KeyBatch::KeyBatch(const std::string& dir, const Env::Files& keys)
    : dir_(dir), keys_(keys), r_(keys.size()), fd_(keys.size(), -1), made_(keys.size(), 0) {}

void KeyBatch::Create(size_t begin, size_t end) {
  for (size_t i = begin; i < end && stop_.ok(); ++i) {
    const std::string path = dir_ + "/" + std::string(keys_[i].first);
    fd_[i] = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    r_[i] = fd_[i] < 0 ? Status::Errno("create " + path, errno)
                       : WriteAll(fd_[i], keys_[i].second, path, false);
    if (!r_[i].ok() && r_[i].code() != Code::kExists) stop_ = r_[i];
  }
}

bool KeyBatch::AnyCreated() const {
  return std::any_of(fd_.begin(), fd_.end(), [](int fd) { return fd >= 0; });
}

void KeyBatch::Sync(size_t i) {
  if (fd_[i] >= 0 && r_[i].ok() && fsync(fd_[i]) != 0)
    r_[i] = Status::Errno("fsync " + dir_ + "/" + std::string(keys_[i].first), errno);
}

void KeyBatch::Close(size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (fd_[i] < 0) continue;
    close(fd_[i]);
    fd_[i] = -1;
    made_[i] = r_[i].ok();
    if (!r_[i].ok() && stop_.ok()) stop_ = r_[i];  // a failed fsync
  }
}

bool KeyBatch::AnyMade() const { return std::find(made_.begin(), made_.end(), 1) != made_.end(); }

std::vector<Status> KeyBatch::Finish(const Status& dir_synced) {
  Status first = Status::Ok();
  for (Status& s : r_) {
    if (!first.ok())
      s = first;
    else if (!s.ok() && s.code() != Code::kExists)
      first = s;
  }
  if (!dir_synced.ok())
    for (size_t i = 0; i < r_.size(); ++i)
      if (made_[i] && r_[i].ok()) r_[i] = dir_synced;
  return std::move(r_);
}

}  // namespace hangar
