#include "daemon/watchdog.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <string_view>

namespace hangar {

namespace {

// A decimal number without sign, spaces or anything after it, at most max.
std::optional<uint64_t> Decimal(std::string_view s, uint64_t max) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

}  // namespace

Watchdog Watchdog::FromVariables(const char* usec, const char* pid, pid_t self) {
  Watchdog w;
  if (!usec) return w;
  std::optional<uint64_t> us = Decimal(usec, uint64_t(std::numeric_limits<int64_t>::max()));
  if (!us || *us == 0) return w;
  if (pid && *pid) {
    std::optional<uint64_t> p = Decimal(pid, uint64_t(std::numeric_limits<pid_t>::max()));
    if (!p || pid_t(*p) != self) return w;
  }
  w.interval_us_ = int64_t(*us);
  return w;
}

Watchdog Watchdog::FromEnvironment() {
  return FromVariables(std::getenv("WATCHDOG_USEC"), std::getenv("WATCHDOG_PID"), getpid());
}

bool Watchdog::Due(int64_t now_us) {
  if (!enabled()) return false;
  if (last_us_ && now_us - *last_us_ < interval_us_ / 2) return false;
  last_us_ = now_us;
  return true;
}

int64_t MonotonicUs() {
  struct timespec ts {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

}  // namespace hangar
