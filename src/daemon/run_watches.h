// RunWatches: hangard's watches on each running mission whose drone has not been seen ending: its
// run/ directory (the supervisor's exit.json renamed in, its lock closed) and its room's ops/
// directory (the window's requests, man/hangar-ops.5), and the requests seen there not yet handed
// to the kernel.
//
// What it promises: a request is handed over once per mission (NextOp never gives the same NAME
// twice while the mission is watched, nor one whose answer is already in the spool); a request a
// scan finds is handed over only once left alone (LeftAlone: a file written in place may still be
// open; its close wakes the watch at once); an exit.json seen while the supervisor still held its
// lock is looked at again a few times shortly (RecheckLater). A watch that cannot be added leaves
// the mission to the periodic checks (said once). Unwatch forgets everything of the mission.
//
// Thread: the daemon's loop only. The inotify descriptor is the daemon's; RunWatches adds and
// removes watches on it and is told of its events.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "env/env.h"
#include "kernel/layout.h"

namespace hangar {

// A file seen while perhaps still written in place (an op request a scan finds, a drop or control
// created in new/ with one link) is taken once this long unchanged, if its close has not come.
inline constexpr TimeMs kOpSettleMs = 2000;
// Whether a file last modified at MODIFIED has been left alone long enough at NOW: unchanged for
// kOpSettleMs, or modified more than kOpSettleMs ahead of NOW (a clock stepped back, an mtime set
// by hand: waiting for the clock could stall the file for as long as it is ahead). A small lead
// (a file server's clock a little ahead) still waits, so a file being written is not taken.
inline bool LeftAlone(TimeMs modified, TimeMs now) {
  return modified + kOpSettleMs <= now || modified > now + kOpSettleMs;
}
// Looks at an exit.json seen while its supervisor held the lock, one per turn (~10 ms apart).
inline constexpr int kExitRechecks = 50;

class RunWatches {
 public:
  using SayFn = std::function<void(const std::string& line)>;
  RunWatches(Env* env, Layout layout, int inotify_fd, SayFn say);

  // Watches mission ID's run/ and ROOM/ops, and scans ROOM/ops for requests already there.
  void Watch(const std::string& id, TimeMs now);
  void Unwatch(const std::string& id);
  bool Watched(const std::string& id) const { return run_wd_.count(id) > 0; }
  std::vector<std::string> Ids() const;
  bool Any() const { return !run_wd_.empty(); }

  // An inotify event on watch WD for NAME: the mission whose exit.json or lock it concerns, if
  // any; an op request it names is queued for Next.
  std::optional<std::string> Event(int wd, const std::string& name);
  // Queues the requests in ROOM/ops left unchanged for kOpSettleMs (a restart, an overflow, a
  // watch lost because the drone replaced the directory): the periodic checks call it.
  void ScanOps(const std::string& id, TimeMs now);
  // The next request (id, NAME) to hand to the kernel, once each; nothing when none waits.
  std::optional<std::pair<std::string, std::string>> NextOp();
  void DropPendingOps() { pending_ops_.clear(); }

  // Mission ID's exit.json is there while its supervisor holds the lock: look again shortly.
  void RecheckLater(const std::string& id);
  bool Rechecking(const std::string& id) const { return exit_recheck_.count(id) > 0; }
  void RecheckDone(const std::string& id) { exit_recheck_.erase(id); }
  // The missions to look at again this turn (each at most kExitRechecks times in all).
  std::vector<std::string> DueRechecks();
  bool AnyRecheck() const { return !exit_recheck_.empty(); }

 private:
  void WatchOps(const std::string& id, TimeMs now);

  Env* env_;
  Layout layout_;
  int inotify_fd_;
  SayFn say_;
  std::map<int, std::string> run_watch_;     // inotify wd -> mission id
  std::map<std::string, int> run_wd_;        // mission id -> inotify wd (-1: the checks look)
  std::map<int, std::string> ops_watch_;     // inotify wd of ROOM/ops -> mission id
  std::map<std::string, int> ops_wd_;        // mission id -> that wd (-1: the checks look)
  std::map<std::string, int> exit_recheck_;  // mission id -> looks left
  // Requests (id, NAME) seen and not yet handed over, and those already handed to the kernel.
  std::deque<std::pair<std::string, std::string>> pending_ops_;
  std::set<std::pair<std::string, std::string>> ops_taken_;
};

}  // namespace hangar
