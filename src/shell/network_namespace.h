// A network namespace with nothing in it but its loopback, up: the network a sandbox of engine
// "namespaces" gives a drone when the network is cut (shell/namespace_sandbox.h), either made by
// the sandbox itself (unshare(2), in its own user namespace) or made ahead by the shim zygote and
// entered by the drone's child before it leaves the host's user namespace (setns(2); root only:
// launch/shim_zygote.h). Making one takes some 0.6 ms on this machine (make bench-sandbox-parts,
// "namespaces" against "namespaces+net0"); entering one made ahead, a few microseconds.
#pragma once

#include <string>

namespace hangar {

// Brings this process's loopback up, as bwrap's --unshare-net does. An error message, or "".
std::string LoopbackUp();

// Makes a network namespace with its loopback up, this process left in the one it was in, and
// returns a close-on-exec descriptor of the new one (a process that enters it by setns(2) is the
// first and only one in it, should the caller give it to one process only). -1 with *WHY when it
// cannot be made (EPERM without CAP_SYS_ADMIN: a user, or a container without it). -2 with *WHY
// when this process could not go back to its own namespace: it is then in the new one, and must
// not go on as if it were not. For a process with one thread (the namespace is the thread's).
int MakeNetworkNamespace(std::string* why);

// Whether this process's network namespace holds no interface but the loopback: what a drone's
// cut network must be. An error message (the interfaces it found, or why it could not list them),
// or "".
std::string OnlyLoopback();

}  // namespace hangar
