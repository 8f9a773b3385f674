// Env: the one seam between hangar's shell and the operating system's filesystem and clock.
//
// Every mutating spool operation goes through an Env, so tests can inject faults or crashes at the
// Nth call (a fault-injecting wrapper wraps RealEnv). Each mutating call is durable when it returns
// Ok: data is fsynced and so is every directory whose entries changed; WriteFilesDirLater and
// the two ...Visible calls alone are not (see each). Methods may be called from any thread;
// RealEnv keeps no state. Paths are absolute or relative to the process cwd.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/timefmt.h"

namespace hangar {

class Env {
 public:
  virtual ~Env() = default;

  virtual TimeMs Now() = 0;  // wall clock, milliseconds since the epoch

  // dir/name appears complete or not at all: written to dir/.name.tmp.PID, fsynced, renamed, and
  // dir fsynced. Replaces an existing file.
  virtual Status WriteFileAtomic(const std::string& dir, const std::string& name,
                                 std::string_view data) = 0;
  // The same without the fsyncs: dir/name appears complete or not at all, but a power loss may
  // take it back. Only for what a power loss makes worthless: records of live processes (a
  // supervisor's shim.json), a launch's prompt for the drone it starts; the default is the
  // durable write.
  virtual Status WriteFileVisible(const std::string& dir, const std::string& name,
                                  std::string_view data) {
    return WriteFileAtomic(dir, name, data);
  }
  // Several files into one directory, in the order given, each as WriteFileAtomic writes it
  // (complete or not at all, replacing what is there, its data fsynced before its rename), and
  // the directory fsynced once, after the last, instead of after each: one mutating call, durable
  // when it returns Ok. An error stops at that file; those before it stay written. Nothing is done
  // (and no call made) for an empty list.
  using Files = std::vector<std::pair<std::string_view, std::string_view>>;
  virtual Status WriteFilesAtomic(const std::string& dir, const Files& files) {
    for (const auto& [name, data] : files)
      if (Status s = WriteFileAtomic(dir, std::string(name), data); !s.ok()) return s;
    return Status::Ok();
  }
  // The same without the directory's fsync: each file's data is durable, its name in DIR only once
  // a later call fsyncs DIR, and a power loss before that may take the names back. For files whose
  // directory the next call there fsyncs (an intake's gate1.json and intake.json, then the drop
  // renamed in; a launch's plan.json, gate2.json and launch.json, then the closing sync of
  // running/ID after the move); the default is WriteFilesAtomic.
  virtual Status WriteFilesDirLater(const std::string& dir, const Files& files) {
    return WriteFilesAtomic(dir, files);
  }
  // WriteFilesDirLater into each of several directories, the status of each at its index: one
  // directory's error stops that directory alone. RealEnv writes every file of the batch before it
  // fsyncs their data, concurrently, so a batch's files wait about as long as one or two (a turn's
  // intakes); the default is WriteFilesDirLater for each in turn, one mutating call each. Each
  // directory at most once in a batch, each name at most once in a directory's files (their
  // temporary names would be the same).
  struct DirFiles {
    std::string dir;
    Files files;
  };
  virtual std::vector<Status> WriteFilesDirsLater(const std::vector<DirFiles>& batch) {
    std::vector<Status> r;
    for (const DirFiles& d : batch) r.push_back(WriteFilesDirLater(d.dir, d.files));
    return r;
  }
  // dir/name created complete or not at all, with MODE (0600 for a private key), never replacing
  // what is there: written to dir/.name.tmp.PID with that mode (O_EXCL, O_NOFOLLOW), fsynced,
  // renamed into place with renameat2(RENAME_NOREPLACE), dir fsynced. Exists, and nothing
  // changed, when dir/name was there already.
  virtual Status CreateFileAtomic(const std::string& dir, const std::string& name,
                                  std::string_view data, mode_t mode) = 0;
  // Creates dir/name with O_CREAT|O_EXCL, writes data, fsyncs it and dir. Exists if it was there.
  virtual Status CreateExclusive(const std::string& dir, const std::string& name,
                                 std::string_view data) = 0;
  // CreateExclusive of each file into DIR, in order, the status of each at its index: Exists for
  // one that was there (the others go on); any other error stops the batch there, and every file
  // after it says that error too, whether or not it was made (RealEnv may have made a few, which
  // stay: a key is never removed, and a key not known durable is acted on by nobody). RealEnv
  // creates and writes them, fsyncs their data at once and DIR once, so a turn's launch keys wait
  // about as long as one key; a failed fsync of DIR is the status of every key it made. The default
  // is CreateExclusive for each in turn, one mutating call each.
  virtual std::vector<Status> CreateExclusives(const std::string& dir, const Files& files) {
    std::vector<Status> r;
    for (const auto& [name, data] : files) {
      r.push_back(r.empty() || r.back().ok() || r.back().code() == Code::kExists
                      ? CreateExclusive(dir, std::string(name), data)
                      : r.back());
    }
    return r;
  }
  // Three batches whose fsyncs no order binds among them, only to what comes after: DIRS as
  // SyncDirs(DIRS, ""), FILES as WriteFilesDirsLater, KEYS into KEY_DIR as CreateExclusives, each
  // result as that call's would be. DIRS and FILES are done whatever the other returns (the caller
  // decides what a failure stops); KEYS only when every file was written: else no key is created
  // and each says "not created" with the first file's error (a key is a point of no return, not
  // taken after a failure the call can see before it). RealEnv writes every file and creates every
  // key (when every file's write(2) went through: a failed fsync or rename of a file is found after
  // the keys are made, and they stand), then fsyncs every file's and key's data, KEY_DIR and DIRS
  // at once: one wait where the three calls waited for three or four in a row (an intake's state
  // directory with its gate1.json and intake.json; a launch's plan.json and gate2.json with its
  // key). KEYED are files as FILES, each written only once the key it names (an index of KEYS)
  // was created by this call, so that no such file stands without its key (a launch's
  // launch.json); RealEnv writes them after the keys are created and fsyncs their data in the same
  // wait. A batch of more than 64 files and keys is the calls in turn. The default is the calls in
  // that order (SyncDirs, WriteFilesDirsLater, CreateExclusives, WriteFilesDirsLater of the keyed
  // files whose key is Ok), so FaultEnv counts and the crash sweep sees the calls each part would
  // make alone.
  struct Keyed {
    size_t key;  // KEYS' index
    DirFiles files;
  };
  struct Together {
    std::vector<std::string> dirs;
    std::vector<DirFiles> files;
    std::string key_dir;
    Files keys;
    std::vector<Keyed> keyed;
  };
  struct TogetherDone {
    Status dirs;
    std::vector<Status> files;  // at FILES' indexes
    std::vector<Status> keys;   // at KEYS' indexes
    // At KEYED's indexes; NotFound ("not written") where its key was not made.
    std::vector<Status> keyed;
  };
  virtual TogetherDone WriteTogether(const Together& t) {
    TogetherDone r;
    r.dirs = SyncDirs(t.dirs, "");
    r.files = WriteFilesDirsLater(t.files);
    r.keys = KeysAfter(r.files, t.keys.size());
    if (!t.keys.empty() && r.keys.empty()) r.keys = CreateExclusives(t.key_dir, t.keys);
    std::vector<size_t> at;
    std::vector<DirFiles> keyed = KeyedOf(
        t.keyed, [&](size_t key) { return key < r.keys.size() && r.keys[key].ok(); }, &at);
    r.keyed = KeyedDone(t.keyed, at, WriteFilesDirsLater(keyed));
    return r;
  }
  // WriteTogether's keyed files whose key MADE says was made, their indexes in KEYED into *AT.
  static std::vector<DirFiles> KeyedOf(const std::vector<Keyed>& keyed,
                                       const std::function<bool(size_t key)>& made,
                                       std::vector<size_t>* at);
  // A status for each of KEYED: WRITTEN's for those at AT (KeyedOf's), "not written: its key was
  // not made" for the others.
  static std::vector<Status> KeyedDone(const std::vector<Keyed>& keyed,
                                       const std::vector<size_t>& at,
                                       const std::vector<Status>& written);
  // WriteTogether's keys when a file failed: N statuses saying "not created" with the first
  // failure of FILES; none when every file is Ok (the keys are to be created).
  static std::vector<Status> KeysAfter(const std::vector<Status>& files, size_t n);
  // rename(2), then fsync of the source and destination parent directories.
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // The same, but Exists (and nothing moved) when `to` is already there (renameat2 NOREPLACE).
  virtual Status RenameNoReplace(const std::string& from, const std::string& to) = 0;
  // rename(2) alone, neither directory fsynced: the move is visible at once, but a power loss may
  // take it back until a later call fsyncs both parents (SyncDirs names them). Only where the
  // calls that follow sync them before anything relies on the move, and a start syncs what a crash
  // cut short (a batch's intakes, PerformIntakes and RecoverIntakes; a launch's move to running/,
  // PrepareLaunch and SyncCutLaunches, shell/transitions.h; a return renamed before a launch,
  // daemon/daemon.h RenameUnsynced, and SyncCutLaunches); the default is the durable Rename.
  virtual Status RenameLater(const std::string& from, const std::string& to) {
    return Rename(from, to);
  }
  // fsync(2) of every directory of DIRS, concurrently (in no order among them), and once all of
  // them are durable, of THEN unless it is empty: what the calls before made or moved there
  // without a sync (MakeDirVisible, WriteFilesDirLater, RenameLater) is then durable. THEN is for
  // an order the caller needs (the old directory of renames after their new ones). One mutating
  // call; none when DIRS is empty. An error in DIRS leaves THEN unsynced; the error returned is
  // that of the first directory in DIRS's order that failed. The default does nothing: the
  // default ...Later and ...Visible calls are durable already.
  virtual Status SyncDirs(const std::vector<std::string>& dirs, const std::string& then) {
    (void)dirs;
    (void)then;
    return Status::Ok();
  }
  // fsync(2) of every file or directory of PATHS, concurrently (in no order among them), none
  // followed when it is a symbolic link: what another process wrote there without a sync is then
  // durable (a supervisor's exit.json, which it writes visible, and its run/: hangard makes them
  // durable beside the records of the end it read there, daemon/daemon.h ExitRead). One mutating
  // call; none when PATHS is empty. The error returned is that of the first path in PATHS's order
  // that failed. The default does nothing: the default writes are durable already.
  virtual Status SyncPaths(const std::vector<std::string>& paths) {
    (void)paths;
    return Status::Ok();
  }
  // mkdir(2) with mode 0755, then fsync of the parent. Exists if it was there.
  virtual Status MakeDir(const std::string& path) = 0;
  // The same without the fsync: the directory is there for every reader, but a power loss may
  // take it back, and whatever is beneath it with it, until a later call fsyncs its parent (a
  // file written there, a rename into or out of it). Only for what a power loss makes worthless
  // anyway (the room's ops/ and room_dirs, a launch's run/ before the launch record), or what the
  // same act's closing sync makes durable before anything relies on it (a launch's room), never
  // for a directory something durable is moved into; the default is the durable mkdir.
  virtual Status MakeDirVisible(const std::string& path) { return MakeDir(path); }
  // unlink(2) (or rmdir(2) for an empty directory), then fsync of the parent.
  virtual Status Remove(const std::string& path) = 0;
  // Removes PATH and everything beneath it without following a symbolic link anywhere (a room a
  // drone filled; env/remove_tree.h), then fsyncs PATH's parent. NotFound when PATH is absent.
  virtual Status RemoveTree(const std::string& path) = 0;

