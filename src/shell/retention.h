// Which ended missions a purge may take, and when each ended: what `hangar purge --older-than` and
// hangard's retention (man/hangar.conf.5, retention) both go by. A mission ended when its return
// was written (returned/ID/return.json), or its denial or rejection (why.json): that file's
// modification time, else its directory's. Files a person touched since count as later, never
// earlier, so a purge by age never takes a mission sooner than it says.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "env/env.h"
#include "kernel/config.h"
#include "kernel/layout.h"

namespace hangar {

struct EndedMission {
  std::string id;
  Phase phase = Phase::kReturned;
  TimeMs ended = 0;
};

// The missions in the terminal state directories PHASES (returned, denied, rejected), by id
// within each state. A state directory that does not exist has none.
Result<std::vector<EndedMission>> EndedMissions(Env* env, const Layout& l,
                                                const std::vector<Phase>& phases);

// The ids among MISSIONS that ended longer ago than their state's span in R at NOW, oldest first.
std::vector<std::string> Expired(const std::vector<EndedMission>& missions, const Retention& r,
                                 TimeMs now);

}  // namespace hangar
