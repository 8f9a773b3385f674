// Time as hangar writes it: milliseconds since the Unix epoch in memory, RFC 3339 UTC text in files
// ("2026-11-29T19:05:43.123Z"). Pure formatting; reading the clock is the shell's business.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hangar {

using TimeMs = int64_t;

std::string FormatTime(TimeMs ms);                       // 2026-11-29T19:05:43.123Z
void AppendTime(std::string* out, TimeMs ms);            // FormatTime(ms) appended to *out
std::optional<TimeMs> ParseTime(std::string_view text);  // the inverse; nullopt if malformed
// What people type: RFC 3339 with or without fractional seconds, "Z" or a "+HH:MM" offset
// ("2026-12-01T00:00:00Z", "2026-12-01T09:00:00+09:00"); nullopt if malformed.
std::optional<TimeMs> ParseRfc3339(std::string_view text);
// A span people type: N followed by s, m, h or d ("90s", "10m", "2h", "30d"), N at most 11
// digits; nullopt otherwise.
std::optional<TimeMs> ParseDurationMs(std::string_view text);
std::string CompactTime(TimeMs ms);  // 20261129T190543.123Z (ids, file names)
// True when text is exactly what FormatTime writes for a time of the years -999 to 9999 (the
// years it writes in four characters: "-026", "0000", "2026"): a real calendar date, hours
// 00-23, no leap second. The same answer as FormatTime(*ParseTime(text)) == text, without the
// cost (readers of many timestamps, ledger verification).
bool IsFormattedTime(std::string_view text);

}  // namespace hangar
