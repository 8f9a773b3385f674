// ParseConfig (kernel/config.h): hangar.conf as an admin writes it. Promises checked: same text,
// same answer; a refusal names the file.
#include "fuzz.h"
#include "kernel/config.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::Bytes(data, size);
  Result<Config> c = ParseConfig(text, "/etc/hangar/hangar.conf");
  Result<Config> again = ParseConfig(text, "/etc/hangar/hangar.conf");
  FUZZ_CHECK(c.ok() == again.ok());
  if (!c.ok()) {
    FUZZ_CHECK(c.status().message().rfind("/etc/hangar/hangar.conf: ", 0) == 0);
    FUZZ_CHECK(c.status().message() == again.status().message());
  }
  return 0;
}
