#include "kernel/verdict.h"

namespace hangar {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kAllow:
      return "allow";
    case Verdict::kHold:
      return "hold";
    case Verdict::kDeny:
      return "deny";
  }
  return "?";
}

}  // namespace hangar
