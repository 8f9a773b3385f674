// SpoolView: the CLI's read-only view of a spool (docs/ARCHITECTURE.md). It finds a mission by id
// across the state directories and the drops still waiting in incoming/new, lists missions with
// what their files say, and counts. It writes nothing and takes no lock: the kernel moves missions
// while we look, so every answer is a snapshot and a file that vanishes between two calls is
// treated as absent, never as an error.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "base/timefmt.h"
#include "env/env.h"
#include "kernel/layout.h"
#include "kernel/phase.h"

namespace hangar::cli {

inline constexpr std::string_view kIncoming = "incoming";  // the state name of a drop not yet taken

// Where a mission is: a directory of a state, or a drop file in incoming/new.
struct MissionRef {
  std::string id;
  std::string state;           // a PhaseName, or "incoming"
  std::optional<Phase> phase;  // empty for incoming
  std::string path;            // the mission directory, or the drop file
};

// A mission as `hangar ls` shows it. Empty strings where a file does not say.
struct MissionRow {
  MissionRef ref;
  std::string drone, requester, outcome;
  std::optional<TimeMs> time;  // intake.json "time", else the directory's (or drop's) mtime
  // hold and denied: the ids of the rules behind the gate's verdict (gate2.json's, else
  // gate1.json's); empty otherwise.
  std::vector<std::string> rules;
  // When the drone started (running: launch.json's time; returned: return.json's times.started)
  // and, returned, ended; the reason of a denied or rejected mission ("FIELD: REASON", why.json).
  std::optional<TimeMs> started, ended;
  std::string why;
};

// Every state name `ls` accepts, in lifecycle order: incoming, hold, queued, running, returned,
// denied, rejected.
const std::vector<std::string>& StateNames();

class SpoolView {
 public:
  SpoolView(Env* env, Layout layout) : env_(env), layout_(std::move(layout)) {}

  // Ok when the spool directory can be listed; NotFound/Io otherwise.
  Status CheckReadable() const;

  // Finds id (which must be a valid id) in incoming/new or a state directory.
  std::optional<MissionRef> Locate(const std::string& id) const;
  // Locate, or why not: the spool cannot be read, "no such mission in SPOOL", or the mission was
  // purged (PurgedText) (NotFound).
  Result<MissionRef> Find(const std::string& id) const;
  // "id ID was purged from STATE at TIME (ledger seq N, purged/ID.json); ids are never reused"
  // when purged/ID.json is there, else "". A purged id is taken for good (man/hangar-spool.5).
  std::string PurgedText(const std::string& id) const;

  // The missions of one state ("" = all), sorted by id. A missing state directory is empty.
  std::vector<MissionRef> Refs(const std::string& state) const;
  // What the mission's files say: intake.json (its time; drone and requester when it names them),
  // else mission.json (mission.raw in rejected/, the drop itself in incoming); return.json's
  // outcome; gate2.json's (else gate1.json's) rules in hold/ and denied/.
  MissionRow Describe(const MissionRef& ref) const;
  std::vector<MissionRow> List(const std::string& state) const;

  // Entries per state name (StateNames()), plus "control" (requests waiting in control/new) and
  // "purged" (tombstones in purged/).
  std::map<std::string, int> Counts() const;
  // The mission of a state with the earliest time (ties: the smaller id), if any.
  std::optional<MissionRow> Oldest(Phase p) const;

  bool Exists(const std::string& path) const { return env_->Exists(path); }

  // Reads and parses a JSON file of at most max_bytes. NotFound when absent.
  Result<json::Value> ReadJson(const std::string& path, size_t max_bytes = kMaxSmallFile) const;

  static constexpr size_t kMaxSmallFile = 1 << 20;
  static constexpr size_t kMaxReturnFile = size_t(256) << 20;  // return.json carries the manifest
  // A listing of this many missions or more is read by a few threads: one per core, at most 4
  // (base/parallel.h).
  static constexpr size_t kParallelFrom = 1000;

 private:
  std::vector<std::string> Entries(const std::string& dir) const;  // without dot-names
  std::vector<MissionRef> IncomingRefs() const;
  // Describe, reading below state_dir (ref's state directory, held open) when given, else by path.
  MissionRow Describe(MissionRef ref, Env::Dir* state_dir) const;
  // Describe of each of refs, in their order: each state directory held open once per thread, and
  // a large listing read by a few threads (kParallelFrom).
  std::vector<MissionRow> DescribeAll(std::vector<MissionRef> refs) const;
  std::optional<TimeMs> Mtime(const std::string& path) const;

  Env* env_;
  Layout layout_;
};

// The id a drop in incoming/new will get, as far as the CLI can tell before the kernel takes it:
// the mission's "id" field, else its file name without a trailing ".json".
std::string DropId(const std::string& name, const std::string& bytes);

// The string member key of an object, or "" when v is no object or the member no string.
std::string StringField(const json::Value& v, const std::string& key);

}  // namespace hangar::cli
