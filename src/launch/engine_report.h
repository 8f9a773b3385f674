// What a scheduling engine (systemd, Slurm) says of one drone's unit or job, read from its own
// tools (systemctl show; squeue, scontrol, sacct). The kernel never asks the drone: the launcher
// turns an ended report into run/exit.json (kernel/exit_info.h), and the return is built from it
// plus the room. Parsers of each engine's output fill this; they are pure and tested on recorded
// outputs (launch/systemd_unit.h, launch/slurm_job.h).
#pragma once

#include <string>

#include "kernel/exit_info.h"

namespace hangar {

struct EngineReport {
  enum class State {
    kUnknown,  // the engine knows no such unit or job (never started, or forgotten)
    kPending,  // accepted, not running yet (Slurm PENDING, systemd activating)
    kRunning,  // the drone runs
    kEnded,    // over: `exit` says how
  };
  State state = State::kUnknown;
  std::string id;    // the engine's identity: the full unit name, or the Slurm job id
  std::string name;  // the exact name it was started under (unit name, Slurm job name)
  // When kEnded: rc or signal (decoded), timed_out (systemd Result=timeout, Slurm TIMEOUT),
  // cancelled (Slurm CANCELLED; for systemd the launcher's own cancel record), started and ended
  // (ms since the epoch; 0 when the engine did not say), error (could not be started at all).
  ExitInfo exit;
  std::string detail;  // the engine's own words, for logs ("Result=timeout", "Reason=TimeLimit")
};

const char* EngineStateName(EngineReport::State s);  // "unknown" "pending" "running" "ended"

}  // namespace hangar
