#include "launch/confined_exec.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "shell/landlock.h"

namespace hangar {

int SayConfine(const std::string& line, int rc) {
  const std::string text = "hangar-confine: " + line + "\n";
  (void)!write(2, text.data(), text.size());
  return rc;
}

std::string ParseConfineArgs(int argc, char** argv, ConfineArgs* out) {
  *out = ConfineArgs{};
  // [--sandbox ... --]: the namespaces and mounts (shell/namespace_sandbox.h).
  if (argc > 1 && std::string(argv[1]) == "--sandbox") {
    int at = 2;
    out->sandbox.emplace();
    if (std::string bad = ParseNamespaceSandboxArgs(argc, argv, &at, &*out->sandbox); !bad.empty())
      return bad;
    argv += at - 1;
    argc -= at - 1;
  }
  // [--forward PORT FORWARDER SOCKET]: network "egress" (launch/confine.h, StartForwarder).
  if (argc > 4 && std::string(argv[1]) == "--forward") {
    out->forward_port = std::atoi(argv[2]);
    out->forwarder = argv[3];
    out->socket = argv[4];
    argv += 4;
    argc -= 4;
    if (out->forward_port < 1 || out->forward_port > 65535 || out->forwarder[0] != '/')
      return "--forward: expected PORT FORWARDER SOCKET, the forwarder an absolute path";
  }
  // [--landlock FD]: the ruleset that keeps hidden paths unreadable (shell/landlock.h).
  if (argc > 2 && std::string(argv[1]) == "--landlock") {
    out->landlock = std::atoi(argv[2]);
    argv += 2;
    argc -= 2;
    if (out->landlock < 3) return "--landlock: expected a descriptor above 2";
  }
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc < 3 || (mode != "unix-deny" && mode != "unix-allow"))
    return "usage: hangar-confine [--sandbox SANDBOX... --] [--forward PORT FORWARDER SOCKET] "
           "[--landlock FD] unix-deny|unix-allow PROGRAM [ARG...]";
  out->sockets = mode == "unix-deny" ? UnixSockets::kDeny : UnixSockets::kAllow;
  out->argv.assign(argv + 2, argv + argc);
  return "";
}

int RunConfined(const ConfineArgs& a, char* const envp[]) {
  const std::string& program = a.argv.front();
  std::vector<char*> argv;  // made before the filter, as everything it needs
  for (const std::string& s : a.argv) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  // Not for the forwarder nor the drone.
  if (a.landlock >= 0) (void)fcntl(a.landlock, F_SETFD, FD_CLOEXEC);
  // Returns in the drone's process, inside the sandbox, every capability dropped.
  if (a.sandbox)
    if (std::string why = EnterNamespaceSandbox(*a.sandbox); !why.empty())
      return SayConfine("refusing to run " + program + ": cannot make its sandbox: " + why, 126);
  // The forwarder runs outside the filter, a child of what becomes the drone: only Landlock, which
  // forbids ptrace of a less restricted process, keeps the drone from driving it.
  if (a.forward_port && a.landlock < 0)
    return SayConfine(
        "refusing to run " + program +
            ": network \"egress\" needs --landlock (without it the drone could ptrace the "
            "forwarder, which the system-call filter does not bind)",
        126);
  if (std::optional<std::string> held = CapabilityHeld(ReadCapabilities()))
    return SayConfine("refusing to run " + program + ": " + *held, 126);
  if (a.forward_port) {
    const std::string started = StartForwarder(a.forward_port, a.forwarder, a.socket);
    if (!started.empty()) return SayConfine("refusing to run " + program + ": " + started, 126);
  }
  if (a.landlock >= 0) {
    const std::string why = EnterRuleset(a.landlock);
    if (!why.empty())
      return SayConfine("refusing to run " + program + ": cannot hide paths: " + why, 126);
    close(a.landlock);  // the drone has no use for it
  }
  const std::string locked = LockDown(a.sockets);
  if (!locked.empty()) return SayConfine("refusing to run " + program + ": " + locked, 126);
  // Made before the launch's go: the drone's program runs only on the supervisor's word.
  if (a.go >= 0) {
    char word = 0;
    ssize_t n;
    do n = read(a.go, &word, 1);
    while (n < 0 && errno == EINTR);
    close(a.go);
    if (n != 1)
      return SayConfine("not running " + program + ": its launch was withdrawn before its go", 126);
  }
  execve(program.c_str(), argv.data(), envp);
  return SayConfine("cannot execute " + program + ": " + std::strerror(errno), 127);
}

}  // namespace hangar
