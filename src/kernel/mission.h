// Mission format v1 (man/hangar-mission.5): what a requester asks for. Parsing is pure and strict:
// an unknown field, a wrong type, a missing required field, a bad id, more than 1 MiB or invalid
// UTF-8 is a ParseError naming the field and the reason. Same bytes, same result.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/id.h"
#include "base/json.h"
#include "base/parse_error.h"
#include "kernel/egress.h"

namespace hangar {

inline constexpr size_t kMaxMissionBytes = 1 << 20;  // 1 MiB
inline constexpr double kMaxMinutes = 1440;
inline constexpr size_t kMaxMissionWrites = 64;

struct DoneCheck {
  enum class Kind { kFile, kRun, kChanged };
  Kind kind = Kind::kFile;
  std::string file;               // kFile: relative path inside the room, no "..", no leading "/"
  std::vector<std::string> argv;  // kRun: argv run in the room
  int rc = 0;                     // kRun: expected exit status
  // kRun: killed after this many milliseconds. The file says seconds (timeout_s, 1..3600).
  int64_t timeout_ms = 60000;
  // kChanged (a workspace mission only): the change hangar computed stays within max_files files
  // (-1: any number) and every path it touches (both sides of a rename) matches one of `paths`,
  // fnmatch(3) globs without FNM_PATHNAME ("src/*" covers all below src/); empty: any path.
  int64_t max_files = -1;
  std::vector<std::string> paths;
  json::Value ToJson() const;
};

// The repository a mission's room starts as a checkout of (man/hangar-mission.5, WORKSPACE).
struct Workspace {
  std::string git;           // absolute: a work tree's top (holding .git/) or a bare repository
  std::string ref = "HEAD";  // a branch, tag or commit; the shell resolves it once, at intake
};

struct Mission {
  std::string id;  // empty when the file gave none; the kernel assigns one at intake
  std::string requester, drone, future, now;
  std::vector<std::string> constraints, acts, ops;
  // Paths outside the room the drone asks to write (existing files or directories, bound
  // read-write into its sandbox): absolute, or "~" / "~/..." (hangard's home). Judged by the gate
  // against protected paths after normalisation and symlink resolution.
  std::vector<std::string> writes;
  std::vector<DoneCheck> done_when;
  // "none" (no network), "egress" (only through hangar's proxy, to the profile's and these
  // destinations: kernel/egress.h) or "host" (the host's network).
  std::string network = "none";
  bool network_given = false;       // the file says; else the profile's default (plan.h)
  std::vector<Destination> egress;  // network "egress" only; in the mission's order, unique
  double max_minutes = 0;
  std::optional<std::string> notify_dir;
  std::optional<Workspace> workspace;

  int64_t deadline_ms() const { return int64_t(max_minutes * 60000.0 + 0.5); }
};

using MissionOrError = std::variant<Mission, ParseError>;

MissionOrError ParseMission(std::string_view bytes);

}  // namespace hangar
