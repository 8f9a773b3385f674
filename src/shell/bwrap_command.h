// The bubblewrap command that confines a drone or a done-check (man/hangard.8, SANDBOX):
//
//   --unshare-user --disable-userns --cap-drop ALL  a user namespace of its own, no capability in
//                                                it nor in the initial one, no nested namespace
//   --ro-bind / /  --dev /dev  --proc /proc      the machine, read-only
//   --tmpfs DIR | --ro-bind /dev/null FILE       each hidden path that exists and is not inside
//                                                one hidden before it (its symlinks
//                                                resolved): a directory gets an empty tmpfs, a
//                                                file the empty /dev/null (only without
//                                                Landlock: see below)
//   --bind-fd FD ROOM | --ro-bind-fd FD ROOM     the room (read-only for a check), by descriptor
//   --bind-fd FD W                               each write, then the last-message file when
//                                                it is outside the room, by descriptor
//   --unshare-pid --unshare-ipc --die-with-parent [--unshare-net]
//   --chdir ROOM -- CONFINE [--landlock FD] unix-deny|unix-allow PROGRAM ARGS...
//
// With Landlock (spec.landlock: the kernel offers ABI 2), FD is a ruleset made here
// (shell/landlock.h, ReadRuleset) from every hidden path, resolved, existing or not, with the
// descriptors of the room, each write and the last-message file seen; CONFINE enters it before
// the drone runs. Network "egress" is refused without it (its forwarder would be open to the
// drone's ptrace). A mount alone does not keep a file hidden that the host replaces by rename(2)
// while the drone runs, nor one created after the launch; Landlock does, so a hidden file the
// ruleset keeps gets no /dev/null mount (the mount would only add a launch that fails when the
// rename meets it).
//
// Binds are made from descriptors opened here, never from paths bwrap would walk again later: a
// write is opened from / with no symbolic link allowed in any component (openat2
// RESOLVE_NO_SYMLINKS), so swapping a directory for a link between this check and bwrap's mount
// cannot redirect the bind; the room is opened without following its last component. CONFINE is
// hangar-confine (launch/confine.h), which refuses to run PROGRAM should a capability remain and
// loads the system-call filter (unix-deny where the network is cut).
//
// Hidden paths are mounted before the binds, so a room inside a hidden directory (the spool, the
// rooms directory) is visible, and only that room.
//
// With spec.namespaces (sandbox engine "namespaces"), the same sandbox without bubblewrap:
//
//   CONFINE --sandbox [--share-net] [--shm BYTES] [--hide-dir DIR]... [--hide-file FILE]...
//           [--bind FD PATH | --ro-bind FD PATH]... [--socket EGRESS] --chdir ROOM --
//           [--forward ...] [--landlock FD] unix-deny|unix-allow PROGRAM ARGS...
//
// where hangar-confine makes the namespaces and mounts itself (shell/namespace_sandbox.h) from the
// same hidden paths, descriptors and ruleset; the supervisor's child for a drone takes its steps
// from this argv without executing it (launch/drone_exec.h).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "shell/manifest.h"

namespace hangar {

struct BwrapSpec {
  std::string bwrap;                // the bubblewrap program (absolute)
  std::string confine;              // hangar-confine (absolute)
  std::vector<std::string> hide;    // absolute
  std::string room;                 // absolute; the working directory
  int room_fd = -1;                 // the room, already open; -1: opened here (OpenRoom)
  bool room_writable = true;        // false for a done-check
  std::vector<std::string> writes;  // beyond the room, bound writable; symlink-free absolute paths
  std::string last_message;         // a file outside the room bound writable ("" none); like the
                                    // room, only its last component must not be a link
  // Where LAST_MESSAGE is while the command is made, when not at its name yet (a run directory
  // before the launch's move): opened there, and looked for there first (NamespaceSandbox::Bind,
  // before). "" : at its name.
  std::string last_message_now;
  bool cut_network = true;
  int64_t shm_mb = 0;     // the size of /dev/shm, a tmpfs of its own; 0: bwrap's /dev's
  bool landlock = false;  // CONFINE hides by Landlock too (the plan's sandbox.landlock_abi)
  bool namespaces = false;  // CONFINE makes the sandbox itself (engine "namespaces"); bwrap unused
  // Network "egress": the proxy's unix socket, bound at its own path, and the forwarder confine
  // starts on 127.0.0.1:forward_port to it before the drone runs (launch/confine.h). "" none.
  std::string egress_socket, forwarder;
  int forward_port = 0;
};

// The command: what execve(2) runs, its argv, and the descriptors bwrap binds, which the caller
// keeps open and lets the process inherit (clear FD_CLOEXEC after fork; they are above 2).
struct SandboxedCommand {
  std::string exe;
  std::vector<std::string> argv;
  std::vector<UniqueFd> fds;
  std::vector<int> inherit() const;  // the numbers of fds (and of spec.room_fd when given)
  int room_fd = -1;                  // the room's descriptor the argv names
};

// Errors: Io naming the hidden path that could not be resolved or examined; Invalid "write W now
// resolves to R: a symbolic link changed after the gate judged it" when a write's path holds a
// link; the errno of a write that cannot be opened ("bind W writable into the sandbox").
Result<SandboxedCommand> BwrapCommand(const BwrapSpec& spec, const std::string& program,
                                      const std::vector<std::string>& args);

// Opens PATH (absolute) as an O_PATH descriptor, refusing any symbolic link on the way
// (ELOOP), above fd 2, close-on-exec.
Result<UniqueFd> OpenWithoutLinks(const std::string& path);

}  // namespace hangar
