// The systemd readiness protocol (sd_notify(3)): one datagram to $NOTIFY_SOCKET. Does nothing when
// the variable is unset, so hangard runs the same by hand and under Type=notify.
#pragma once

#include <string>

namespace hangar {

void SdNotify(const std::string& state);  // e.g. "READY=1", "STOPPING=1"

// What hangard tells "systemctl status" (STATUS=). Empty reasons mean all is well.
struct ServiceState {
  bool stopping = false;      // SIGTERM or SIGINT came
  std::string work_stopped;   // why the work stopped (a storage failure; Daemon::stopped)
  std::string fail_closed;    // why the ledger failed closed
  std::string intake_paused;  // why intake waits for space
};

// "STATUS=" and one line: stopping; else the work stopped, which says all; else the ledger failed
// closed and intake paused, each with its reason; else "running". A reason may carry a file name
// someone dropped: control characters become '?', so no line of its own reaches systemd (a
// "\nMAINPID=1" would be obeyed, coming from hangard).
std::string StatusLine(const ServiceState& s);

}  // namespace hangar
