// Layout: where things live in a spool (man/hangar-spool.5). Pure path arithmetic; creates nothing.
// The one place a spool path is spelt: the kernel names its observations' and plans' places with
// it, the shell and the CLI find files with it.
#pragma once

#include <string>
#include <vector>

#include "kernel/phase.h"
#include "kernel/plan.h"

namespace hangar {

struct Layout {
  std::string spool;  // absolute
  std::string rooms;  // absolute

  // Rooms default to <spool>/rooms; a relative rooms path is taken from the spool.
  static Layout Make(const std::string& spool, const std::string& rooms_setting);

  std::string IncomingTmp() const { return spool + "/incoming/tmp"; }
  std::string IncomingNew() const { return spool + "/incoming/new"; }
  std::string ControlTmp() const { return spool + "/control/tmp"; }
  std::string ControlNew() const { return spool + "/control/new"; }
  std::string ControlBad() const { return spool + "/control/bad"; }
  std::string ControlDone() const { return spool + "/control/done"; }  // hangard's answers
  std::string Keys() const { return spool + "/keys"; }
  // Requesters' work states (man/hangar-memory.5): memory/REQUESTER/vN.json.
  std::string Memory() const { return spool + "/memory"; }
  std::string MemoryOf(const std::string& requester) const { return Memory() + "/" + requester; }
  static std::string MemoryName(int64_t version) { return "v" + std::to_string(version) + ".json"; }
  std::string Notify() const { return spool + "/notify"; }
  // Purged missions' tombstones (man/hangar-spool.5 "PURGE"): purged/ID.json; purged/.trash/ID is
  // a mission directory on its way out.
  std::string Purged() const { return spool + "/purged"; }
  std::string Tombstone(const std::string& id) const { return Purged() + "/" + id + ".json"; }
  std::string PurgeTrash() const { return Purged() + "/.trash"; }
  std::string LockFile() const {
    return spool + "/hangard.lock";
  }  // flock held by the live hangard
  std::string StatusFile() const {
    return spool + "/hangard.json";
  }  // what the live hangard says of itself
  std::string StateDir(Phase p) const { return spool + "/" + std::string(PhaseName(p)); }
  std::string MissionDir(Phase p, const std::string& id) const { return StateDir(p) + "/" + id; }
  std::string Room(const std::string& id) const { return rooms + "/" + id; }
  // The run directory of a launched mission: lock, shim.json, exit.json, stdout, stderr, prompt.
  std::string RunDir(const std::string& id) const {
    return MissionDir(Phase::kRunning, id) + "/run";
  }
  // The window's record of a running mission's op requests and answers (keys/, requests).
  std::string MissionOps(const std::string& id) const {
    return MissionDir(Phase::kRunning, id) + "/ops";
  }
  // Where a drone asks the window: ops/ in its room.
  std::string RoomOps(const std::string& id) const { return Room(id) + "/ops"; }
  std::string LaunchKey(const std::string& id, int attempt) const {
    return Keys() + "/" + LaunchKeyName(id, attempt);
  }

  // Every directory a spool has; hangard creates the missing ones at start.
  std::vector<std::string> AllDirs() const;
};

// The default config file of a spool: <spool>/hangar.conf.
inline std::string DefaultConfigPath(const std::string& spool) {
  return spool + "/hangar.conf";
}

}  // namespace hangar
