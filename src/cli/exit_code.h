// The exit statuses of `hangar` (man/hangar.1, EXIT STATUS): few, fixed, sysexits(3) values.
#pragma once

#include <sysexits.h>

#include "base/status.h"

namespace hangar::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNotDone = 1;                // wait: the mission ended in another outcome
inline constexpr int kExitUsage = EX_USAGE;           // 64: bad arguments
inline constexpr int kExitData = EX_DATAERR;          // 65: the mission is invalid or a duplicate
inline constexpr int kExitNoInput = EX_NOINPUT;       // 66: no such mission, input file or spool
inline constexpr int kExitCantCreate = EX_CANTCREAT;  // 73: a spool file could not be written
inline constexpr int kExitIo = EX_IOERR;              // 74: reading the spool failed
inline constexpr int kExitUnavailable = EX_UNAVAILABLE;  // 69: status --check: hangard is down
inline constexpr int kExitTimeout = EX_TEMPFAIL;         // 75: wait --timeout expired, no answer
inline constexpr int kExitNoPerm = EX_NOPERM;            // 77: refused for who asked
inline constexpr int kExitConfig = EX_CONFIG;  // 78: the config cannot be read or is invalid

// The exit status for a failed read of the spool or an input.
inline int ExitForRead(const Status& s) {
  switch (s.code()) {
    case Code::kNotFound:
      return kExitNoInput;
    case Code::kInvalid:
      return kExitData;
    default:
      return kExitIo;
  }
}

}  // namespace hangar::cli
