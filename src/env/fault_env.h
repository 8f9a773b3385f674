// FaultEnv: an Env around another Env that numbers every mutating call and can fail one, fail all
// from one on, or end the process just before or just after one (as leveldb's
// FaultInjectionTestEnv). Crash-safety tests drive it at call 1, 2, 3, ... of a workload, then
// restart on the real Env and check what the spool says.
//
// What is counted: the mutating calls of the Env interface (WriteFileAtomic, WriteFileVisible,
// WriteFilesAtomic and WriteFilesDirLater (one call for all its files; none for an empty list;
// WriteFilesDirsLater is one WriteFilesDirLater for each directory, in turn; CreateExclusives one
// CreateExclusive for each file, in turn, until one fails otherwise than Exists; WriteTogether
// the SyncDirs, WriteFilesDirsLater and CreateExclusives of its parts, in turn, with no key after
// a file that failed),
// CreateFileAtomic, CreateExclusive, Rename, RenameNoReplace, RenameLater, SyncDirs (one call for
// all its directories; none for an empty list), SyncPaths (the same), MakeDir, MakeDirVisible,
// Remove, RemoveTree, AppendDurable (AppendTogether: one for each part, in turn), Truncate,
// WriteMaildir), each once, whatever it returns; never a read (FileSize, ReadAt, ReadFile, ListDir,
// ListEntries, Exists, Lstat, FilesystemOf, OpenDir and its Dir) nor Now, nor a LockExclusive (a
// lock is on no disk). Numbers start at 1 and are taken under one lock, across threads. What is not
// counted: whatever the process changes without its Env (a direct system call), and other processes
// (hangar-shim writes through its own RealEnv; its exit.json, written visible, is made durable by
// hangard's SyncPaths, which is counted, but a power loss here never takes that file back: the
// sweep runs no supervisor under this Env).
//
// Power loss. Every mutating call of RealEnv but four fsyncs its data and directories before it
// returns, so a finished call is on disk, and the unit of loss is the call: a power loss "during"
// call N leaves the disk as a crash just before N (nothing of N) or just after N (all of N), and
// kCrashBefore/kCrashAfter are those two states, less what the four left unsynced that no later
// call fsynced. The four (WriteFilesDirLater, WriteFileVisible, MakeDirVisible, RenameLater) are
// counted, logged and performed as the base Env does them and never taken back here: the crash
// sweep takes that back from the log (scripts/spool_invariants.py, unsynced_by_calls), where
// SyncDirs, like every durable call, names the directories it fsyncs. The simulation does
// not cover a state inside one call: the dot-named temporary file of a WriteFileAtomic cut between
// its steps, a torn tail of an AppendDurable, a key created by CreateExclusive but not yet filled,
// a SyncDirs cut between two of its directories (RealEnv fsyncs them at once). Nor does it cover an
// fsync whose error the kernel swallowed, reordering between calls, or the page cache dropping
// other data than the four's; what the process writes by direct system calls is neither counted nor
// dropped. An external SIGKILL, which can land between the steps of one call, covers the first
// part.
//
// Thread safety: every method may be called from any thread. A crash is exact whatever the
// threads do: once call N is numbered for crash-before=N or crash-after=N, a call numbered after it
// never starts (its thread waits for the exit), and the process ends only when every call numbered
// before N has completed; the disk then holds the effects of calls 1 .. N-1, and of N for
// crash-after. (A real crash may also cut a call of another thread mid-way; see above.)
// Alongside is Env's default: its first chain, then its second, on the caller's thread, so their
// calls are numbered the same from run to run (RealEnv runs the two at once).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "env/env.h"

