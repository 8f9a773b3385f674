// The supervisor's decisions about stopping a drone, kept apart from its system calls: when the
// deadline or a cancel asks for SIGTERM, when the grace ends in SIGKILL, and how a wait(2) status
// becomes the rc or signal of exit.json. Pure: time comes in as milliseconds since the drone
// started.
#pragma once

#include <cstdint>
#include <optional>

#include "kernel/exit_info.h"

namespace hangar {

// rc or signal of an ExitInfo from a wait(2) status.
void SetEnding(int wait_status, ExitInfo* info);

// When to stop the drone, as a pure state machine over milliseconds since the drone started (the
// caller reads CLOCK_MONOTONIC). The table:
//
//   state        event                      next         act
//   running      now >= deadline            terminating  SIGTERM to the group; timed_out
//   running      cancel                     terminating  SIGTERM to the group; cancelled
//   terminating  now >= stop + grace        killed       SIGKILL to the group
//   terminating  cancel                     terminating  none (the first reason stands)
//   killed       any                        killed       none
//
// The drone's exit ends the machine from outside: the caller stops asking.
class StopPolicy {
 public:
  enum class Act { kNone, kTerm, kKill };

  StopPolicy(int64_t deadline_ms, int64_t grace_ms) : deadline_(deadline_ms), grace_(grace_ms) {}

  Act Tick(int64_t now_ms);    // call when now >= Wake(); harmless earlier
  Act Cancel(int64_t now_ms);  // the supervisor was told to stop (SIGTERM/SIGINT)
  // The next time Tick has something to do; nullopt once SIGKILL was sent.
  std::optional<int64_t> Wake() const;

  bool timed_out() const { return timed_out_; }
  bool cancelled() const { return cancelled_; }

 private:
  enum class State { kRunning, kTerminating, kKilled };
  State state_ = State::kRunning;
  int64_t deadline_, grace_;
  int64_t kill_at_ = 0;
  bool timed_out_ = false, cancelled_ = false;
};

}  // namespace hangar
