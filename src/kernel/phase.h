// The states a mission passes through. Each is a directory of the spool (man/hangar-spool.5).
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace hangar {

enum class Phase { kHold, kQueued, kRunning, kReturned, kDenied, kRejected };

inline constexpr std::array<Phase, 6> kAllPhases = {Phase::kHold,    Phase::kQueued,
                                                    Phase::kRunning, Phase::kReturned,
                                                    Phase::kDenied,  Phase::kRejected};

constexpr std::string_view PhaseName(Phase p) {
  switch (p) {
    case Phase::kHold:
      return "hold";
    case Phase::kQueued:
      return "queued";
    case Phase::kRunning:
      return "running";
    case Phase::kReturned:
      return "returned";
    case Phase::kDenied:
      return "denied";
    case Phase::kRejected:
      return "rejected";
  }
  return "?";
}

inline std::optional<Phase> PhaseFromName(std::string_view s) {
  for (Phase p : kAllPhases)
    if (PhaseName(p) == s) return p;
  return std::nullopt;
}

// A mission in these states will not move again by itself.
constexpr bool Terminal(Phase p) {
  return p == Phase::kReturned || p == Phase::kDenied || p == Phase::kRejected;
}

}  // namespace hangar
