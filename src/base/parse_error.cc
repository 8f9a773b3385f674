#include "base/parse_error.h"

namespace hangar {

json::Value ParseError::ToJson() const {
  json::Object o;
  o["field"] = field;
  o["reason"] = reason;
  return o;
}

std::string ParseError::Text() const {
  return field.empty() ? reason : field + ": " + reason;
}

}  // namespace hangar
