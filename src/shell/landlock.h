// Hidden paths that stay hidden when the host replaces them (man/hangard.8, SANDBOX): a Landlock
// ruleset.
//
// Why: bubblewrap hides a path by mounting over it (an empty tmpfs on a directory, /dev/null on
// a file). A mount sits on the path's dentry; when the host replaces the file by rename(2) (how
// useradd, passwd and every careful editor write /etc/shadow, /etc/gshadow, ~/.netrc...), the
// kernel detaches the mounts on the old dentry in every other mount namespace, and the drone then
// reads the new file. A mount over a file is also a race at launch: a rename during bwrap's mount
// fails the launch (ENOENT, "Unable to find ... in mount table").
//
// hangar-confine enters it inside the sandbox, before the drone runs. It handles reading (files
// and directory listings) only; writes, execution and everything else stay with the sandbox's
// mounts and the system-call filter. What it grants:
//   - listing any directory (a rule on / for READ_DIR);
//   - reading everything beside the hidden paths: in each directory on the way from / to a hidden
//     path (an "ancestor"), every entry that is neither hidden nor an ancestor gets a rule of its
//     own, bound to the inode it names at launch: a directory READ_FILE|READ_DIR beneath it, any
//     other file READ_FILE; symbolic links none (what they point to is judged by its own path);
//   - reading each of SEE (the room, the listed writes: inside a hidden directory, bound there by
//     bwrap) and beneath it, unless it is itself an ancestor or hidden.
// So a hidden path, whatever inode it names later, has no rule and cannot be read, and neither can
// a file created or replaced later directly in an ancestor directory (/etc/passwd replaced while
// a drone runs reads as denied until the next launch: fail closed). A directory's names stay
// listable; its files' contents do not. Not covered: a hidden path the host later turns into a
// symbolic link to a readable place (a dotfile manager's ~/.aws -> dotfiles/aws): Landlock judges
// the path the link resolves to. A hidden path that does not exist at launch is covered
// when the directory that would hold it belongs to a user other than root (a home: ~/.aws made
// by `aws configure` while the drone runs); in a root-owned directory (a system account's home,
// /bin/.ssh) it is not, as without Landlock (see Guarded in landlock.cc: the cost).
#pragma once

#include <sys/stat.h>

#include <functional>
#include <string>
#include <vector>

namespace hangar {

// The Landlock ABI version this kernel offers (landlock_create_ruleset's version query), or 0 when
// it has none (not built, not enabled among the LSMs, or too old). The ruleset needs 2.
int LandlockAbi();

// Makes the ruleset above for HIDE (absolute, real paths: no symbolic link) and SEE (the
// descriptors bwrap binds: the room, the writes, the last-message file; no path walked again)
// into *FD (a Landlock ruleset descriptor, close-on-exec; -1 when nothing is kept), for
// EnterRuleset in the sandbox, and says in *KEPT which hidden paths it keeps unreadable (the
// caller mounts over the others, as without Landlock). Made outside the sandbox, by hangar-shim
// or hangard, with their rights: a rule binds an inode, the same inside (bwrap binds the machine
// at /), and a directory the drone may search but not list (mode 711) is listed all the same.
// Left out: a hidden path inside another (covered by it); under /proc or /dev (the sandbox's
// own); missing in a root-owned directory nobody else may write (see Guarded in landlock.cc);
// beneath a directory hangard cannot list (every entry beside it would be unreadable). Moving or
// linking files between directories stays allowed (LANDLOCK_ACCESS_FS_REFER: Landlock ABI 2, Linux
// 5.19, needed). An entry that is a hidden path or an ancestor under another name (a hard link,
// a bind mount) grants nothing. Returns "" on success, or why not (naming the path and the call).
// LSTAT answers lstat(2) for the paths it looks at (0, or the errno; *st filled on 0): a caller
// that has walked these paths already passes what it saw (shell/path_resolve.h, DiskLook); null
// asks the disk.
using LstatFn = std::function<int(const std::string& path, struct stat* st)>;
std::string ReadRuleset(const std::vector<std::string>& hide, const std::vector<int>& see, int* fd,
                        std::vector<std::string>* kept, const LstatFn& lstat = nullptr);

// Adds to the ruleset FD the sandbox's own /proc and /dev, as this process sees them (bwrap mounts
// them new, so no rule made outside names them), sets no_new_privs (Landlock requires it) and
// restricts this process, and what it executes, by FD. "" on success, or why not.
std::string EnterRuleset(int fd);

}  // namespace hangar
