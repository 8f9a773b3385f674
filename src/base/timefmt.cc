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

std::optional<TimeMs> ParseRfc3339(std::string_view text) {
  struct tm t {};
  int used = 0;
  std::string s(text);
  if (sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &t.tm_year, &t.tm_mon, &t.tm_mday, &t.tm_hour,
             &t.tm_min, &t.tm_sec, &used) != 6 ||
      used != 19 || t.tm_mon < 1 || t.tm_mon > 12 || t.tm_mday < 1 || t.tm_mday > 31 ||
      t.tm_hour > 23 || t.tm_min > 59 || t.tm_sec > 60)
    return std::nullopt;
  size_t i = 19;
  int64_t millis = 0;
  if (i < s.size() && s[i] == '.') {
    size_t digits = 0;
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits)
      if (digits < 3) millis = millis * 10 + (s[i] - '0');
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) millis *= 10;
  }
  int64_t offset_s = 0;
  if (i + 1 == s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    // UTC
  } else if (i + 6 == s.size() && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
    int hh = 0, mm = 0;
    if (sscanf(s.c_str() + i + 1, "%2d:%2d", &hh, &mm) != 2 || hh > 23 || mm > 59)
      return std::nullopt;
    offset_s = (s[i] == '+' ? 1 : -1) * (hh * 3600 + mm * 60);
  } else {
    return std::nullopt;
  }
  t.tm_year -= 1900;
  t.tm_mon -= 1;
  return (TimeMs(timegm(&t)) - offset_s) * 1000 + millis;
}

}  // namespace hangar
