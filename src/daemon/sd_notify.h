// The systemd readiness protocol (sd_notify(3)): one datagram to $NOTIFY_SOCKET. Does nothing when
// the variable is unset, so hangard runs the same by hand and under Type=notify.
#pragma once

#include <string>

namespace hangar {

void SdNotify(const std::string& state);  // e.g. "READY=1", "STOPPING=1"

}  // namespace hangar
