// hangar-confine's work, from its arguments to the drone's execve (launch/confine.h,
// shell/namespace_sandbox.h), in whichever process does it:
//   - hangar-confine itself (launch/confine_main.cc): inside bwrap's sandbox, or making the
//     sandbox of engine "namespaces"; and every done-check;
//   - the supervisor's child for the drone, with engine "namespaces" (launch/drone_exec.h): it goes
//     on from the fork instead of executing hangar-confine. The same arguments, parsed by the same
//     code, the same steps; what the exec saved is glibc's start in a new program, 0.6 ms of CPU a
//     launch on this machine's VM (`perf record` of hangar-confine: three quarters of it in glibc's
//     cache probes, cpuid instructions that trap to the hypervisor; make bench-stages).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launch/confine.h"
#include "shell/namespace_sandbox.h"

namespace hangar {

// hangar-confine's command line, read:
//   [--sandbox SANDBOX... --] [--forward PORT FORWARDER SOCKET] [--landlock FD]
//   unix-deny|unix-allow PROGRAM [ARG...]
struct ConfineArgs {
  std::optional<NamespaceSandbox> sandbox;  // engine "namespaces": made first, here
  int forward_port = 0;                     // network "egress": 0 none
  std::string forwarder, socket;
  int landlock = -1;  // the Landlock ruleset's descriptor (shell/landlock.h), -1 none
  UnixSockets sockets = UnixSockets::kDeny;
  std::vector<std::string> argv;  // PROGRAM, then its ARGs
  // Not from the command line: a descriptor the supervisor's own child (launch/drone_exec.h) reads
  // one byte from once everything else is done, just before the execve: its word that the
  // launch's records are durable (launch/supervisor.h, RunShimBegun). -1: none.
  int go = -1;
};

// Reads ARGV (ARGV[0] is hangar-confine's own name) into *OUT. "" on success, or the usage error
// (hangar-confine exits 64 with it).
std::string ParseConfineArgs(int argc, char** argv, ConfineArgs* out);

// Writes "hangar-confine: LINE" to stderr, and returns RC: how hangar-confine says why it stops.
int SayConfine(const std::string& line, int rc);

// Makes the sandbox (with args.sandbox), refuses to go on while any capability remains, starts the
// forwarder, enters the Landlock ruleset and closes it, sets no_new_privs and loads the
// system-call filter, waits for the word on args.go (when given), then execve(PROGRAM, argv,
// ENVP). Without the word (the pipe's other end closed) it returns 126, PROGRAM not executed.
// Returns only when PROGRAM does not run: 126
// when it was refused, 127 when it could not be executed, with
// "hangar-confine: refusing to run PROGRAM: REASON" (or "cannot execute") written to stderr.
// The sandbox's other processes (shell/namespace_sandbox.h) exit in it and never return.
int RunConfined(const ConfineArgs& args, char* const envp[]);

}  // namespace hangar
