// How a mission ended, as `hangar wait` and `hangar logs -f` report it: returned with an outcome,
// denied or rejected.
#pragma once

#include <optional>
#include <string>

#include "base/json.h"
#include "base/status.h"
#include "cli/spool_view.h"

namespace hangar::cli {

struct Ending {
  int exit_code;     // kExitOk when done, kExitNotDone for any other outcome, denied, rejected
  json::Value doc;   // --json: return.json, or {"hangar","id","state","outcome","why"}
  std::string line;  // "ID OUTCOME", "ID denied: FIELD: REASON"
};

// One look at the spool: the ending, nullopt while the mission has not ended, or a read failure.
Result<std::optional<Ending>> LookForEnding(const SpoolView& view, const Layout& l,
                                            const std::string& id);

}  // namespace hangar::cli
