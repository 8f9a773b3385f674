// SdNotify and StatusLine: the exact datagrams hangard sends systemd (no systemd needed: the test
// is the listener on NOTIFY_SOCKET), and the STATUS= line for each state of the work and ledger.
#include "daemon/sd_notify.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "base/scratch_dir_testutil.h"

namespace hangar {
namespace {

// A datagram socket bound at path (or, from '@', in the abstract namespace) and NOTIFY_SOCKET
// naming it, for one test.
class Listener {
 public:
  explicit Listener(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr {};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.data(), path.size());
    if (path[0] == '@') addr.sun_path[0] = '\0';
    bound_ = bind(fd_, reinterpret_cast<struct sockaddr*>(&addr),
                  socklen_t(offsetof(struct sockaddr_un, sun_path) + path.size())) == 0;
    setenv("NOTIFY_SOCKET", path.c_str(), 1);
  }
  ~Listener() {
    unsetenv("NOTIFY_SOCKET");
    close(fd_);
  }
  bool bound() const { return bound_; }
  // The next datagram, or "(none)" when nothing is waiting.
  std::string Next() {
    char buf[4096];
    ssize_t n = recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    return n < 0 ? "(none)" : std::string(buf, size_t(n));
  }

 private:
  int fd_ = -1;
  bool bound_ = false;
};

TEST(SdNotify, SendsTheStateAsOneDatagram) {
  ScratchDir dir("sd-notify");
  Listener l(dir.path() + "/notify");
  ASSERT_TRUE(l.bound());
  SdNotify("READY=1");
  SdNotify("WATCHDOG=1");
  SdNotify("STATUS=running");
  EXPECT_EQ(l.Next(), "READY=1");
  EXPECT_EQ(l.Next(), "WATCHDOG=1");
  EXPECT_EQ(l.Next(), "STATUS=running");
  EXPECT_EQ(l.Next(), "(none)");
}

TEST(SdNotify, AbstractSocket) {
  std::string name = "@hangar-sd-notify-test-" + std::to_string(getpid());
  Listener l(name);
  ASSERT_TRUE(l.bound());
  SdNotify("STOPPING=1");
  EXPECT_EQ(l.Next(), "STOPPING=1");
}

TEST(SdNotify, NothingWithoutTheVariable) {
  unsetenv("NOTIFY_SOCKET");
  SdNotify("READY=1");  // must neither fail nor block
  setenv("NOTIFY_SOCKET", "", 1);
  SdNotify("READY=1");
  unsetenv("NOTIFY_SOCKET");
}

TEST(StatusLine, Running) {
  EXPECT_EQ(StatusLine({}), "STATUS=running");
}

TEST(StatusLine, Stopping) {
  ServiceState s;
  s.stopping = true;
  s.work_stopped = "x";
  EXPECT_EQ(StatusLine(s), "STATUS=stopping; running drones are left to their supervisors");
}

TEST(StatusLine, WorkStoppedSaysAll) {
  ServiceState s;
  s.work_stopped = "cannot rename queued/a: Input/output error";
  s.fail_closed = "f";
  s.intake_paused = "p";
  EXPECT_EQ(StatusLine(s),
            "STATUS=stopped: cannot rename queued/a: Input/output error; restart hangard once the "
            "disk is fixed");
}

TEST(StatusLine, FailClosedAndIntakePaused) {
  ServiceState s;
  s.fail_closed = "anchor-missing";
  EXPECT_EQ(StatusLine(s),
            "STATUS=failed closed: anchor-missing; no launch, op or grant until hangar ledger "
            "reanchor");
  s.intake_paused = "No space left on device";
  EXPECT_EQ(StatusLine(s),
            "STATUS=failed closed: anchor-missing; no launch, op or grant until hangar ledger "
            "reanchor; intake paused: No space left on device");
  s.fail_closed.clear();
  EXPECT_EQ(StatusLine(s), "STATUS=intake paused: No space left on device");
}

// A dropped file named "a\nMAINPID=1" must not become a line systemd reads.
TEST(StatusLine, ControlCharactersNeverReachSystemd) {
  ServiceState s;
  s.intake_paused = "cannot take incoming/new/a\nMAINPID=1\r\t\x7f: No space";
  std::string line = StatusLine(s);
  EXPECT_EQ(line, "STATUS=intake paused: cannot take incoming/new/a?MAINPID=1???: No space");
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace hangar
