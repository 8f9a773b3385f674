#include "launch/confine.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <functional>
#include <string>

#include "gtest/gtest.h"
#include "launch/sandbox_command.h"

namespace hangar {
namespace {

TEST(CapabilityHeldTest, EmptySetsMayRun) {
  EXPECT_EQ(CapabilityHeld({}), std::nullopt);
}

TEST(CapabilityHeldTest, EachSetIsRefusedAndNamed) {
  CapabilitySets eff;
  eff.effective = uint64_t(1) << 21;  // CAP_SYS_ADMIN
  EXPECT_EQ(CapabilityHeld(eff), "capability 21 is in the effective set (CapEff=0000000000200000)");
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
  EXPECT_EQ(
      InLockedChild(UnixSockets::kDeny, [] { return SocketErrno((long(1) << 32) | AF_UNIX); }),
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

TEST(ConfineBinaryTest, EgressWithoutTheLandlockRulesetIsRefused) {
  // The forwarder would run outside the filter as the drone's child, open to its ptrace.
  const std::string cmd = ConfineProgram() +
                          " --forward 3128 /usr/bin/socat /nonexistent.sock unix-deny /bin/true"
                          " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string out;
  char buf[512];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  const int status = pclose(f);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 126) << out;
  EXPECT_NE(out.find("network \"egress\" needs --landlock"), std::string::npos) << out;
}

}  // namespace
}  // namespace hangar
