// Helpers of the kernel's unit tests: a small setup with one "script" profile, and the actions of
// one kind out of a decision. Pure: no disk.
#pragma once

#include <vector>

#include "kernel/kernel.h"

namespace hangar {

// Spool /s, rooms /s/rooms, binaries /b, bubblewrap found, one profile "script" running
// /b/drone, the built-in policy.
inline KernelSetup ScriptSetup(int slots = 1) {
  KernelSetup s;
  s.spool = "/s";
  s.rooms = "/s/rooms";
  s.bindir = "/b";
  s.bwrap = "/usr/bin/bwrap";
  s.config.file = "/s/hangar.conf";
  s.config.slots = slots;
  Profile p;
  p.name = "script";
  p.argv = {"{bindir}/drone"};
  s.config.profiles["script"] = p;
  return s;
}

// The actions of type T among acts, in order.
template <typename T>
std::vector<T> Only(const std::vector<Action>& acts) {
  std::vector<T> out;
  for (const Action& a : acts)
    if (auto* x = std::get_if<T>(&a)) out.push_back(*x);
  return out;
}

}  // namespace hangar
