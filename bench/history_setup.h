// What the benchmarks that decide and record a history through the kernel
// (replay/record_harness.h) start from: a setup with one "script" profile, four slots and root
// as the only approver, as a start line records it. Header only; benchmarks only.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernel/kernel.h"
#include "kernel/setup_record.h"

namespace hangar::bench {

inline SetupFacts HistoryFacts(const std::string& spool) {
  SetupFacts f;
  f.config_file = spool + "/hangar.conf";
  f.config_text =
      R"({"hangar":1,"slots":4,"profiles":{"script":{"argv":["{bindir}/drone","{room}"]}}})";
  f.spool = spool;
  f.bindir = "/b";
  f.home = "/";
  f.bwrap = "/usr/bin/bwrap";
  f.approvers = {0};
  return f;
}

// One mission's life as its four signals, each a millisecond after the last from *NOW: dropped by
// BY (requester "bench", profile "script"), launched, its drone ended with RC, observed as OBS.
inline std::vector<Signal> MissionLife(const std::string& id, const Dropper& by, int rc,
                                       const Observation& obs, TimeMs* now) {
  const std::string bytes = "{\"hangar\":1,\"id\":\"" + id +
                            "\",\"requester\":\"bench\",\"drone\":\"script\",\"future\":\"a "
                            "report\",\"now\":\"nothing yet\",\"max_minutes\":5}";
  ExitInfo e;
  e.rc = rc;
  std::vector<Signal> life;
  life.emplace_back(Dropped{id + ".json", bytes, "", ++*now, {}, by});
  life.emplace_back(LaunchDone{id, true, false, true, "", ++*now});
  life.emplace_back(DroneExited{id, e, ++*now});
  life.emplace_back(Observed{id, obs, ++*now});
  return life;
}

// Prints "PROGRAM: WHAT: why" on stderr; returns 1, the exit status.
inline int Fail(const char* program, const std::string& what, const Status& s) {
  std::fprintf(stderr, "%s: %s: %s\n", program, what.c_str(), s.message().c_str());
  return 1;
}

}  // namespace hangar::bench
