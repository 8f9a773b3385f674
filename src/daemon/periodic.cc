#include "daemon/periodic.h"

namespace hangar {

bool Periodic::Due(TimeMs now) {
  bool due = due_next_ || now - last_ >= period_;
  if (now < last_) due = due_next_ || step_back_ == StepBack::kDueNow;  // the clock went back
  if (due || now < last_) last_ = now;
  if (due) due_next_ = false;
  return due;
}

}  // namespace hangar
