// Unix identities as the system's user and group databases name them (getpwuid_r, getpwnam_r,
// getgrnam_r): the login name of the uid that dropped a file, and the approvers the config names
// (man/hangar.conf.5, approvers) as the set of uids the kernel judges control requests by.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"

namespace hangar {

// UID's login name; its decimal form when the user database has none. Remembered per uid for the
// process's life (hangard asks for it at every drop). Thread-safe.
std::string LoginName(int64_t uid);

// The uids of APPROVERS (login names, and "@group" for every member of a group: its primary
// members, whose passwd entry names its gid, and its listed ones), with root and SELF always in.
// Invalid, naming the entry, when a user or group does not exist: a typo must not leave the
// approvals to nobody or to someone else.
Result<std::set<int64_t>> ResolveApprovers(const std::vector<std::string>& approvers, int64_t self);

// Every home directory the user database names (getpwent) that is an absolute path other than "/"
// and a directory now, sorted and without duplicates: what a policy's "~*/" patterns stand for
// (kernel/policy.h, ExpandHomePatterns). Not thread-safe (getpwent): call at start.
std::vector<std::string> HomeDirectories();

}  // namespace hangar
