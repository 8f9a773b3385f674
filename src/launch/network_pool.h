// The shim zygote's network namespaces made ahead (launch/shim_zygote.h): each made with its
// loopback up (shell/network_namespace.h), each given to one launch only. A zygote with one
// thread keeps it; nothing here is shared between processes but the descriptors a fork copies,
// which the zygote closes as it gives each away.
#pragma once

#include <cstddef>
#include <deque>
#include <string>

namespace hangar {

class NetworkPool {
 public:
  explicit NetworkPool(size_t depth) : depth_(depth) {}
  ~NetworkPool();
  NetworkPool(const NetworkPool&) = delete;
  NetworkPool& operator=(const NetworkPool&) = delete;

  enum class Made {
    kOne,    // one more is ready
    kFull,   // DEPTH are ready, or the pool is off: nothing made
    kOff,    // this process cannot make one (a user, no CAP_SYS_ADMIN): the pool is off for good
    kStuck,  // made, but this process could not go back to its own namespace (*WHY): it must end
  };
  // Makes one when fewer than DEPTH are ready and the pool is on. *WHY says why it went off or
  // stuck.
  Made MakeOne(std::string* why);

  // The oldest ready namespace's descriptor (close-on-exec), now the caller's alone: it is no
  // longer in the pool. -1 when none is ready.
  int Take();

  // The descriptors ready, oldest first: what the pool holds, for its tests. (A forked child
  // never needs it: it closes every descriptor but its own, supervisor.cc SanitizeDescriptors.)
  const std::deque<int>& ready() const { return ready_; }

 private:
  const size_t depth_;
  bool off_ = false;
  std::deque<int> ready_;
};

}  // namespace hangar
