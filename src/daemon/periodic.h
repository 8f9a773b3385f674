// Periodic: one of hangard's periodic checks (the supervisors, the engines, a paused intake, the
// notify outbox, a full disk) on the wall clock, written once. A wall clock stepped back must
// never stall a check until it catches up (a check whose last run is "in the future" would wait
// for as long as the clock went back); which way it recovers is the check's to say.
#pragma once

#include "base/timefmt.h"

namespace hangar {

class Periodic {
 public:
  enum class StepBack {
    kDueNow,   // a clock stepped back makes the check due at once (it must not be missed)
    kRestart,  // it starts the period again from the new time (a retry that may wait)
  };
  explicit Periodic(TimeMs period, StepBack step_back) : period_(period), step_back_(step_back) {}

  // True when the period has passed since the last time it was due (or Restart), or the clock
  // went back past that time and the check is kDueNow; when true, the period starts at now.
  bool Due(TimeMs now);
  // The period starts again at now (the check ran by another way).
  void Restart(TimeMs now) { last_ = now; }
  // Due at the next Due, whatever the time.
  void DueNext() { due_next_ = true; }
  void set_period(TimeMs period) { period_ = period; }

 private:
  TimeMs period_;
  StepBack step_back_;
  TimeMs last_ = 0;
  bool due_next_ = false;
};

}  // namespace hangar
