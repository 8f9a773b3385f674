#include "launch/engine_report.h"

namespace hangar {

const char* EngineStateName(EngineReport::State s) {
  switch (s) {
    case EngineReport::State::kUnknown:
      return "unknown";
    case EngineReport::State::kPending:
      return "pending";
    case EngineReport::State::kRunning:
      return "running";
    case EngineReport::State::kEnded:
      return "ended";
  }
  return "unknown";
}

}  // namespace hangar
