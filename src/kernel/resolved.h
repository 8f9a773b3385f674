// What the shell found on disk of the paths a mission names, for the kernel to judge and plan
// with (the shell resolves, the kernel decides): shell/path_resolve.h, shell/workspace.h. Pure.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace hangar {

// The mission's workspace repository as the shell found it at intake (shell/workspace.h), with
// the same account kept in intake.json for recovery and retry: the commit its ref names and the
// object directory a checkout reads (absolute), or why not (field: the mission's field at fault).
struct GitResolution {
  std::string commit, objects;
  std::string field, error;
};
// One path a mission names (an entry of "writes", notify.dir, workspace.git) as the shell found it
// on disk: "~" expanded, symlinks in its existing part resolved (shell/path_resolve.h), or why
// that failed.
struct ResolvedPath {
  std::string path;
  std::string error;
  std::optional<GitResolution> git = std::nullopt;  // only the workspace's "git" path has it
};
// The path as the mission wrote it -> its resolution. A notify.dir spelt like a writes entry is
// the same path and has the same resolution.
using ResolvedWrites = std::map<std::string, ResolvedPath>;

}  // namespace hangar
