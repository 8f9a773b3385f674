// A small JSON object file of the spool, read whole.
#pragma once

#include <string>

#include "base/json.h"
#include "base/status.h"
#include "env/env.h"

namespace hangar {

// The JSON object in PATH (at most MAX bytes). Invalid, naming PATH, when it does not parse or is
// no object (an empty file, as a power loss can leave one); the read's own error otherwise.
Result<json::Value> ReadObject(Env* env, const std::string& path, size_t max);

}  // namespace hangar
