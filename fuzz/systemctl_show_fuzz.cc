// ParseSystemctlShow (launch/systemd_unit.h): what `systemctl show -p ... UNIT...` printed. The
// first line of the input names the units asked for (separated by spaces), the rest is
// systemctl's output. Promises checked: one report per unit asked for, each with its unit's
// exact name.
#include <string>
#include <vector>

#include "fuzz.h"
#include "launch/systemd_unit.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [names, text] = fuzz::FirstLine(fuzz::Bytes(data, size));
  std::vector<std::string> units;
  for (size_t at = 0; at <= names.size();) {
    size_t sp = names.find(' ', at);
    if (sp == std::string_view::npos) sp = names.size();
    if (sp > at) units.emplace_back(names.substr(at, sp - at));
    at = sp + 1;
  }
  Result<std::vector<EngineReport>> r = ParseSystemctlShow(text, units);
  if (!r.ok()) {
    FUZZ_CHECK(r.status().code() == Code::kInvalid);
    return 0;
  }
  FUZZ_CHECK(r->size() == units.size());
  for (size_t i = 0; i < units.size(); i++) {
    (void)EngineStateName((*r)[i].state);
    if ((*r)[i].state != EngineReport::State::kUnknown) FUZZ_CHECK((*r)[i].id == units[i]);
  }
  return 0;
}
