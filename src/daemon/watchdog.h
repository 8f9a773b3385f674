// Watchdog: when hangard owes systemd a keep-alive ping (sd_watchdog_enabled(3)). With WatchdogSec=
// in its unit, systemd sets WATCHDOG_USEC (and WATCHDOG_PID) in hangard's environment, and takes
// hangard for hung when no "WATCHDOG=1" (SdNotify) came within that many microseconds: it sends
// SIGABRT, and Restart=on-failure starts it again, which recovers from the spool. The event loop
// asks Due at every turn, so a ping says "the loop turns", not only "the process exists".
//
// Pure: made from the variables' values and this process's pid, asked with a monotonic time (a
// wall clock stepped back must not hold the pings back). Used by the event-loop thread only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace hangar {

class Watchdog {
 public:
  // Off (never due) unless usec is a decimal number of microseconds above 0 and pid is unset
  // (null or empty) or is self, as sd_watchdog_enabled(3) reads them: WATCHDOG_PID naming another
  // process means the variables were inherited, and the pings are someone else's.
  static Watchdog FromVariables(const char* usec, const char* pid, pid_t self);
  // The same from this process's environment.
  static Watchdog FromEnvironment();

  bool enabled() const { return interval_us_ > 0; }
  int64_t interval_us() const { return interval_us_; }

  // True when a ping is due at now_us (monotonic microseconds): none was sent yet, or half the
  // interval has passed since the last, as sd_watchdog_enabled(3) advises; the caller sends it, and
  // it counts as sent at now_us.
  bool Due(int64_t now_us);

 private:
  int64_t interval_us_ = 0;
  std::optional<int64_t> last_us_;
};

// CLOCK_MONOTONIC in microseconds: the clock systemd measures the watchdog with.
int64_t MonotonicUs();

}  // namespace hangar
