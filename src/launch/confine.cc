#include "launch/confine.h"

#include <linux/capability.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace hangar {

CapabilitySets ReadCapabilities() {
  CapabilitySets s;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, data) != 0) {
    // Unreadable: assume the worst, so that CapabilityHeld refuses.
    s.effective = s.permitted = ~uint64_t(0);
    return s;
  }
  auto join = [](uint32_t lo, uint32_t hi) { return uint64_t(lo) | uint64_t(hi) << 32; };
  s.effective = join(data[0].effective, data[1].effective);
  s.permitted = join(data[0].permitted, data[1].permitted);
  s.inheritable = join(data[0].inheritable, data[1].inheritable);
  for (int cap = 0; cap < 64; cap++) {
    const int in_bounding = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
    if (in_bounding < 0) break;  // EINVAL: past the last capability this kernel knows
    if (in_bounding > 0) s.bounding |= uint64_t(1) << cap;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) > 0)
      s.ambient |= uint64_t(1) << cap;
  }
  return s;
}

std::optional<std::string> CapabilityHeld(const CapabilitySets& sets) {
  const std::pair<const char*, uint64_t> named[] = {{"effective", sets.effective},
                                                    {"permitted", sets.permitted},
                                                    {"inheritable", sets.inheritable},
                                                    {"bounding", sets.bounding},
                                                    {"ambient", sets.ambient}};
  const char* proc_name[] = {"CapEff", "CapPrm", "CapInh", "CapBnd", "CapAmb"};
  for (size_t i = 0; i < std::size(named); i++) {
    const uint64_t bits = named[i].second;
    if (bits == 0) continue;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(bits));
    return "capability " + std::to_string(__builtin_ctzll(bits)) + " is in the " + named[i].first +
           " set (" + proc_name[i] + "=" + hex + ")";
  }
  return std::nullopt;
}

namespace {

// No setuid or setgid bit on any file the drone makes or changes: its room, its writes and its
// stdout are files on the host, and a drone of a hangard run as root (no drone_user) owns what it
// writes as uid 0, which needs no capability to mark it setuid. EPERM for chmod, fchmod,
// fchmodat and fchmodat2 (kernel 6.6; by number where libseccomp does not know it) whose mode has
// either bit, and for open, openat, creat, mknod and mknodat that would create a file with one;
// openat2, whose mode is behind a pointer no filter reads, fails with ENOSYS (callers fall back
// to openat). A libseccomp error (negative), or 0.
int RefuseSetIdModes(scmp_filter_ctx ctx) {
  int fchmodat2 = seccomp_syscall_resolve_name("fchmodat2");
  if (fchmodat2 == __NR_SCMP_ERROR) fchmodat2 = 452;  // the same number on every architecture
  const std::pair<int, unsigned> mode_at[] = {
      {SCMP_SYS(chmod), 1}, {SCMP_SYS(fchmod), 1}, {SCMP_SYS(fchmodat), 2}, {fchmodat2, 2},
      {SCMP_SYS(open), 2},  {SCMP_SYS(openat), 3}, {SCMP_SYS(creat), 1},    {SCMP_SYS(mknod), 1},
      {SCMP_SYS(mknodat), 2}};
  int rc = 0;
  for (const auto& [nr, arg] : mode_at)
    for (const scmp_datum_t bit : {scmp_datum_t(S_ISUID), scmp_datum_t(S_ISGID)})
      if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                              scmp_arg_cmp{arg, SCMP_CMP_MASKED_EQ, bit, bit});
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
  return rc;
}

}  // namespace

std::string LockDown(UnixSockets sockets) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
    return std::string("cannot set no_new_privs: ") + std::strerror(errno);
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return "cannot make a system-call filter (seccomp_init)";
  int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_setup), 0);
  // The domain is an int: compare its low 32 bits, so that high bits set by the caller (which the
  // kernel ignores) cannot slip past the rule.
  if (rc == 0 && sockets == UnixSockets::kDeny)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, AF_UNIX));
  if (rc == 0) rc = RefuseSetIdModes(ctx);
  if (rc == 0) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) return std::string("cannot load the system-call filter: ") + std::strerror(-rc);
  return "";
}

namespace {

// Whether this network namespace has a TCP socket listening on 127.0.0.1:PORT (/proc/net/tcp:
// local address in hex, little-endian for the address, state 0A).
bool Listening(int port) {
  char want[32];
  std::snprintf(want, sizeof want, "0100007F:%04X", port);
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  while (std::getline(tcp, line)) {
    std::istringstream in(line);
    std::string sl, local, remote, state;
    if (in >> sl >> local >> remote >> state && local == want && state == "0A") return true;
  }
  return false;
}

}  // namespace

std::string StartForwarder(int port, const std::string& forwarder, const std::string& socket) {
  const std::string listen =
      "TCP-LISTEN:" + std::to_string(port) + ",bind=127.0.0.1,fork,reuseaddr";
  const std::string connect = "UNIX-CONNECT:" + socket;
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return std::string("cannot fork the egress forwarder: ") + std::strerror(errno);
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    dup2(2, 1);  // its words, if any, with the drone's stderr
    const char* argv[] = {"socat", listen.c_str(), connect.c_str(), nullptr};
    execv(forwarder.c_str(), const_cast<char* const*>(argv));
    _exit(127);
  }
  for (int waited = 0; waited < 5000; waited += 5) {
    if (Listening(port)) return "";
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid)
      return "the egress forwarder " + forwarder + " ended before it listened (status " +
             std::to_string(status) + ")";
    usleep(5000);
  }
  kill(pid, SIGKILL);
  return "the egress forwarder " + forwarder +
         " did not listen on 127.0.0.1:" + std::to_string(port) + " within 5 s";
}

}  // namespace hangar