namespace hangar {

// The exit status of a process FaultEnv ended on purpose (_exit: no destructor, no atexit handler,
// no stdio flush).
constexpr int kFaultCrashStatus = 86;

// The one fault a FaultEnv injects.
struct FaultPlan {
  enum class Kind {
    kNone,         // count (and log) only
    kFail,         // call `at` returns Status::Errno(..., error) without being performed
    kCrashBefore,  // the process ends when call `at` is made, before performing it
    kCrashAfter,   // the process ends when call `at` has returned, whatever it returned
  };
  Kind kind = Kind::kNone;
  uint64_t at = 0;      // 1-based number of the mutating call struck
  int error = 0;        // kFail: the errno
  bool sticky = false;  // kFail: every call from `at` on fails (a full disk stays full)
};

// HANGAR_FAULT's syntax: "crash-before=N", "crash-after=N", "fail=N:ERRNO" or
// "fail=N:ERRNO:sticky", N a decimal number from 1 without leading zeros, ERRNO one of ENOSPC, EIO,
// EDQUOT, EROFS, EACCES, EPERM, EMFILE, ENFILE, ENOMEM. Nothing else (no spaces, no empty string).
// Invalid with the reason otherwise.
Result<FaultPlan> ParseFaultPlan(std::string_view text);

class FaultEnv : public Env {
 public:
  // base is not owned and must outlive this.
  FaultEnv(Env* base, FaultPlan plan);
  ~FaultEnv() override;
  FaultEnv(const FaultEnv&) = delete;
  FaultEnv& operator=(const FaultEnv&) = delete;

  // Appends one line per mutating call to path from now on (created 0644 if absent, not
  // truncated), written before the call is performed: "N CALL ARG...", CALL one of write,
  // write-visible, write-files, write-files-dir-later, create, rename, rename-noreplace, mkdir,
  // mkdir-visible, remove, remove-tree, append, truncate, maildir, the ARGs its paths (two for a
  // rename; DIR/new/NAME for a maildir delivery; DIR/FIRST and then every name, comma-separated,
  // for write-files and write-files-dir-later; a newline or backslash in a path is written \n or
  // \\). An injected fault adds a line "fault N crash-before", "fault N crash-after" or "fault N
  // fail ERRNO" after the call's own. Lines are not fsynced: the log survives a crash of the
  // process, not of the machine. Io when the file cannot be opened.
  Status OpenLog(const std::string& path);

  // How many mutating calls were made so far.
  uint64_t calls() const;
  const FaultPlan& plan() const { return plan_; }

  TimeMs Now() override { return base_->Now() + clock_offset_ms_; }
  void SetClockOffset(TimeMs ms) { clock_offset_ms_ = ms; }
  TimeMs clock_offset() const { return clock_offset_ms_; }
  Status WriteFileAtomic(const std::string& dir, const std::string& name,
                         std::string_view data) override;
  Status WriteFileVisible(const std::string& dir, const std::string& name,
                          std::string_view data) override;
  Status WriteFilesAtomic(const std::string& dir, const Files& files) override;
  Status WriteFilesDirLater(const std::string& dir, const Files& files) override;
  Status CreateFileAtomic(const std::string& dir, const std::string& name, std::string_view data,
                          mode_t mode) override;
  Status CreateExclusive(const std::string& dir, const std::string& name,
                         std::string_view data) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status RenameNoReplace(const std::string& from, const std::string& to) override;
  Status RenameLater(const std::string& from, const std::string& to) override;
  Status SyncDirs(const std::vector<std::string>& dirs, const std::string& then) override;
  Status SyncPaths(const std::vector<std::string>& paths) override;
  Status MakeDir(const std::string& path) override;
  Status MakeDirVisible(const std::string& path) override;
  Status Remove(const std::string& path) override;
  Status RemoveTree(const std::string& path) override;
  Status AppendDurable(const std::string& path, std::string_view data) override;
  Status Truncate(const std::string& path, uint64_t size) override;
  Status WriteMaildir(const std::string& dir, const std::string& name, std::string_view data,
                      int64_t owner = -1) override;

