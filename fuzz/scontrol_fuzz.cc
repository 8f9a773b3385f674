// ParseScontrolShowJob (launch/slurm_job.h): what `scontrol -o show job ID` printed, stdout then
// stderr. Promises checked: none beyond the sanitizers' (no crash, no undefined behaviour, no
// leak); a report's job id is digits. Slurm's local times are read in TZ=UTC.
#include "fuzz.h"
#include "launch/slurm_job.h"

using namespace hangar;

FUZZ_IN_UTC()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<EngineReport> r = ParseScontrolShowJob(fuzz::Bytes(data, size));
  if (!r.ok()) {
    FUZZ_CHECK(r.status().code() == Code::kNotFound || r.status().code() == Code::kInvalid);
    return 0;
  }
  FUZZ_CHECK(!r->id.empty());
  for (char c : r->id) FUZZ_CHECK(c >= '0' && c <= '9');
  (void)EngineStateName(r->state);
  return 0;
}
