#include "launch/confine.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <functional>

#include "gtest/gtest.h"

namespace hangar {
namespace {

TEST(CapabilityHeldTest, EmptySetsMayRun) { EXPECT_EQ(CapabilityHeld({}), std::nullopt); }

TEST(CapabilityHeldTest, EachSetIsRefusedAndNamed) {
  CapabilitySets eff;
  eff.effective = uint64_t(1) << 21;  // CAP_SYS_ADMIN
  EXPECT_EQ(CapabilityHeld(eff),
            "capability 21 is in the effective set (CapEff=0000000000200000)");
  CapabilitySets bnd;
  bnd.bounding = 0x1ffffffffffULL;  // a root shell's
  EXPECT_EQ(CapabilityHeld(bnd), "capability 0 is in the bounding set (CapBnd=000001ffffffffff)");
  CapabilitySets amb;
  amb.ambient = uint64_t(1) << 40;
  EXPECT_EQ(CapabilityHeld(amb), "capability 40 is in the ambient set (CapAmb=0000010000000000)");
  CapabilitySets prm, inh;
  prm.permitted = 2;
  inh.inheritable = 4;
  EXPECT_NE(CapabilityHeld(prm)->find("permitted set (CapPrm="), std::string::npos);
  EXPECT_NE(CapabilityHeld(inh)->find("inheritable set (CapInh="), std::string::npos);
}

TEST(CapabilityHeldTest, ThisProcessIsReadAsTheKernelSaysIt) {
  // Whoever runs the tests: root holds CAP_SYS_ADMIN in its effective set; a user holds none
  // effective but a full bounding set. Either way a drone may not start like this.
  const CapabilitySets s = ReadCapabilities();
  if (geteuid() == 0) {
    EXPECT_NE(s.effective & (uint64_t(1) << 21), 0u);
  }
  EXPECT_NE(s.bounding, 0u);
  EXPECT_NE(CapabilityHeld(s), std::nullopt);
}

// Runs BODY in a child process after LockDown(SOCKETS): its exit status (BODY's return value), or
// 100 + the signal that killed it, or 99 when LockDown failed.
int InLockedChild(UnixSockets sockets, const std::function<int()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (!LockDown(sockets).empty()) _exit(99);
    _exit(body());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

// 0 when socket(DOMAIN, SOCK_STREAM) succeeds, else its errno.
int SocketErrno(long domain) {
  const long fd = syscall(SYS_socket, domain, SOCK_STREAM, 0);
  if (fd >= 0) close(int(fd));
  return fd >= 0 ? 0 : errno;
}

TEST(LockDownTest, UnixSocketsDeniedAndNothingElse) {
  EXPECT_EQ(InLockedChild(UnixSockets::kDeny, [] { return SocketErrno(AF_UNIX); }), EACCES);
  // High bits of the int domain are ignored by the kernel: they must not slip past the filter.
  EXPECT_EQ(InLockedChild(UnixSockets::kDeny,
                          [] { return SocketErrno((long(1) << 32) | AF_UNIX); }),
            EACCES);
  EXPECT_EQ(InLockedChild(UnixSockets::kDeny,
                          [] {
                            int sv[2];
                            return socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 ? 0 : errno;
                          }),
            0);
  EXPECT_EQ(InLockedChild(UnixSockets::kDeny, [] { return SocketErrno(AF_INET); }), 0);
  EXPECT_EQ(InLockedChild(UnixSockets::kAllow, [] { return SocketErrno(AF_UNIX); }), 0);
}

TEST(LockDownTest, IoUringIsUnavailableAndNoNewPrivsHolds) {
  for (UnixSockets mode : {UnixSockets::kAllow, UnixSockets::kDeny}) {
    EXPECT_EQ(InLockedChild(mode,
                            [] {
                              char params[120] = {};
                              return syscall(SYS_io_uring_setup, 1, params) < 0 ? errno : 0;
                            }),
              ENOSYS);
    EXPECT_EQ(InLockedChild(mode, [] { return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); }), 1);
  }
}

}  // namespace
}  // namespace hangar
