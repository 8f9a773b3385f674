#include "shell/network_namespace.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "gtest/gtest.h"

namespace hangar {
namespace {

// The inode of this thread's network namespace.
ino_t OwnNetwork() {
  struct stat st {};
  EXPECT_EQ(stat("/proc/thread-self/ns/net", &st), 0);
  return st.st_ino;
}

// Runs CHECK in a child that entered the namespace NET; its exit status (0: CHECK held).
int InNamespace(int net, int (*check)()) {
  const pid_t pid = fork();
  if (pid == 0) _exit(setns(net, CLONE_NEWNET) == 0 ? check() : 100);
  int status = -1;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

int LoopbackIsUp() {
  const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  return s >= 0 && ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP) ? 0 : 1;
}

int HoldsOnlyLoopback() {
  return OnlyLoopback().empty() ? 0 : 1;
}

TEST(MakeNetworkNamespace, MakesOneWithItsLoopbackUpAndLeavesThisProcessWhereItWas) {
  const ino_t before = OwnNetwork();
  std::string why;
  const int net = MakeNetworkNamespace(&why);
  if (net == -1) GTEST_SKIP() << "no network namespace for this user here: " << why;
  ASSERT_GE(net, 0) << why;
  EXPECT_EQ(OwnNetwork(), before);
  struct stat made {};
  ASSERT_EQ(fstat(net, &made), 0);
  EXPECT_NE(made.st_ino, before);
  EXPECT_EQ(fcntl(net, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  EXPECT_EQ(InNamespace(net, LoopbackIsUp), 0);
  EXPECT_EQ(InNamespace(net, HoldsOnlyLoopback), 0);
  // Each call makes another: a namespace is never given twice.
  const int again = MakeNetworkNamespace(&why);
  ASSERT_GE(again, 0) << why;
  struct stat other {};
  ASSERT_EQ(fstat(again, &other), 0);
  EXPECT_NE(other.st_ino, made.st_ino);
  close(net);
  close(again);
}

TEST(OnlyLoopback, NamesTheHostsOtherInterfaces) {
  std::string other;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/net"))
    if (e.path().filename() != "lo") other = e.path().filename();
  if (other.empty()) GTEST_SKIP() << "this host has no interface but the loopback";
  const std::string said = OnlyLoopback();
  EXPECT_EQ(said.rfind("the network is not cut: it has ", 0), 0u) << said;
  EXPECT_NE(said.find(other), std::string::npos) << said;
}

}  // namespace
}  // namespace hangar
