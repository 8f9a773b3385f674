// Sandbox engine "namespaces": the sandbox hangar-confine makes itself from Linux namespaces, in
// place of bubblewrap (man/hangard.8, SANDBOX), with the same shape as the bwrap command line
// shell/bwrap_command.h writes, so that every guarantee the sandbox tests check holds for both:
//
//   user, mount, IPC and PID namespaces of its own, and a network namespace when the network is
//   cut (its loopback up; made here, or made ahead for this drone alone and entered before:
//   network_entered); the caller's uid and gid mapped to themselves; no nested user
//   namespace (max_user_namespaces 0 in its own)
//   the machine read-only, nosuid and nodev: one recursive mount_setattr(2) on a tree made
//   private (no device node opens outside the sandbox's own /dev)
//   a /dev of its own as bwrap's --dev makes it (null, zero, full, random, urandom and tty bound
//   from the host, read-only: a root-run drone owns them, and chmod 000 /dev/null would break the
//   machine; a devpts instance, the standard links), read-only but for /dev/pts and the
//   capped /dev/shm tmpfs; a /proc of the new PID namespace, /proc/sys, sysrq-trigger, irq and
//   bus read-only; both made before the hidden paths, as bwrap's argv orders them, so that a
//   hidden path beneath them is hidden (those under /proc by PID 1, which mounts it)
//   each hidden directory under an empty tmpfs, each hidden file under /dev/null (nodev: it does
//   not open), both read-only
//   the room (read-only for a done-check), each write and the last-message file bound at their
//   own paths, cloned by path (open_tree(2)) before anything covers them, and refused when the
//   clone is not the very file the caller opened before it ran this program (device and inode
//   against the descriptor it inherited): a path swapped for another in between is not bound;
//   the inherited descriptors are closed then (opened on the host's mounts, their ".." leads out
//   of every cover); the egress socket bound read-only (connect(2) needs no write to the mount)
//
// Called by hangar-confine, or by the supervisor's child for the drone, which takes
// hangar-confine's steps without executing it (launch/confined_exec.h): a process with one thread
// either way.
//
// Processes: this one (the caller, left in the host's PID namespace) waits for the namespace's
// first process and exits with its status; that one (PID 1) mounts /proc, starts the drone's
// process, reaps every orphan, and exits with the drone's status (128 + N when signal N ended
// it) once the drone's process is gone, which ends every process left in the namespace. It dies
// with this one (PR_SET_PDEATHSIG). Once each has forked its child, both drop every
// capability, leave the room for / and become undumpable: a drone that reached PID 1 finds no
// right over the mounts. SIGTERM and SIGINT are ignored by both, so that a TERM to the drone's
// whole process group reaches the drone only; the drone's process starts with them at their
// default.
//
// Why not bubblewrap: the same sandbox made here takes half the time of bwrap and hangar-confine
// together a launch (make bench-stages, bench-sandbox): no second program, no pivot into a new
// root, one mount_setattr instead of a remount per mount, no re-reading of /proc/self/mountinfo
// after each mount.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hangar {

struct NamespaceSandbox {
  struct Bind {
    int fd = -1;  // the file the caller opened (O_PATH), inherited
    std::string path;
    bool writable = true;
    // Where the file may still be while the sandbox is made (writable only): a last-message file
    // in the run directory of a mission not moved to running/ yet (launch/supervisor.h,
    // RunShimBegun). Tried first, then PATH; either way it must be the file FD names. "" none.
    std::string before;
    bool operator==(const Bind&) const = default;
  };
  bool cut_network = true;
  // The network cut already: this process entered, before it left the host's user namespace, a
  // network namespace made for it alone with its loopback up (shell/network_namespace.h; the shim
  // zygote makes them ahead, launch/shim_zygote.h). None is made here; the one entered is refused
  // unless it holds no interface but the loopback. Not on hangar-confine's command line: only the
  // supervisor's child for the drone, which enters it, sets it.
  bool network_entered = false;
  int64_t shm_bytes = 0;                // /dev/shm a tmpfs of this size; 0: a read-only directory
  std::vector<std::string> hide_dirs;   // each under an empty read-only tmpfs
  std::vector<std::string> hide_files;  // each under /dev/null, read-only
  std::vector<Bind> binds;              // in order: a later one may lie inside an earlier one
  std::string socket;                   // bound at its own path, writable ("": none)
  std::string chdir;                    // the drone's working directory (the room)
};

// The argv that says SPEC to hangar-confine (launch/confine_main.cc), after "--sandbox":
//   [--share-net] [--shm BYTES] [--hide-dir D]... [--hide-file F]...
//   [--bind FD PATH | --ro-bind FD PATH | --bind-moving FD BEFORE PATH]... [--socket PATH]
//   --chdir DIR --
std::vector<std::string> NamespaceSandboxArgs(const NamespaceSandbox& spec);

// Reads what NamespaceSandboxArgs wrote from ARGV at *AT (just past "--sandbox") up to and past
// its "--", leaving *AT at the next argument. A usage error's message, or "".
std::string ParseNamespaceSandboxArgs(int argc, char** argv, int* at, NamespaceSandbox* spec);

// One step of EnterNamespaceSandbox, inside its mount namespace once the binds beneath them are
// made: the empty tmpfs covering each hidden directory in COVERED made read-only. An error
// message, or "". A directory removed on the host since it was covered (a user's home deleted
// while a launch starts) took its cover with it (the kernel detaches a mount whose mount point is
// removed in another namespace) and has nothing to read: it is passed over, as a hidden path gone
// before it was covered is, and what appears there later is no more hidden than anything made
// after the sandbox. (Its parent renamed away on the host, the cover stays where it went, still
// hiding, and writable: its tmpfs is this namespace's own, and reaches no disk.)
std::string ReadOnlyCovers(const std::vector<std::string>& covered);

// Makes the sandbox. Returns only in the drone's process, inside it, with every capability still
// held in its user namespace (hangar-confine drops them and checks), or in this process with the
// reason it could not be made ("" on success). The other processes exit as said above.
std::string EnterNamespaceSandbox(const NamespaceSandbox& spec);

// Why this host would refuse the sandbox to a drone of UID and GID (-1: this process's own), or ""
// when it makes one: a child, of that user, unshares a user and a mount namespace and makes its
// tree read-only by mount_setattr(2), as EnterNamespaceSandbox does first. hangard asks at start
// for each profile of engine "namespaces" and warns (a user namespace disallowed to users, a
// kernel before 5.12), rather than let each launch fail alone. It waits 5 s at most: once the
// child runs as that user, any process of that user could stop it.
std::string NamespaceSandboxUnavailable(int64_t uid, int64_t gid);

// Every capability gone from this process: the bounding, ambient, inheritable, permitted and
// effective sets. An error message, or "".
std::string DropAllCapabilities();

}  // namespace hangar
