// Small adapters over simdjson's DOM for hangar's strict readers. Callers check the element type
// first; these convert without the temporaries that trip g++ 12's dangling-pointer warnings.
#pragma once

#include <simdjson.h>

#include "base/json.h"

namespace hangar {

inline simdjson::dom::array AsArray(simdjson::dom::element e) {
  simdjson::dom::array a;
  if (e.get(a) != simdjson::SUCCESS) return simdjson::dom::array();
  return a;
}

inline simdjson::dom::object AsObject(simdjson::dom::element e) {
  simdjson::dom::object o;
  if (e.get(o) != simdjson::SUCCESS) return simdjson::dom::object();
  return o;
}

namespace json {

// The element as a json::Value, whatever it holds (an unsigned integer above INT64_MAX becomes a
// double, as Parse makes it).
Value FromElement(simdjson::dom::element e);

}  // namespace json

}  // namespace hangar
