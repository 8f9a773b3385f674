// ParseSacctCompletion (launch/slurm_job.h): what `sacct -c -j ID -n -P -o JobID,...` printed.
// The first line of the input is the job id asked for, the rest sacct's output. Promises checked:
// a report is of the job asked for (the state is the log's: a line may say SPECIAL_EXIT, pending);
// otherwise NotFound or Invalid. Slurm's local times are read in TZ=UTC.
#include <string>

#include "fuzz.h"
#include "launch/slurm_job.h"

using namespace hangar;

FUZZ_IN_UTC()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [job_id, out] = fuzz::FirstLine(fuzz::Bytes(data, size));
  Result<EngineReport> r = ParseSacctCompletion(out, std::string(job_id));
  if (!r.ok()) {
    FUZZ_CHECK(r.status().code() == Code::kNotFound || r.status().code() == Code::kInvalid);
    return 0;
  }
  FUZZ_CHECK(r->id == job_id);
  (void)EngineStateName(r->state);
  return 0;
}