  // Appends data to path (created with mode 0644 when absent) with one write(2) on an O_APPEND
  // descriptor, then fsyncs it; when this call created the file it fsyncs the directory too. The
  // ledger and its anchor are append-only files: one write keeps concurrent readers from seeing
  // half an entry on the way, and a crash leaves at most a torn tail that the reader cuts off.
  virtual Status AppendDurable(const std::string& path, std::string_view data) = 0;
  // One part of AppendTogether: DATA appended to PATH.
  struct Appended {
    std::string path;
    std::string_view data;
  };
  // AppendDurable of each part, their waits shared: RealEnv writes the parts last to first, then
  // fsyncs the files (and the directories of files it created) at once. A status for each part, in
  // order; one part's failure says nothing of the others'. The default (FaultEnv's, so the crash
  // sweep's) is AppendDurable of each part in turn, first to last. With RealEnv a crash of the
  // process between two writes leaves a later part without an earlier one, and only a power loss
  // (which may keep either) an earlier part without a later one, the state a FaultEnv crash
  // between two parts leaves. A caller names first the part whose being on disk alone is the
  // state its recovery must handle.
  virtual std::vector<Status> AppendTogether(const std::vector<Appended>& parts);
  // FIRST and SECOND, two chains of calls no order binds to each other, their waits shared:
  // RealEnv runs them at once, SECOND on the caller's thread and FIRST on a thread kept for
  // waiting (base/wait_pool.h Beside), and returns when both have. Neither may need the other
  // done; FIRST should touch nothing but this Env and what it is given. The default (FaultEnv's,
  // so the crash sweep's) runs FIRST, then SECOND: a crash at any call of either leaves a state
  // RealEnv may leave too (the other chain not begun, or done), and the states between, each chain
  // cut somewhere, are for the caller to show safe by what each chain's recovery needs of the
  // other (none, when they share nothing). A caller names first the chain whose being done alone
  // is the state its recovery must handle. Not a mutating call itself: FaultEnv counts the calls
  // within.
  virtual void Alongside(const std::function<void()>& first, const std::function<void()>& second) {
    first();
    second();
  }
  // truncate(2) a regular file to size bytes, then fsync it.
  virtual Status Truncate(const std::string& path, uint64_t size) = 0;

