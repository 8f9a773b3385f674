// ParseSqueue (launch/slurm_job.h): what `squeue -h -t all -O 'JobID:|,...'` printed, one job a
// line; and ParseSbatch on the same bytes (sbatch --parsable's job id; too small a parser for a
// target of its own). Promises checked: one report per line with a job id of digits; a pending
// report has no end; sbatch's id is digits. Slurm's local times are read in TZ=UTC.
#include "fuzz.h"
#include "launch/slurm_job.h"

using namespace hangar;

namespace {
bool Digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}
}  // namespace

FUZZ_IN_UTC()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view out = fuzz::Bytes(data, size);
  Result<std::string> id = ParseSbatch(out);
  if (id.ok()) FUZZ_CHECK(Digits(*id));
  Result<std::vector<EngineReport>> r = ParseSqueue(out);
  if (!r.ok()) {
    FUZZ_CHECK(!r.status().message().empty());
    return 0;
  }
  for (const EngineReport& e : *r) {
    FUZZ_CHECK(Digits(e.id));
    (void)EngineStateName(e.state);
    if (e.state == EngineReport::State::kPending) FUZZ_CHECK(e.exit.ended == 0);
  }
  return 0;
}
