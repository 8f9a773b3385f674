#include "base/timefmt.h"

#include <cstdio>
#include <ctime>

namespace hangar {

namespace {
struct tm Utc(TimeMs ms) {
  time_t secs = time_t(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  struct tm t {};
  gmtime_r(&secs, &t);
  return t;
}
int Millis(TimeMs ms) {
  return int(((ms % 1000) + 1000) % 1000);
}
}  // namespace

std::string FormatTime(TimeMs ms) {
  struct tm t = Utc(ms);
  char buf[96];
  snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.tm_year + 1900, t.tm_mon + 1,
           t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, Millis(ms));
  return buf;
}

std::string CompactTime(TimeMs ms) {
  struct tm t = Utc(ms);
  char buf[96];
  snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02d.%03dZ", t.tm_year + 1900, t.tm_mon + 1,
           t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, Millis(ms));
  return buf;
}

std::optional<TimeMs> ParseTime(std::string_view text) {
  struct tm t {};
  int millis = 0, used = 0;
  std::string s(text);
  if (sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &t.tm_year, &t.tm_mon, &t.tm_mday,
             &t.tm_hour, &t.tm_min, &t.tm_sec, &millis, &used) != 7 ||
      size_t(used) != s.size())
    return std::nullopt;
  t.tm_year -= 1900;
  t.tm_mon -= 1;
  return TimeMs(timegm(&t)) * 1000 + millis;
}

}  // namespace hangar
