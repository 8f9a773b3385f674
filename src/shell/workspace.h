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

// The dropper's uid and gid as a git run at intake takes them: -1, -1 when hangard is not root
// (git runs as hangard) or the uid has no passwd entry (then as nobody: 65534).
void IntakeUser(int64_t dropper_uid, int64_t* uid, int64_t* gid);

// Puts back the resolution intake.json's "workspace" (INTAKE: that member, or nullptr) recorded
// for the mission of MISSION_BYTES: what recovery and retry give the kernel. A mission whose
// intake.json has no workspace gets an error the kernel turns into a denial at stage 2.
void RestoreWorkspace(std::string_view mission_bytes, const json::Value* intake,
                      ResolvedWrites* resolved);

}  // namespace hangar
