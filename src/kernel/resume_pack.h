// The resume pack (man/hangar-memory.5, RESUME PACK): what a new session of a requesting AI reads
// first. Built afresh from the ledger and the spool each time, never from an earlier pack, and
// deterministic: the same facts give the same bytes (times are the ledger's, ages are measured to
// the ledger's head, not to the clock). Three parts, kept apart:
//   CONFLICTS  every claim of the latest work state that what hangar recorded contradicts;
//   OBSERVED   what hangar recorded of the requester: its missions by state, held ones and why,
//              grants in force, the latest signed checkpoint, what changed since the work state;
//   CLAIMED    the work state's sections quoted as the previous session's words (Next and
//              Unresolved first), with its version, time and author as the ledger says.
// Each part has a fixed share of the budget; what does not fit is cut at a line and the cut is
// said with its size and the command that shows it whole, never silently.
// Pure: the CLI gathers the facts (cli/resume_cmd.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/timefmt.h"
#include "kernel/grants.h"
#include "kernel/requester_memory.h"

namespace hangar {

// A mission of the requester as the ledger has it.
struct PackMission {
  std::string id;
  std::string state;               // hold, queued, running, returned, denied
  std::string outcome;             // returned: its outcome
  TimeMs accepted = 0;             // its intake entry's time
  std::optional<TimeMs> deadline;  // running: launch time + max_minutes
  std::string why;                 // hold, denied: the gate's or the person's reason
  bool approved = false;           // a person.approved entry names it
  bool room = false;               // its room exists (a Restore may need it)
  int64_t seq = 0;                 // the latest entry about it
};

// A version of the work state, as its memory.stored entry says.
struct PackVersion {
  int64_t version = 0, seq = 0;
  TimeMs time = 0;
  std::string sha256, user;
  int64_t uid = -1;
};

struct PackFacts {
  std::string requester;
  int64_t head_seq = 0;
  TimeMs head_time = 0;
  std::string kernel;                 // "running", "not running", "failed closed: WHY"
  std::string checkpoint;             // the latest signed checkpoint, one line; "" when none
  std::vector<PackMission> missions;  // the requester's, in intake order
  std::vector<Grant> grants;          // in force at head_time, for the requester or its missions
  std::vector<std::string> since;     // what the ledger says after the latest version, a line each
  std::vector<PackVersion> versions;  // in order
  std::optional<RequesterMemory> latest;  // the latest version's work state, when it could be read
  std::string latest_problem;             // why it could not be trusted or read ("" when fine)
  // For the references: every mission id the ledger names (any requester's), the kind of each
  // entry a reference cites, whether a cited grant was ever granted or revoked, and which cited
  // paths exist.
  std::set<std::string> known_missions;
  std::map<int64_t, std::string> cited_kinds;
  std::map<std::string, int64_t> grant_revoked;  // MemoryRef::Text() of a grant -> revoking seq
  std::set<std::string> paths_present;
};

struct PackConflict {
  std::string ref;  // the reference, as MemoryRef::Text()
  std::string what;
  json::Value ToJson() const { return json::Object{{"ref", ref}, {"what", what}}; }
};

struct ResumePack {
  std::string text;
  std::vector<PackConflict> conflicts;
};

inline constexpr size_t kDefaultPackBytes = 6000;
inline constexpr size_t kMinPackBytes = 1500;  // the header and the cut notices need this much

// Every claim of the latest work state that the facts contradict, in refs order.
std::vector<PackConflict> FindConflicts(const PackFacts& f);
// How a line of the pack is shown: the CLI's escaping of terminal controls (cli/output.h
// Printable), applied to every line before the budget counts it.
using ShowLine = std::function<std::string(std::string_view)>;
// The pack, at most max_bytes (>= kMinPackBytes) of text.
ResumePack BuildResumePack(const PackFacts& f, size_t max_bytes, const ShowLine& show);
// The same facts and conflicts as JSON, whole (no budget): `hangar resume --json`.
json::Value ResumePackJson(const PackFacts& f);

}  // namespace hangar
