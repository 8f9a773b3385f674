#include "launch/network_pool.h"

#include <unistd.h>

#include "shell/network_namespace.h"

namespace hangar {

NetworkPool::~NetworkPool() {
  for (int fd : ready_) close(fd);
}

NetworkPool::Made NetworkPool::MakeOne(std::string* why) {
  if (off_ || ready_.size() >= depth_) return Made::kFull;
  const int fd = MakeNetworkNamespace(why);
  if (fd == -2) {
    off_ = true;
    return Made::kStuck;
  }
  if (fd < 0) {
    off_ = true;
    return Made::kOff;
  }
  ready_.push_back(fd);
  return Made::kOne;
}

int NetworkPool::Take() {
  if (ready_.empty()) return -1;
  const int fd = ready_.front();
  ready_.pop_front();
  return fd;
}

}  // namespace hangar
