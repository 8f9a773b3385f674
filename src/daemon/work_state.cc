#include "daemon/work_state.h"

#include "shell/transitions.h"

namespace hangar {

std::string WorkState::Stop(const Status& cause, TimeMs now) {
  if (!stopped_.empty()) return "";  // the first reason stands
  stopped_ = cause.message();
  stopped_at_ = now;
  storage_full_ = NoSpace(cause);
  if (storage_full_)
    return "STOPPED (storage full): " + stopped_ +
           "; no intake, launch, control, op or grant until space returns, then hangard restarts "
           "in place and recovers from the spool; running drones go on under their supervisors, "
           "which keep their exit records until they can be written";
  return "STOPPED: " + stopped_ +
         "; no intake, launch, control, op or grant until hangard is restarted (fix the disk "
         "first: the next start recovers from the spool); running drones go on under their "
         "supervisors";
}

std::string WorkState::PauseIntake(const std::string& reason, TimeMs now) {
  const bool was = !intake_paused_.empty();
  intake_paused_ = reason;
  if (was) return "";
  intake_paused_at_ = now;
  return "intake paused: " + reason + "; drops wait in incoming/new, tried again every " +
         std::to_string(kIntakeRetryMs / 1000) + " s";
}

std::string WorkState::ResumeIntake(const std::string& id) {
  if (intake_paused_.empty()) return "";
  intake_paused_.clear();
  return "intake resumed: " + id + " taken in";
}

json::Object WorkState::ToJson() const {
  const bool stopped = !stopped_.empty(), paused = !intake_paused_.empty();
  return json::Object{{"state", stopped  ? "stopped"
                                : paused ? "intake-paused"
                                         : "ok"},
                      {"reason", stopped ? stopped_ : intake_paused_},
                      {"since", stopped  ? json::Value(FormatTime(stopped_at_))
                                : paused ? json::Value(FormatTime(intake_paused_at_))
                                         : json::Value(nullptr)}};
}

}  // namespace hangar
