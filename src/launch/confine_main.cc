// hangar-confine [--sandbox SANDBOX... --] [--forward PORT FORWARDER SOCKET] [--landlock FD]
// SOCKETS PROGRAM [ARG...]: the last step inside the sandbox before the drone or a done-check runs
// (launch/confine.h). With --sandbox (engine "namespaces"), it makes that sandbox first, itself
// (shell/namespace_sandbox.h: SANDBOX is what NamespaceSandboxArgs writes). SOCKETS
// is "unix-deny" (network "none") or "unix-allow". Refuses to run PROGRAM while any capability
// remains; with --landlock, enters the Landlock ruleset FD (shell/landlock.h: hidden paths stay
// unreadable) and closes it; sets no_new_privs, loads the system-call filter, then executes
// PROGRAM with ARGs (argv[0] = PROGRAM) and the environment it was given. Exit 126 with
// "hangar-confine: refusing to run PROGRAM: REASON" on stderr when it does not run it; 127 when
// PROGRAM cannot be executed; 64 on a usage error. The steps are launch/confined_exec.h's, which a
// supervisor's child for a drone of engine "namespaces" takes without executing this program.
#include <unistd.h>  // environ

#include <cstdio>
#include <string>

#include "kernel/version.h"
#include "launch/confined_exec.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--version")
    return std::puts(hangar::VersionLine("hangar-confine").c_str()) < 0;
  hangar::ConfineArgs args;
  if (std::string bad = hangar::ParseConfineArgs(argc, argv, &args); !bad.empty())
    return hangar::SayConfine(bad, 64);
  return hangar::RunConfined(args, environ);
}
