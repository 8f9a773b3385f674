// hangar-confine [--sandbox SANDBOX... --] [--forward PORT FORWARDER SOCKET] [--landlock FD]
// SOCKETS PROGRAM [ARG...]: the last step inside the sandbox before the drone or a done-check runs
// (launch/confine.h). With --sandbox (engine "namespaces"), it makes that sandbox first, itself
// (shell/namespace_sandbox.h: SANDBOX is what NamespaceSandboxArgs writes). SOCKETS
// is "unix-deny" (network "none") or "unix-allow". Refuses to run PROGRAM while any capability
// remains; with --landlock, enters the Landlock ruleset FD (shell/landlock.h: hidden paths stay
// unreadable) and closes it; sets no_new_privs, loads the system-call filter, then executes
// PROGRAM with ARGs (argv[0] = PROGRAM) and the environment it was given. Exit 126 with
// "hangar-confine: refusing to run PROGRAM: REASON" on stderr when it does not run it; 127 when
// PROGRAM cannot be executed; 64 on a usage error.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "kernel/version.h"
#include "launch/confine.h"
#include "shell/landlock.h"
#include "shell/namespace_sandbox.h"

namespace {

int Say(const std::string& line, int rc) {
  const std::string text = "hangar-confine: " + line + "\n";
  (void)!write(2, text.data(), text.size());
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--version")
    return std::puts(hangar::VersionLine("hangar-confine").c_str()) < 0;
  // [--sandbox ... --]: the namespaces and mounts, made below once the rest is read.
  std::optional<hangar::NamespaceSandbox> sandbox;
  if (argc > 1 && std::string(argv[1]) == "--sandbox") {
    int at = 2;
    sandbox.emplace();
    if (std::string bad = hangar::ParseNamespaceSandboxArgs(argc, argv, &at, &*sandbox);
        !bad.empty())
      return Say(bad, 64);
    argv += at - 1;
    argc -= at - 1;
  }
  // [--forward PORT FORWARDER SOCKET]: network "egress" (launch/confine.h, StartForwarder).
  int forward_port = 0;
  std::string forwarder, socket;
  if (argc > 4 && std::string(argv[1]) == "--forward") {
    forward_port = std::atoi(argv[2]);
    forwarder = argv[3];
    socket = argv[4];
    argv += 4;
    argc -= 4;
    if (forward_port < 1 || forward_port > 65535 || forwarder[0] != '/')
      return Say("--forward: expected PORT FORWARDER SOCKET, the forwarder an absolute path", 64);
  }
  // [--landlock FD]: the ruleset that keeps hidden paths unreadable (shell/landlock.h).
  int landlock = -1;
  if (argc > 2 && std::string(argv[1]) == "--landlock") {
    landlock = std::atoi(argv[2]);
    argv += 2;
    argc -= 2;
    if (landlock < 3) return Say("--landlock: expected a descriptor above 2", 64);
    (void)fcntl(landlock, F_SETFD, FD_CLOEXEC);  // not for the forwarder nor the drone
  }
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc < 3 || (mode != "unix-deny" && mode != "unix-allow"))
    return Say(
        "usage: hangar-confine [--sandbox SANDBOX... --] [--forward PORT FORWARDER SOCKET] "
        "[--landlock FD] "
        "unix-deny|unix-allow PROGRAM [ARG...]",
        64);
  const std::string program = argv[2];
  // Returns in the drone's process, inside the sandbox, every capability dropped.
  if (sandbox)
    if (std::string why = hangar::EnterNamespaceSandbox(*sandbox); !why.empty())
      return Say("refusing to run " + program + ": cannot make its sandbox: " + why, 126);
  // The forwarder runs outside the filter, a child of what becomes the drone: only Landlock, which
  // forbids ptrace of a less restricted process, keeps the drone from driving it.
  if (forward_port && landlock < 0)
    return Say("refusing to run " + program +
                   ": network \"egress\" needs --landlock (without it the drone could ptrace the "
                   "forwarder, which the system-call filter does not bind)",
               126);
  if (std::optional<std::string> held = hangar::CapabilityHeld(hangar::ReadCapabilities()))
    return Say("refusing to run " + program + ": " + *held, 126);
  if (forward_port) {
    const std::string started = hangar::StartForwarder(forward_port, forwarder, socket);
    if (!started.empty()) return Say("refusing to run " + program + ": " + started, 126);
  }
  if (landlock >= 0) {
    const std::string why = hangar::EnterRuleset(landlock);
    if (!why.empty()) return Say("refusing to run " + program + ": cannot hide paths: " + why, 126);
    close(landlock);  // the drone has no use for it
  }
  const std::string locked = hangar::LockDown(mode == "unix-deny" ? hangar::UnixSockets::kDeny
                                                                  : hangar::UnixSockets::kAllow);
  if (!locked.empty()) return Say("refusing to run " + program + ": " + locked, 126);
  execv(program.c_str(), argv + 2);
  return Say("cannot execute " + program + ": " + std::strerror(errno), 127);
}
