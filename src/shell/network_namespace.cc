#include "shell/network_namespace.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hangar {

namespace {

std::string Cannot(const std::string& what, int err) {
  return "cannot " + what + ": " + std::strerror(err);
}

}  // namespace

std::string LoopbackUp() {
  const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return Cannot("open a socket to bring the loopback up", errno);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  int rc = ioctl(s, SIOCGIFFLAGS, &ifr);
  if (rc == 0) {
    ifr.ifr_flags = short(ifr.ifr_flags | IFF_UP);
    rc = ioctl(s, SIOCSIFFLAGS, &ifr);
  }
  const int err = errno;
  close(s);
  return rc == 0 ? "" : Cannot("bring the loopback up", err);
}

int MakeNetworkNamespace(std::string* why) {
  const int own = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (own < 0) {
    *why = Cannot("open this process's network namespace", errno);
    return -1;
  }
  if (unshare(CLONE_NEWNET) != 0) {
    *why = Cannot("make a network namespace", errno);
    close(own);
    return -1;
  }
  std::string failed = LoopbackUp();
  int made = -1;
  if (failed.empty()) {
    made = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (made < 0) failed = Cannot("open the network namespace made", errno);
  }
  if (setns(own, CLONE_NEWNET) != 0) {
    *why = Cannot("go back to this process's own network namespace", errno);
    close(own);
    if (made >= 0) close(made);
    return -2;
  }
  close(own);
  if (!failed.empty()) {
    *why = failed;
    return -1;
  }
  return made;
}

std::string OnlyLoopback() {
  struct if_nameindex* names = if_nameindex();
  if (names == nullptr) return Cannot("list the network interfaces", errno);
  std::string others;
  for (const struct if_nameindex* n = names; n->if_index != 0; ++n)
    if (std::strcmp(n->if_name, "lo") != 0)
      others += std::string(others.empty() ? "" : ", ") + n->if_name;
  if_freenameindex(names);
  return others.empty() ? "" : "the network is not cut: it has " + others;
}

}  // namespace hangar
