// ParsePolicy (kernel/policy.h, kernel/policy_parse.cc): policy.json. Promises checked: same text,
// same answer (and the same PolicyDigest); a refusal names the file.
#include "fuzz.h"
#include "kernel/policy.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::Bytes(data, size);
  Result<Policy> p = ParsePolicy(text, "p.json");
  Result<Policy> again = ParsePolicy(text, "p.json");
  FUZZ_CHECK(p.ok() == again.ok());
  if (!p.ok()) {
    FUZZ_CHECK(p.status().message().rfind("p.json: ", 0) == 0);
    FUZZ_CHECK(p.status().message() == again.status().message());
    return 0;
  }
  FUZZ_CHECK(PolicyDigest(*p) == PolicyDigest(*again));
  return 0;
}
