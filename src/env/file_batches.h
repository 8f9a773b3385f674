// RealEnv's batched writes, cut into their steps so that one wait can hold the fsyncs of several
// batches (Env::WriteTogether): a batch of files written through temporary names
// (WriteFilesDirsLater's) and a batch of O_EXCL keys (CreateExclusives'). Each step is called for
// a range of the batch; Sync for one index, from any thread, once the range holding it is written.
// And the POSIX helpers RealEnv's calls are made of.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "env/env.h"

namespace hangar {

// fsync(2) of the directory at PATH.
Status FsyncPath(const std::string& path);
// Every byte of DATA written to FD (PATH names it in errors), then with SYNC its fsync.
Status WriteAll(int fd, std::string_view data, const std::string& path, bool sync = true);
// A temporary file to write, opened for writing with MODE: whatever sits at TMP (a leftover, or a
// FIFO planted to block us) goes first, and O_EXCL then opens only a file we created. -1 and errno
// on failure.
int OpenFreshTmp(const std::string& tmp, mode_t mode);

// WriteFilesDirsLater's files: Write puts each at its temporary name (AtomicTmpPath), Sync fsyncs
// one's data, Place closes each and renames it into place in the batch's order. A directory's
// first error ends that directory: the files before it stay written, those after it are not
// written. Results() is the status of each directory.
class TmpFileBatch {
 public:
  explicit TmpFileBatch(const std::vector<Env::DirFiles>& batch);
  size_t size() const { return files_.size(); }
  void Write(size_t begin, size_t end);
  // After Write: the status of each directory so far (Ok where every file went through write(2)).
  std::vector<Status> Written() const;
  void Sync(size_t i);
  void Place(size_t begin, size_t end);
  std::vector<Status> Results() { return std::move(result_); }

 private:
  struct File {
    size_t dir;
    std::string_view name;
    std::string_view data;
    std::string tmp;
    int fd = -1;
    Status s;
  };
  const std::vector<Env::DirFiles>& batch_;
  std::vector<File> files_;
  std::vector<Status> result_;
  std::vector<char> stopped_;  // an error so far in that directory: write no more there
};

// CreateExclusives' keys into DIR: Create makes each (O_CREAT|O_EXCL) and writes it, until the
// first error other than Exists; Sync fsyncs one's data; Close closes each; Finish gives every
// key its status: from the first error on, every key says it (made or not, none is to be acted
// on), and DIR_SYNCED (the fsync of DIR, made after the keys were created) is the status of every
// key made otherwise fine. A key is never removed: a half-written one still means "do not do it
// again".
class KeyBatch {
 public:
  KeyBatch(const std::string& dir, const Env::Files& keys);
  size_t size() const { return keys_.size(); }
  bool stopped() const { return !stop_.ok(); }
  void Create(size_t begin, size_t end);
  bool AnyCreated() const;  // DIR needs its fsync
  bool Created(size_t i) const { return fd_[i] >= 0 && r_[i].ok(); }  // by Create, and written
  void Sync(size_t i);
  void Close(size_t begin, size_t end);
  bool AnyMade() const;  // created, written and fsynced
  std::vector<Status> Finish(const Status& dir_synced);

 private:
  const std::string& dir_;
  const Env::Files& keys_;
  std::vector<Status> r_;
  std::vector<int> fd_;
  std::vector<char> made_;
  Status stop_ = Status::Ok();
};

}  // namespace hangar
