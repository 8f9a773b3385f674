// WorkState: whether hangard's work goes on (daemon.h, storage failures): "ok"; "intake-paused",
// when a drop could not be taken in for lack of space (the first waiting drop is tried again
// every kIntakeRetryMs and the first that goes in resumes intake); or "stopped", when a write,
// sync, rename or ledger append made for a decision failed, after which nothing more is decided
// until a restart (one for a full disk, ENOSPC or EDQUOT, comes by itself once space returns).
//
// What it promises: the first reason of a stop stands; a stop is never left but by a restart.
// Each change returns the line hangard says of it, once ("" when nothing changed).
//
// Thread: the daemon's loop only.
#pragma once

#include <string>

#include "base/json.h"
#include "base/status.h"
#include "base/timefmt.h"

namespace hangar {

inline constexpr TimeMs kIntakeRetryMs = 5000;  // intake paused for space: a drop tried

class WorkState {
 public:
  // Stops the work for CAUSE at NOW.
  std::string Stop(const Status& cause, TimeMs now);
  // Intake waits for space (REASON, the failed write's message) since NOW.
  std::string PauseIntake(const std::string& reason, TimeMs now);
  // The intake of mission ID went in.
  std::string ResumeIntake(const std::string& id);

  bool stopped() const { return !stopped_.empty(); }
  bool intake_paused() const { return !intake_paused_.empty(); }
  bool storage_full() const { return storage_full_; }  // stopped for want of space
  const std::string& stopped_reason() const { return stopped_; }
  const std::string& intake_reason() const { return intake_paused_; }
  TimeMs stopped_at() const { return stopped_at_; }

  // hangard.json "work": {"state": "ok" | "intake-paused" | "stopped", "reason", "since"}.
  json::Object ToJson() const;

 private:
  std::string stopped_, intake_paused_;
  TimeMs stopped_at_ = 0, intake_paused_at_ = 0;
  bool storage_full_ = false;
};

}  // namespace hangar
