// hangar wait: blocks until a mission has ended — returned/ID/return.json exists, or the mission
// is in denied/ or rejected/. inotify on the terminal state directories (and on returned/ID once it
// exists) wakes us early; the directories are the truth and are looked at again at least every
// second, so a lost or overflowed event costs at most a second. A returned mission with a notify
// dir has ended for its waiter once the return is in that dir's new/: while its outbox record
// (notify/ID.json) says "pending delivery", wait goes on waiting; a delivery that failed (the
// record keeps why, and hangard tries again) is said on stderr and does not hold the ending.
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <cmath>

#include "cli/commands.h"
#include "cli/ending.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/spool_view.h"
#include "kernel/mission.h"

namespace hangar::cli {

namespace {

// An inotify descriptor watching where an ending shows up. -1 when inotify is unavailable: then we
// only poll.
class Watcher {
 public:
  explicit Watcher(const Layout& l) : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    for (Phase p : {Phase::kReturned, Phase::kDenied, Phase::kRejected}) Add(l.StateDir(p));
  }
  ~Watcher() {
    if (fd_ >= 0) close(fd_);
  }
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  void Add(const std::string& dir, uint32_t also = 0) {
    if (fd_ >= 0)
      inotify_add_watch(fd_, dir.c_str(),
                        IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR | also);
  }
  // Sleeps until an event or ms have passed; drains what came.
  void Sleep(int ms) {
    if (fd_ < 0) {
      usleep(useconds_t(ms) * 1000);
      return;
    }
    struct pollfd p = {fd_, POLLIN, 0};
    if (poll(&p, 1, ms) > 0) {
      alignas(struct inotify_event) char buf[8192];
      while (read(fd_, buf, sizeof buf) > 0) {
      }
    }
  }

 private:
  int fd_;
};

}  // namespace

int RunWait(const Context& ctx, const std::string& id, std::optional<double> timeout_s) {
  if (!ValidId(id)) return FailTo(ctx.err, kExitUsage, "wait for " + id, "not a valid mission id");
  SpoolView view(ctx.env, ctx.layout);
  if (Status s = view.CheckReadable(); !s.ok()) return Fail(ctx.err, kExitNoInput, s.message());

  using Clock = std::chrono::steady_clock;
  const auto deadline =
      timeout_s ? Clock::now() + std::chrono::milliseconds(int64_t(std::ceil(*timeout_s * 1000)))
                : Clock::time_point::max();
  // An id found nowhere (a typo, or a mission long removed) would wait forever: say so at once.
  if (!view.Locate(id))
    return FailTo(ctx.err, kExitNoInput, "wait for " + id,
                  "no such mission in " + ctx.layout.spool);
  Watcher watcher(ctx.layout);
  watcher.Add(ctx.layout.Notify(), IN_DELETE | IN_MOVED_FROM);  // a delivered record goes
  bool watching_dir = false;
  std::string pending_to;  // the notify dir the return waits for, while it does
  for (;;) {
    auto look = LookForEnding(view, ctx.layout, id);
    if (!look.ok()) return FailTo(ctx.err, kExitIo, "wait for " + id, look.status().message());
    pending_to.clear();
    if (const std::optional<Ending>& e = *look;
        e && view.Exists(ctx.layout.MissionDir(Phase::kReturned, id)))
      if (Result<json::Value> rec = view.ReadJson(ctx.layout.Notify() + "/" + id + ".json");
          rec.ok()) {
        const std::string reason = StringField(*rec, "reason");
        if (reason == "pending delivery")
          pending_to = StringField(*rec, "dir");
        else
          ctx.err << "hangar: wait for " << Printable(id)
                  << ": note: the return is not delivered to "
                  << Printable(StringField(*rec, "dir")) << " (" << Printable(reason)
                  << "); hangard tries again\n";
      }
    if (const std::optional<Ending>& e = *look; e && pending_to.empty()) {
      if (ctx.json)
        PrintJson(ctx.out, e->doc);
      else
        ctx.out << Printable(e->line) << "\n";
      return e->exit_code;
    }
    const std::string returned_dir = ctx.layout.MissionDir(Phase::kReturned, id);
    if (!watching_dir && view.Exists(returned_dir)) {
      watcher.Add(returned_dir);  // return.json may be written after the move
      watching_dir = true;
      continue;  // it may have been written before the watch
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      std::optional<MissionRef> where = view.Locate(id);
      char secs[32];
      snprintf(secs, sizeof secs, "%g", *timeout_s);
      return FailTo(
          ctx.err, kExitTimeout, "wait for " + id,
          std::string("timed out after ") + secs + " s (" +
              (!pending_to.empty() ? "returned, its delivery to " + pending_to + " still pending"
               : where             ? "still " + where->state
                                   : "not in the spool") +
              ")");
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    watcher.Sleep(int(std::min<int64_t>(1000, left)));
  }
}

}  // namespace hangar::cli