  Result<uint64_t> FileSize(const std::string& path) override { return base_->FileSize(path); }
  Result<std::string> ReadAt(const std::string& path, uint64_t offset, size_t n) override {
    return base_->ReadAt(path, offset, n);
  }
  Result<std::string> ReadFileOwned(const std::string& path, size_t max_bytes,
                                    int64_t* owner) override {
    return base_->ReadFileOwned(path, max_bytes, owner);
  }
  Result<std::string> ReadFile(const std::string& path, size_t max_bytes) override {
    return base_->ReadFile(path, max_bytes);
  }
  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    return base_->ListDir(path);
  }
  Result<std::vector<DirEntry>> ListEntries(const std::string& path) override {
    return base_->ListEntries(path);
  }
  bool Exists(const std::string& path) override { return base_->Exists(path); }
  // The base's, except that a sticky no-space fault that has struck leaves no space (a full
  // disk stays full).
  Result<uint64_t> FreeBytes(const std::string& path) override;
  Result<FileInfo> Lstat(const std::string& path) override { return base_->Lstat(path); }
  Result<uint64_t> FilesystemOf(const std::string& path) override {
    return base_->FilesystemOf(path);
  }
  Result<std::unique_ptr<Lock>> LockExclusive(const std::string& path, bool directory,
                                              const std::string& what) override {
    return base_->LockExclusive(path, directory, what);
  }
  Result<std::unique_ptr<Dir>> OpenDir(const std::string& path) override {
    return base_->OpenDir(path);
  }

 private:
  // One mutating call as the log and an injected failure name it.
  struct Call {
    const char* name;  // the log's CALL word
    std::string what;  // the object as RealEnv's message names it: "rename A to B"
    std::string path;
    std::string to = "";  // a rename's destination
  };
  // Numbers the call and logs it, then performs it (perform) unless the plan strikes it: returns
  // the injected failure instead, or ends the process before (kCrashBefore) or after
  // (kCrashAfter) it.
  Status Intercept(const Call& call, const std::function<Status()>& perform);
  // WriteFilesAtomic and WriteFilesDirLater: one call named CALL for all the files, none for no
  // file.
  Status WriteFiles(const char* call, const std::string& dir, const Files& files,
                    const std::function<Status()>& perform);
  // Intercept's first half: the call's number, or the injected failure; never returns for
  // kCrashBefore at the call, nor for any call after a kCrashAfter point.
  Result<uint64_t> Begin(const Call& call);
  // Waits until every call numbered before the crash point has completed, then ends the process
  // with kFaultCrashStatus, saying so on stderr.
  [[noreturn]] void Crash(std::unique_lock<std::mutex> lock, const char* when, const Call& call);

  Env* base_;
  const FaultPlan plan_;
  mutable std::mutex mu_;
  uint64_t calls_ = 0;       // guarded by mu_
  uint64_t done_below_ = 0;  // calls numbered before plan_.at that have completed; guarded by mu_
  std::condition_variable done_;  // done_below_ reached plan_.at - 1
  int log_fd_ = -1;               // guarded by mu_
  TimeMs clock_offset_ms_ = 0;    // set before use, never changed after
};

// The Env a process runs on, from its environment's HANGAR_FAULT, HANGAR_FAULT_LOG and
// HANGAR_FAULT_CLOCK_MS (the values given, null when unset): nullptr when all are unset (run on
// base), else a FaultEnv around base with that plan and log, whose Now() is base's plus the clock
// offset (a signed integer of milliseconds: a clock set back or forward, for the clock tests).
// Invalid naming the variable and the reason when one is malformed or HANGAR_FAULT_LOG is empty or
// relative; Io when the log cannot be opened.
Result<std::unique_ptr<FaultEnv>> FaultEnvFromVariables(Env* base, const char* fault,
                                                        const char* log,
                                                        const char* clock_ms = nullptr);

// A sentence for a person: what plan injects ("crash before mutating call 17").
std::string DescribeFaultPlan(const FaultPlan& plan);

}  // namespace hangar
