// The change of a workspace mission, as hangar computes it after the drone ended (man
// hangar-return.5, CHANGE): never what the drone says it changed, and never through the room's
// own git configuration, hooks or index.
//
// hangar's own repository RUN/change.git borrows the objects of the source (and of the room, when
// the room's .git still borrows exactly what the checkout gave it), with its own index
// (RUN/change.index): the base commit is read into that index, the room's work tree added to it
// (git add -A: the repository's .gitignore holds, what hangar put in the room is excluded), and
// the tree written. The patch RUN/change.patch is base..that tree (diff-tree --binary -M
// --full-index, no external diff, no textconv). The room's HEAD is read from the room's files
// without following a link; the commits the drone made are base..HEAD. Every git runs as the
// drone's user (hardened: shell/git.h), so nothing the room points at can be read that the drone
// could not read.
#pragma once

#include <string>
#include <vector>

#include "base/json.h"
#include "kernel/kernel.h"

namespace hangar {

inline constexpr size_t kMaxChangeFiles = 1000, kMaxChangeCommits = 1000;  // the rest counted

// {"base", "head", "commits": [{"id","subject"}], "commits_omitted", "files": [{"status": "A" |
// "M" | "D" | "R" | "T", "path", "from" (a rename's), "added", "deleted" (null: binary)}],
// "files_omitted", "uncommitted": [{"status","path","from"}], "uncommitted_omitted", "patch":
// {"file": "run/change.patch", "size", "sha256"}, "error": null | why}. On an error the fields
// it did not reach are null.
json::Value ObserveChange(const Observe& ob);

// The result of a "changed" done-check on CHANGE (ObserveChange's): {"check", "passed",
// "detail"}.
json::Object JudgeChange(const DoneCheck& c, const json::Value& change);

}  // namespace hangar
