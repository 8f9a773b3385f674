// Symbolic links in the existing part of a path, resolved on the disk before the gate judges a path
// a mission asks to write against the protected directories (man/hangar-policy.5, PATHS). The
// kernel's path_norm.h is lexical only: "/srv/work/cfg/x" looks harmless until cfg -> /etc, and
// "/a/link/../x" is not "/a/x" when link -> /b/c. This file asks the disk; the kernel stays pure.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "base/status.h"
#include "kernel/gate.h"
#include "kernel/mission.h"

namespace hangar {

// Resolves `path` (absolute, as a mission gave it after "~" expansion, not normalised first) the
// way the kernel walks it: component by component from the root; "." is skipped; ".." goes to the
// parent of the real directory reached so far (after a link, its target's parent); a symbolic link
// is replaced by its target (absolute: from the root again; relative: from the directory reached so
// far), at most 40 links in all. At the first component that does not exist (ENOENT) or whose
// parent is not a directory (ENOTDIR) the walk stops and the rest of the path is appended and
// normalised lexically; when that rest holds "..", the result climbs back into what exists and is
// walked once more. The result is absolute and normalised (NormalizeAbsolute).
//
// root: "" for the real filesystem; otherwise a directory taken as "/" for every disk call and for
// absolute link targets, like a chroot (tests, the gate corpus). The result is then the path inside
// root, starting with "/" and without root's prefix; ".." never leaves root.
//
// Errors: Invalid for an empty or relative path ("not an absolute path") and for one holding a NUL
// byte; Io "cannot resolve PATH: Too many levels of symbolic links" past 40 links (ELOOP); an Io
// error naming the path, the call, the disk path and the errno text for any other lstat(2) or
// readlink(2) failure (EACCES, ...). Reads the disk only; safe from any thread.
Result<std::string> ResolveExistingPath(std::string_view path, const std::string& root = "");

// The disk as one caller looks at it many times over: each lstat(2) and readlink(2) answer (the
// errno included) kept by disk path for the object's life, so that paths sharing directories walk
// each once. The sandbox resolves every hidden path at each launch (shell/bwrap_command.h): some
// hundred, the same few credential names in every home of the user database, each walked from the
// root (five or six calls a path, seven hundred a launch, where one a path and one a directory
// do). An answer is as old as the object: keep one for one launch's preparation, not longer. Not
// thread-safe.
class DiskLook {
 public:
  // 0 and *st, or the errno of lstat(2) of PATH.
  int Lstat(const std::string& path, struct stat* st);
  // 0 and *target, or the errno of readlink(2) of PATH; its buffer grows past SIZE_HINT (st_size,
  // 0 for some /proc links) until the target fits.
  int ReadLink(const std::string& path, size_t size_hint, std::string* target);
  // Lstat as a function object (shell/landlock.h, ReadRuleset's LSTAT), for this object's life.
  std::function<int(const std::string&, struct stat*)> LstatFunction() {
    return [this](const std::string& path, struct stat* st) { return Lstat(path, st); };
  }
  int64_t calls() const { return calls_; }  // the system calls made, for tests and benchmarks

 private:
  struct Stat {
    int err = 0;
    struct stat st {};
  };
  std::unordered_map<std::string, Stat> stats_;
  std::unordered_map<std::string, std::pair<int, std::string>> links_;
  int64_t calls_ = 0;
};

// ResolveExistingPath looking through LOOK (the same walk, the same result and errors; each disk
// path asked once in LOOK's life).
Result<std::string> ResolveExistingPath(std::string_view path, const std::string& root,
                                        DiskLook* look);

// Each entry of the "writes" of a mission, "~" taken from home, and its notify.dir, resolved on
// the disk (or why it could not be): what the gate judges at intake and the sandbox binds. root
// as for ResolveExistingPath (the gate corpus's scratch disk). Recovery and retry, which also
// take back a workspace's resolution, call ResolveRecorded (shell/workspace.h).
ResolvedWrites ResolveWrites(const Mission& m, const std::string& home,
                             const std::string& root = "");

}  // namespace hangar
