// ReportFromUnitEnded (launch/systemd_unit.h): RUN/unit-ended.json, the record hangar-shim
// --unit-ended writes from what systemd gave its ExecStopPost, read back as JSON. Promises
// checked: an accepted record is an ended report with an rc of 0-255, a signal, or an error;
// a refusal names the field ("unit-ended.json: ...").
#include "base/json.h"
#include "fuzz.h"
#include "launch/systemd_unit.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<json::Value> v = json::Parse(fuzz::Bytes(data, size));
  if (!v.ok()) return 0;
  Result<EngineReport> r = ReportFromUnitEnded(*v);
  if (!r.ok()) {
    FUZZ_CHECK(r.status().message().rfind("unit-ended.json: ", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(r->state == EngineReport::State::kEnded && !r->id.empty());
  const ExitInfo& e = r->exit;
  FUZZ_CHECK(int(e.rc.has_value()) + int(e.signal.has_value()) + int(!e.error.empty()) == 1);
  if (e.rc) FUZZ_CHECK(*e.rc >= 0 && *e.rc <= 255);
  if (e.signal) FUZZ_CHECK(*e.signal >= 1);
  return 0;
}
