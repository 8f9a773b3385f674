// The last step before a drone (or a done-check) runs: hangar-confine, executed inside the
// sandbox, makes sure the process holds no capability and cannot gain one, and narrows the system
// calls it may make; then it executes the drone. It runs after bubblewrap built the sandbox and
// before the drone's first instruction, so nothing the drone does can come before it. Its steps
// are launch/confined_exec.h's, which the supervisor's child for a drone of engine "namespaces"
// takes itself, without executing it.
//
// Why a check after bubblewrap: bwrap started by root keeps every capability unless told
// otherwise; hangar tells it (--unshare-user --cap-drop ALL), and this check refuses to run the
// drone should any capability remain all the same (an older or patched bwrap, a configuration that
// drops the flags, an engine launcher that runs the plan another way). A drone holding
// CAP_SYS_ADMIN could unmount the hiding tmpfs and remount / writable.
//
// The filter (seccomp, built with libseccomp): in every mode, io_uring_setup fails with ENOSYS
// (io_uring performs socket, connect and file operations that no system-call filter sees); with
// network "none", socket(AF_UNIX, ...) fails with EACCES, so no filesystem unix socket of the host
// (docker.sock, a D-Bus bus, an ssh-agent) can be reached, though a read-only bind would still
// allow connect(2). socketpair(2) stays allowed: pipes between a drone's own processes use it.
// In every mode, no setuid or setgid bit is set on a file (chmod and its kin, and the mode of a
// file created: EPERM): a drone of a hangard run as root, without drone_user, owns its files as
// uid 0 on the host.
// A foreign architecture's system call (32-bit int 0x80, x32) kills the process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace hangar {

// The five capability sets of a process (bit N = capability N).
struct CapabilitySets {
  uint64_t effective = 0, permitted = 0, inheritable = 0, bounding = 0, ambient = 0;
};

// This process's capability sets (capget(2), PR_CAPBSET_READ, PR_CAP_AMBIENT_IS_SET).
CapabilitySets ReadCapabilities();

// Why a process with SETS may not run a drone ("capability 21 is in the effective set
// (CapEff=0000000000200000)"), or nullopt when every set is empty.
std::optional<std::string> CapabilityHeld(const CapabilitySets& sets);

enum class UnixSockets { kAllow, kDeny };

// Sets no_new_privs (so no setuid program can give a capability back), checks that it holds, and
// loads the filter described above. An error message, or "" on success.
std::string LockDown(UnixSockets sockets);

// Network "egress" (kernel/egress.h): starts FORWARDER (socat) as a child that listens on
// 127.0.0.1:PORT and passes each connection to the unix socket SOCKET (hangar's egress proxy,
// outside the sandbox), and returns once it listens (as /proc/net/tcp of this network namespace
// says: no probe connection reaches the proxy). The child dies with this process (PR_SET_PDEATHSIG)
// and is not under the filter LockDown loads after it. An error message, or "".
std::string StartForwarder(int port, const std::string& forwarder, const std::string& socket);

}  // namespace hangar
