#include "launch/stop_policy.h"

#include <sys/wait.h>

namespace hangar {

void SetEnding(int wait_status, ExitInfo* info) {
  if (WIFEXITED(wait_status)) info->rc = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) info->signal = WTERMSIG(wait_status);
}

StopPolicy::Act StopPolicy::Tick(int64_t now_ms) {
  if (state_ == State::kRunning && now_ms >= deadline_) {
    timed_out_ = true;
    state_ = State::kTerminating;
    kill_at_ = now_ms + grace_;
    return Act::kTerm;
  }
  if (state_ == State::kTerminating && now_ms >= kill_at_) {
    state_ = State::kKilled;
    return Act::kKill;
  }
  return Act::kNone;
}

StopPolicy::Act StopPolicy::Cancel(int64_t now_ms) {
  if (state_ != State::kRunning) return Act::kNone;
  cancelled_ = true;
  state_ = State::kTerminating;
  kill_at_ = now_ms + grace_;
  return Act::kTerm;
}

std::optional<int64_t> StopPolicy::Wake() const {
  switch (state_) {
    case State::kRunning:
      return deadline_;
    case State::kTerminating:
      return kill_at_;
    case State::kKilled:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace hangar
