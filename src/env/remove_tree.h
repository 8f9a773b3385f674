// Removing a directory tree that someone else may have filled (a drone's room, a mission
// directory): never following a symbolic link, whatever the tree holds. Each directory is opened
// beneath its parent with openat(O_NOFOLLOW|O_DIRECTORY) and emptied with unlinkat, so a symlink
// anywhere is removed as itself and nothing outside the tree is touched; a directory left without
// write or search permission (chmod 0 by a drone) is made 0700 first when we own it.
#pragma once

#include <string>

#include "base/status.h"

namespace hangar {

// Removes PATH and everything beneath it (PATH itself may be a file or a symlink, removed as
// such). NotFound when PATH does not exist; the first failure otherwise, naming the path. Does not
// fsync: the caller syncs PATH's parent.
Status RemoveTreeNoFollow(const std::string& path);

}  // namespace hangar
