// ExitInfo: how a drone ended, as its supervisor (hangar-shim) saw it and wrote it to run/exit.json
// (man/hangar-return.5 describes the file). The kernel reads it; it never asks the drone.
#pragma once

#include <optional>
#include <string>

#include "base/json.h"
#include "base/timefmt.h"

namespace hangar {

struct ExitInfo {
  std::optional<int> rc;      // exit status when the drone exited
  std::optional<int> signal;  // the signal that ended it, when one did
  bool timed_out = false;     // the supervisor's deadline fired
  bool cancelled = false;     // the supervisor was told to stop it (hangar cancel)
  TimeMs started = 0, ended = 0;
  std::string error;  // non-empty when the drone could not be started at all

  json::Value ToJson() const;
  static Result<ExitInfo> FromJson(const json::Value& v);  // strict; Invalid names the field
};

}  // namespace hangar
