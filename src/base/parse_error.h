// ParseError: why a document of one of hangar's formats (a mission, a control or op request, a
// config, a policy) was refused — the field, as a path into the document, and what was expected.
// Every format's parser reports it; the CLI and the return files print it as "field: reason".
#pragma once

#include <string>

#include "base/json.h"

namespace hangar {

struct ParseError {
  std::string field;           // "" for the whole document, else a path such as "done_when[1].rc"
  std::string reason;          // what was expected
  json::Value ToJson() const;  // {"field", "reason"}
  std::string Text() const;    // "field: reason" or "reason"
};

}  // namespace hangar
