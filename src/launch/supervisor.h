// The supervisor: hangar-shim's logic. It runs one drone exactly as a plan says, enforces the
// plan's deadline from outside the drone, and writes what it saw to run/exit.json
// (docs/ARCHITECTURE.md, "hangar-shim"). shim_main.cc is only the entry point; the pure parts below
// are unit-tested, the process as a whole is tested by driving bin/hangar-shim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "kernel/exit_info.h"
#include "kernel/plan.h"

namespace hangar {

// Exit statuses of hangar-shim's first process (sysexits(3) where one fits).
inline constexpr int kShimStarted =
    0;  // the drone was launched (or its exec failed: see exit.json)
inline constexpr int kShimNotStarted = 1;  // nothing was launched; the reason is on stderr
inline constexpr int kShimUsage = 64;      // EX_USAGE
inline constexpr int kShimBadPlan = 78;    // EX_CONFIG: the plan could not be read or is invalid

// The whole program for `hangar-shim PLAN_FILE`. Forks: the first process returns once the
// supervisor has reported (kShimStarted, kShimNotStarted, kShimBadPlan); the supervisor returns
// when the drone's story is written to exit.json (or it could not start). Call once, from main, in
// a process that has no other threads.
int RunShim(const std::string& plan_file);

// Reads PLAN_FILE and checks that it is a plan this launcher runs ("launcher":"direct").
// Invalid or NotFound with a message of the shape "cannot read plan FILE: reason".
Result<Plan> LoadShimPlan(const std::string& plan_file);

// Where execve(2) finds NAME: NAME itself when it holds a '/', otherwise the first entry of
// PATH_VAR (colon-separated; an empty entry is "."; relative entries are taken from BASE_DIR, the
// drone's cwd) naming an executable regular file. nullopt when there is none, and when PATH_VAR is
// empty: a bare name is never run from the drone's cwd (its room) unless PATH says so.
std::optional<std::string> FindProgram(const std::string& name, const std::string& path_var,
                                       const std::string& base_dir);

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
