// Lexical path normalisation, for judging paths against the policy's protected and deny-read
// directories (man/hangar-policy.5, PATHS). Pure: no disk, no environment. Symbolic links are not
// resolved here: the shell resolves those in the existing part of a path first, then asks these
// functions. Paths are byte strings split at '/'; nothing else is special.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace hangar {

// The absolute path without "." segments, repeated '/', a trailing '/' (except the root itself)
// and with each ".." taking away the segment before it; a ".." at the root stays at "/", as the
// kernel does. "//etc//ssh/" -> "/etc/ssh", "/srv/work/../../etc/cron.d/x" -> "/etc/cron.d/x",
// "/.." -> "/". A path that does not start with '/' (or is empty) is taken from the root.
std::string NormalizeAbsolute(std::string_view path);

// True when path is dir or lies under it, segment by segment, after normalising both: "/etc"
// holds "/etc" and "/etc/x" but not "/etcetera"; "/" holds every path.
bool PathInside(std::string_view path, std::string_view dir);
// The same for two paths already normalised (NormalizeAbsolute's results): no allocation.
bool NormalizedInside(std::string_view path, std::string_view dir);

// A path as a person or a mission writes it: "~" and "~/..." are taken from home (which must be
// absolute), then the result is normalised. Invalid for "~user/..." (another user's home is not
// looked up), for a relative path, for an empty path and for a path holding a NUL byte; the
// message says which, without a file or field (the caller adds them).
Result<std::string> NormalizeUserPath(std::string_view path, std::string_view home);

// The same checks, and "~" taken from home, but the path is not normalised: "." and ".." stay for
// the shell to walk after symlinks (shell/path_resolve.h) — "/a/link/.." is not always "/a".
Result<std::string> ExpandHome(std::string_view path, std::string_view home);

}  // namespace hangar
