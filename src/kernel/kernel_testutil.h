// Helpers of the kernel's unit tests: a setup with one "script" profile, the actions of one kind,
// and a parsed mission file. Header only: tests include it; nothing in the product does.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/kernel.h"

namespace hangar {

// A kernel on /s with rooms /s/rooms, one profile "script" running {bindir}/drone, bwrap found.
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
  s.approvers = {0};
  return s;
}

// A valid mission file of profile "script" with id ID (requester "t", one minute), EXTRA members
// appended (",\"network\":\"host\"").
inline std::string ScriptMissionBytes(const std::string& id, const std::string& extra = "") {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1" +
         extra + "}";
}

// Who drops the tests' control requests and missions: root, an approver in ScriptSetup.
inline const Dropper kRoot{0, "root"};

// The actions of type T among acts, in order.
template <typename T>
std::vector<T> Only(const std::vector<Action>& acts) {
  std::vector<T> out;
  for (const Action& a : acts)
    if (auto* x = std::get_if<T>(&a)) out.push_back(*x);
  return out;
}

// The handler of op OP, asked for under KEY by request NAME of mission ID, ran and exited RC.
inline OpFinished OpRan(const std::string& id, const std::string& name, const std::string& op,
                        const std::string& key, int rc, TimeMs now) {
  OpFinished f;
  f.id = id;
  f.name = name;
  f.op = op;
  f.key = key;
  f.started = true;
  f.rc = rc;
  f.now = now;
  return f;
}

// text parsed; a failure is the test's.
inline json::Value Json(const std::string& text) {
  Result<json::Value> v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? v.value() : json::Value();
}

}  // namespace hangar
