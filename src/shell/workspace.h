// A workspace mission's repository as the shell finds it (man/hangar-mission.5, WORKSPACE): once,
// at intake, the commit its ref names and the object directory a checkout will borrow from. The
// kernel records both (intake.json, the signal record, the plan), and a recovery or a retry takes
// them back from intake.json: the base of a mission never moves with the branch it named.
#pragma once

#include <string_view>

#include "base/json.h"
#include "kernel/mission.h"
#include "kernel/resolved.h"

namespace hangar {

// Resolves M's workspace into (*resolved)[m.workspace->git]: the path with its symbolic links
// resolved (shell/path_resolve.h), and its GitResolution: a work tree's top holding a .git
// directory, or a bare repository (a .git file, a linked worktree or a submodule, is refused:
// name the repository it belongs to); the commit of workspace.ref (git rev-parse --verify
// REF^{commit}); the object directory. git runs as UID/GID (the dropper's, when hangard is root:
// a requester names no repository it cannot read), hardened (shell/git.h), for at most 10 s.
// Failures go into GitResolution::field ("workspace.git", "workspace.ref") and ::error.
void ResolveWorkspace(const Mission& m, int64_t uid, int64_t gid, ResolvedWrites* resolved);

// The uid and gid a git run at intake takes for the dropper's uid: -1, -1 (as hangard itself)
// when hangard is not root or the dropper is unknown; nobody's (65534) for a uid without a
// passwd entry.
void IntakeUser(int64_t dropper_uid, int64_t* uid, int64_t* gid);

// The paths of the mission of MISSION_BYTES as recovery and retry give them to the kernel, from
// one parse: its writes and notify.dir resolved again now (shell/path_resolve.h), its workspace
// as intake.json's "workspace" (INTAKE: that member, or nullptr) recorded it. A workspace mission
// whose intake.json records none gets an error the kernel turns into a denial at stage 2. Empty
// when the bytes are no valid mission.
ResolvedWrites ResolveRecorded(std::string_view mission_bytes, const std::string& home,
                               const json::Value* intake);

}  // namespace hangar
