// The time readers (base/timefmt.h) every file's timestamps go through: ParseTime, ParseRfc3339
// and IsFormattedTime. Promises checked: IsFormattedTime(t) is the same answer as
// FormatTime(*ParseTime(t)) == t; what ParseTime reads, FormatTime writes back to a text that
// reads as the same time; ParseRfc3339 reads only RFC 3339 text (YYYY-MM-DDTHH:MM:SS, optional
// fraction, then Z or +HH:MM / -HH:MM), nothing malformed.
#include <string>

#include "base/timefmt.h"
#include "fuzz.h"

using namespace hangar;

namespace {

// The shape ParseRfc3339's header allows, written out independently of it.
bool Rfc3339Shape(std::string_view t) {
  auto digits = [&](size_t at, size_t n) {
    if (t.size() < at + n) return false;
    for (size_t i = at; i < at + n; i++)
      if (t[i] < '0' || t[i] > '9') return false;
    return true;
  };
  if (!digits(0, 4) || t[4] != '-' || !digits(5, 2) || t[7] != '-' || !digits(8, 2) ||
      t[10] != 'T' || !digits(11, 2) || t[13] != ':' || !digits(14, 2) || t[16] != ':' ||
      !digits(17, 2))
    return false;
  size_t i = 19;
  if (i < t.size() && t[i] == '.') {
    size_t start = ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') i++;
    if (i == start) return false;
  }
  if (i + 1 == t.size()) return t[i] == 'Z' || t[i] == 'z';
  return i + 6 == t.size() && (t[i] == '+' || t[i] == '-') && digits(i + 1, 2) && t[i + 3] == ':' &&
         digits(i + 4, 2);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::Bytes(data, size);
  std::optional<TimeMs> t = ParseTime(text);
  FUZZ_CHECK(IsFormattedTime(text) == (t && FormatTime(*t) == text));
  if (t && IsFormattedTime(FormatTime(*t))) FUZZ_CHECK(ParseTime(FormatTime(*t)) == t);
  if (ParseRfc3339(text)) FUZZ_CHECK(Rfc3339Shape(text));
  return 0;
}