  // Delivers data as DIR/new/NAME into a maildir hangar does not own (a requester's inbox,
  // hangar-return(5)), never following a symbolic link and never creating a directory: DIR is
  // opened from "/" one component at a time, then DIR/tmp and DIR/new beneath it, each with
  // openat(O_NOFOLLOW|O_DIRECTORY); DIR/tmp/NAME is created with O_EXCL|O_NOFOLLOW (what an
  // earlier try left at that name is unlinked first, never followed), written, fsynced and renamed
  // under the two descriptors to DIR/new/NAME (replacing what is there without following it), and
  // DIR/new is fsynced. DIR is absolute; NAME a plain file name. Errors: NotFound when DIR,
  // DIR/tmp or DIR/new does not exist; Invalid for a relative DIR, a ".." in it, or a symbolic link
  // on the way ("a symbolic link, not followed"); else the failed call's Errno naming its path.
  // After an error nothing new is in DIR/new; DIR/tmp/NAME may remain (maildir readers skip tmp/).
  // OWNER >= 0 (the uid that dropped the mission; 0, root, may name any directory): DIR, DIR/tmp
  // and DIR/new must each be owned by it, as fstat of the opened directory says, else Invalid
  // ("DIR is owned by uid N, not by uid M, who dropped the mission") and nothing is written.
  virtual Status WriteMaildir(const std::string& dir, const std::string& name,
                              std::string_view data, int64_t owner = -1) = 0;

