#include "daemon/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace hangar {

void SdNotify(const std::string& state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (!path || !*path) return;
  struct sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  size_t len = std::strlen(path);
  if (len >= sizeof addr.sun_path) return;
  std::memcpy(addr.sun_path, path, len);
  if (path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  (void)!sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                reinterpret_cast<struct sockaddr*>(&addr),
                socklen_t(offsetof(struct sockaddr_un, sun_path) + len));
  close(fd);
}

std::string StatusLine(const ServiceState& s) {
  std::string line;
  if (s.stopping) {
    line = "stopping; running drones are left to their supervisors";
  } else if (!s.work_stopped.empty()) {
    line = "stopped: " + s.work_stopped + "; restart hangard once the disk is fixed";
  } else {
    if (!s.fail_closed.empty())
      line = "failed closed: " + s.fail_closed +
             "; no launch, op or grant until hangar ledger reanchor";
    if (!s.intake_paused.empty())
      line += (line.empty() ? "" : "; ") + std::string("intake paused: ") + s.intake_paused;
    if (line.empty()) line = "running";
  }
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return "STATUS=" + line;
}

}  // namespace hangar
