#include "base/timefmt.h"

#include <chrono>
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

// Years 0000-9999 are counted out with the civil calendar of <chrono>: gmtime_r takes glibc's
// time zone lock and snprintf parses its format, and the kernel writes a time into most entries
// and files it decides (a replay decides hundreds of thousands). Other years take the slow path.
namespace {
constexpr TimeMs kYear10000Ms = 253402300800000;  // 10000-01-01T00:00:00.000Z

void Digits(char* at, int v, int n) {
  for (int i = n - 1; i >= 0; --i, v /= 10) at[i] = char('0' + v % 10);
}

// The fields of ms, 0 <= ms < kYear10000Ms: year, month, day, hour, minute, second, millisecond.
void Fields(TimeMs ms, int f[7]) {
  using namespace std::chrono;
  const TimeMs day_ms = 86400000;
  const year_month_day ymd{sys_days{days{ms / day_ms}}};
  const TimeMs in_day = ms % day_ms;
  f[0] = int(ymd.year());
  f[1] = int(unsigned(ymd.month()));
  f[2] = int(unsigned(ymd.day()));
  f[3] = int(in_day / 3600000);
  f[4] = int(in_day / 60000 % 60);
  f[5] = int(in_day / 1000 % 60);
  f[6] = int(in_day % 1000);
}
}  // namespace

// Appended in place: the text is 24 bytes, past a std::string's own 15, so a FormatTime for every
// time a writer puts in a file was an allocation each (a replay writes hundreds of thousands).
void AppendTime(std::string* out, TimeMs ms) {
  if (ms >= 0 && ms < kYear10000Ms) {
    int f[7];
    Fields(ms, f);
    char text[] = "0000-00-00T00:00:00.000Z";
    for (int i : {0, 1, 2, 3, 4, 5, 6})
      Digits(&text[size_t(i == 0 ? 0 : 2 + 3 * i)], f[i], i == 0 ? 4 : i == 6 ? 3 : 2);
    out->append(text, sizeof text - 1);
    return;
  }
  struct tm t = Utc(ms);
  char buf[96];
  const int n = snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.tm_year + 1900,
                         t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, Millis(ms));
  out->append(buf, size_t(n));
}

std::string FormatTime(TimeMs ms) {
  std::string out;
  AppendTime(&out, ms);
  return out;
}

std::string CompactTime(TimeMs ms) {
  if (ms >= 0 && ms < kYear10000Ms) {
    int f[7];
    Fields(ms, f);
    std::string out = "00000000T000000.000Z";
    static const int kAt[7] = {0, 4, 6, 9, 11, 13, 16};
    for (int i : {0, 1, 2, 3, 4, 5, 6})
      Digits(&out[size_t(kAt[i])], f[i], i == 0 ? 4 : i == 6 ? 3 : 2);
    return out;
  }
  struct tm t = Utc(ms);
  char buf[96];
  snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02d.%03dZ", t.tm_year + 1900, t.tm_mon + 1,
           t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, Millis(ms));
  return buf;
}

bool IsFormattedTime(std::string_view t) {
  // 0123456789012345678901234
  // 2026-11-29T19:05:43.123Z
  // -026-01-01T00:00:00.000Z too: FormatTime writes years -999..-1 in the same four characters.
  if (t.size() != 24 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' ||
      t[16] != ':' || t[19] != '.' || t[23] != 'Z')
    return false;
  const bool bc = t[0] == '-';
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22})
    if ((t[i] < '0' || t[i] > '9') && !(i == 0 && bc)) return false;
  auto num = [&](size_t at, size_t n) {
    int v = 0;
    for (size_t i = at; i < at + n; i++) v = v * 10 + (t[i] - '0');
    return v;
  };
  int year = bc ? -num(1, 3) : num(0, 4), month = num(5, 2), day = num(8, 2);
  if (bc && year == 0) return false;  // "-000": year 0 is written "0000"
  if (month < 1 || month > 12 || day < 1) return false;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  int days = kDays[month - 1] + (month == 2 && leap ? 1 : 0);
  return day <= days && num(11, 2) < 24 && num(14, 2) < 60 && num(17, 2) < 60;
}

std::optional<TimeMs> ParseTime(std::string_view text) {
  // What hangar writes (every intake.json, read at each start and by each hangar ls) is counted
  // out directly: sscanf and timegm were most of the cost of reading a timestamp.
  if (!text.empty() && text[0] != '-' && IsFormattedTime(text)) {
    auto num = [&](size_t at, size_t len) {
      int v = 0;
      for (size_t i = at; i < at + len; ++i) v = v * 10 + (text[i] - '0');
      return v;
    };
    using namespace std::chrono;
    const sys_days day = year{num(0, 4)} / month{unsigned(num(5, 2))} / num(8, 2);
    return TimeMs(day.time_since_epoch().count()) * 86400000 +
           ((TimeMs(num(11, 2)) * 60 + num(14, 2)) * 60 + num(17, 2)) * 1000 + num(20, 3);
  }
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

std::optional<TimeMs> ParseDurationMs(std::string_view text) {
  if (text.size() < 2 || text.size() > 12) return std::nullopt;
  const char unit = text.back();
  const int64_t ms = unit == 's'   ? 1000
                     : unit == 'm' ? 60'000
                     : unit == 'h' ? 3'600'000
                     : unit == 'd' ? 86'400'000
                                   : 0;
  if (ms == 0) return std::nullopt;
  int64_t n = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n * ms;
}

std::optional<TimeMs> ParseRfc3339(std::string_view text) {
  // sscanf's %d would also take a sign or spaces ("-000", "+-1:-1"): the digits are checked first.
  auto digits = [&](size_t at, size_t n) {
    if (text.size() < at + n) return false;
    for (size_t i = at; i < at + n; i++)
      if (text[i] < '0' || text[i] > '9') return false;
    return true;
  };
  if (!digits(0, 4) || !digits(5, 2) || !digits(8, 2) || !digits(11, 2) || !digits(14, 2) ||
      !digits(17, 2))
    return std::nullopt;
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
  } else if (i + 6 == s.size() && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':' &&
             digits(i + 1, 2) && digits(i + 4, 2)) {
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