  // Size of a regular file (a final symlink is not followed). NotFound when absent.
  virtual Result<uint64_t> FileSize(const std::string& path) = 0;
  // Up to n bytes of a regular file from offset; fewer at its end. Lets readers seek to the tail of
  // a large append-only file instead of reading it whole.
  virtual Result<std::string> ReadAt(const std::string& path, uint64_t offset, size_t n) = 0;
  // Reads a regular file without following a final symlink; Invalid when larger than max_bytes or
  // not a regular file, NotFound when absent. Never blocks on a FIFO.
  virtual Result<std::string> ReadFile(const std::string& path, size_t max_bytes) = 0;
  // ReadFile, and the uid that owns the file as fstat(2) of the descriptor read says it into
  // *owner (the identity of whoever dropped a mission or a control request: a user cannot create
  // a file another uid owns). The default, for Envs with no owners, says -1 (unknown).
  virtual Result<std::string> ReadFileOwned(const std::string& path, size_t max_bytes,
                                            int64_t* owner);
  // Names in a directory, without "." and "..", sorted.
  virtual Result<std::vector<std::string>> ListDir(const std::string& path) = 0;
  // The same with each entry's type as the directory tells it (d_type; lstat where the filesystem
  // does not say): dir is true for a directory, false for anything else, a symlink included.
  // Saves a call per entry where a scan must tell mission directories from stray files.
  struct DirEntry {
    std::string name;
    bool dir = false;
  };
  virtual Result<std::vector<DirEntry>> ListEntries(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;  // lstat succeeds
  // What lstat(2) says of path (a symlink itself, never followed). The default, for Envs with no
  // filesystem, is Unavailable.
  struct FileInfo {
    bool regular = false;
    uint64_t links = 0;   // st_nlink
    TimeMs modified = 0;  // st_mtim, in milliseconds since the epoch
  };
  virtual Result<FileInfo> Lstat(const std::string& path);
  // The filesystem holding path: st_dev of stat(2), a symlink followed. The default, for Envs with
  // no filesystem, is Unavailable.
  virtual Result<uint64_t> FilesystemOf(const std::string& path);

  // An exclusive flock(2) (LOCK_EX | LOCK_NB), held until the Lock is destroyed (its descriptor
  // closed; close-on-exec, so no child keeps it). On the file PATH, created 0644 when absent, or,
  // with DIRECTORY, on the directory PATH itself, never created (a missing mount is not made).
  // Unavailable when another open file description holds it; else the failed call's Errno naming
  // WHAT ("cannot open WHAT: ...", "cannot lock WHAT: ..."), PATH when WHAT is empty. Not a
  // mutating call: the lock is on no disk. The default, for Envs with no filesystem, is Io.
  class Lock {
   public:
    virtual ~Lock() = default;
  };
  virtual Result<std::unique_ptr<Lock>> LockExclusive(const std::string& path, bool directory,
                                                      const std::string& what = "");
  // The bytes an unprivileged writer may still use on the filesystem holding path (statvfs(2):
  // f_bavail * f_frsize). The default, for Envs with no filesystem, is Unavailable.
  virtual Result<uint64_t> FreeBytes(const std::string& path);

  // A directory held open for reading files below it, so that reading a file of each of many
  // missions does not walk the directory's own path every time (RealEnv: an O_DIRECTORY descriptor
  // and openat(2)). It reads what is there when asked: nothing is kept. Use from one thread at a
  // time.
  class Dir {
   public:
    virtual ~Dir() = default;
    // ReadFile of rel (a relative path such as "ID/intake.json") below the directory; errors name
    // the whole path.
    virtual Result<std::string> ReadFile(const std::string& rel, size_t max_bytes) = 0;
  };
  // The directory at path (symlinks followed, as ListDir does); NotFound when absent. The default
  // reads through ReadFile by joined paths, for Envs that have nothing better.
  virtual Result<std::unique_ptr<Dir>> OpenDir(const std::string& path);
};

// Where WriteFileAtomic and WriteFileVisible write before the rename: DIR/.NAME.tmp.PID (the
// name their errors give).
std::string AtomicTmpPath(const std::string& dir, const std::string& name);

// The real thing: POSIX calls on the local filesystem.
Env* RealEnv();

}  // namespace hangar
