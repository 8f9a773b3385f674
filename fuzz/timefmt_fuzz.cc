// The time readers (base/timefmt.h) every file's timestamps go through: ParseTime, ParseRfc3339
// and IsFormattedTime. Promises checked: IsFormattedTime(t) is the same answer as
// FormatTime(*ParseTime(t)) == t; what ParseTime reads, FormatTime writes back to a text that
// reads as the same time.
#include <string>

#include "base/timefmt.h"
#include "fuzz.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::Bytes(data, size);
  std::optional<TimeMs> t = ParseTime(text);
  FUZZ_CHECK(IsFormattedTime(text) == (t && FormatTime(*t) == text));
  if (t && IsFormattedTime(FormatTime(*t))) FUZZ_CHECK(ParseTime(FormatTime(*t)) == t);
  (void)ParseRfc3339(text);
  return 0;
}
