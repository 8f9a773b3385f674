// ExitInfo::FromJson (kernel/exit_info.h): RUN/exit.json, how hangar-shim saw its drone end, read
// back as JSON by hangard. Promises checked: an accepted record survives ToJson and FromJson
// unchanged; a refusal names the field ("exit.json: ...").
#include "base/json.h"
#include "fuzz.h"
#include "kernel/exit_info.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<json::Value> v = json::Parse(fuzz::Bytes(data, size));
  if (!v.ok()) return 0;
  Result<ExitInfo> e = ExitInfo::FromJson(*v);
  if (!e.ok()) {
    FUZZ_CHECK(e.status().message().rfind("exit.json: ", 0) == 0);
    return 0;
  }
  Result<ExitInfo> again = ExitInfo::FromJson(e->ToJson());
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->rc == e->rc && again->signal == e->signal);
  FUZZ_CHECK(again->timed_out == e->timed_out && again->cancelled == e->cancelled);
  FUZZ_CHECK(again->started == e->started && again->ended == e->ended);
  FUZZ_CHECK(again->error == e->error);
  return 0;
}
