// hangard.json (man/hangard.8, FILES; man/hangar-spool.5): what a running hangard says of itself
// for `hangar status` and monitoring — its pid, spool, config, policy, sandbox and limits, who may
// decide, the clock, the ledger, the storage and whether its work goes on. Built here from what
// the daemon knows; written by the daemon (Env::WriteFileAtomic), never read back by it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json.h"
#include "daemon/work_state.h"
#include "kernel/kernel.h"
#include "kernel/layout.h"

namespace hangar {

struct PresenceFacts {
  const KernelSetup& setup;
  const Layout& layout;
  const State& state;
  const WorkState& work;
  std::string config_path;
  int64_t pid = 0;
  TimeMs started = 0, now = 0;
  std::string status;  // "running" or "stopped" (hangard is ending)
  std::string ledger_name, anchor_path;
  bool anchor_same_filesystem = false;
  std::optional<uint64_t> free_bytes;  // on the spool's filesystem; unknown: nullopt
  bool rooms_on_spool_filesystem = false;
  std::vector<std::pair<int64_t, std::string>> approvers;  // uid and login name
};

json::Value PresenceJson(const PresenceFacts& f);

// hangard.json's "canaries": each profile of the config whose definition is not the one proven
// (kernel/canary.h), with its canary's stage ("pending": none launched yet, "running", "failed"),
// why, and how many missions wait on it. The daemon rewrites hangard.json when it changes.
json::Value CanaryPresence(const KernelSetup& setup, const State& state);

}  // namespace hangar
