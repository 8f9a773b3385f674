// Small adapters over simdjson's DOM for hangar's strict readers. Callers check the element type
// first; these convert without the temporaries that trip g++ 12's dangling-pointer warnings.
#pragma once

#include <simdjson.h>

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

}  // namespace hangar
