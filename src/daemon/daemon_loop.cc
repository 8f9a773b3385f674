// The loop: poll on the signalfd, inotify and the workers' eventfd; each turn takes what they
// say, then the drops and requests that wait (all of it one batch), then the periodic checks that
// are due (daemon/periodic.h: a wall clock stepped back stalls none of them).
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "daemon/daemon.h"
#include "daemon/sd_notify.h"
#include "launch/direct_launcher.h"
#include "shell/scan.h"
#include "shell/users.h"

namespace hangar {

namespace {

constexpr size_t kTakePerTurn = 8;  // drops taken per loop turn before ends are looked at again

}  // namespace

Status Daemon::Run() {
  for (;;) {
    bool quit = false;
    Status s = Step(1000, &quit);
    if (quit) return s;
  }
}

Status Daemon::Step(int max_wait_ms, bool* quit) {
  if (watchdog_.Due(MonotonicUs())) SdNotify("WATCHDOG=1");
  struct pollfd fds[4] = {{inotify_fd_, POLLIN, 0},
                          {signal_fd_, POLLIN, 0},
                          {pool_->ready_fd(), POLLIN, 0},
                          {launches_->ready_fd(), POLLIN, 0}};
  int wait = drops_.Backlog() ? 0 : watches_->AnyRecheck() ? 10 : max_wait_ms;
  if (hold_until_us_ != 0)  // a return held: no longer than its hold (daemon.h, RETURNS HELD)
    wait = std::min<int64_t>(wait,
                             std::max<int64_t>(0, (hold_until_us_ - MonotonicUs() + 999) / 1000));
  int n = poll(fds, 4, wait);
  if (n < 0 && errno != EINTR) {
    *quit = true;
    return Status::Errno("poll", errno);
  }
  Status s = Turn(fds[1].revents & POLLIN, fds[0].revents & POLLIN, fds[2].revents & POLLIN,
                  fds[3].revents & POLLIN, quit);
  if (*quit) {
    // No launch is left half known: those in flight end as decisions first (daemon.h).
    if (Status l = SettleLaunches(); !l.ok()) StopWork(l);
    // A stop leaves the record whole: the lines of decisions that only logged go out too (best
    // effort: they did nothing a start would miss, so a failure here is said and no more).
    if (!work_.stopped() && setup_.config.record_signals)
      if (Status f = signals_.Flush(); !f.ok())
        Say("cannot write the signal record's last lines: " + f.message(), Priority::kErr);
    return work_.stopped() ? Status::Ok() : s;  // s: hangard.json's last write
  }
  // A failure outside a decision (a scan that cannot list, a notify record): the same stop.
  if (!s.ok()) StopWork(s);
  return Status::Ok();
}

Status Daemon::Turn(bool signals, bool events, bool observations, bool launches, bool* quit) {
  if (signals) {
    if (Status s = Drain(); !s.ok()) return s;  // a return held goes out first
    struct signalfd_siginfo si {};
    (void)!read(signal_fd_, &si, sizeof si);
    if (si.ssi_signo == SIGHUP) {
      if (work_.stopped()) {
        Say("SIGHUP: the work is stopped (" + work_.stopped_reason() +
            "); restart hangard once the disk is fixed");
        return Status::Ok();
      }
      Say("SIGHUP: rescanning the spool");
      // Group membership may have changed: the approvers again, the old set kept on an error.
      if (Result<std::set<int64_t>> a = ResolveApprovers(setup_.config.approvers, geteuid());
          a.ok())
        setup_.approvers = std::move(a).value();
      else
        Say("SIGHUP: approvers kept as they were: " + a.status().message());
      return ScanAll();
    }
    Say(std::string("stopping on ") + strsignal(int(si.ssi_signo)) +
        "; running drones are left to their supervisors" +
        (pool_->in_flight()
             ? " and " + std::to_string(pool_->in_flight()) + " observations to the next start"
             : ""));
    *quit = true;
    return WritePresence("stopped");
  }
  // Everything the turn finds is decided before anything is written: the drones' ends, the
  // launches' and the observations' reports, the drops and requests. One commit for all
  // (daemon.h, THE BATCH): the lines, the entries and the anchor wait once for the turn, not once
  // for each kind of news it brought.
  // A batch of returns alone may wait for the next turn's (daemon.h, RETURNS HELD).
  BeginBatch();
  Status decided = DecideTurn(events, observations, launches);
  may_hold_ = decided.ok();
  Status ended = EndBatch();
  may_hold_ = false;
  if (decided.ok()) decided = ended;
  if (!decided.ok()) return decided;
  const TimeMs now = env_->Now();
  if (supervisor_check_.Due(now)) {
    Status s = CheckSupervisors();
    if (!s.ok()) return s;
  }
  if (!engines_.empty() && !work_.stopped() && engine_check_.Due(now)) {
    Status s = CheckEngines();
    if (!s.ok()) return s;
  }
  if (work_.storage_full() && storage_check_.Due(now)) {
    if (SpaceReturned()) {
      *quit = true;
      restart_ = true;
      return Status::Ok();
    }
  }
  if (work_.stopped()) return Status::Ok();  // no checkpoint, no delivery: nothing is trusted
  Checkpoint();
  if (setup_.config.retention.any() && retention_check_.Due(now)) DropRetention(now);
  if (notify_retry_.Due(now)) {
    Status s = outbox_.Retry();
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status Daemon::DecideTurn(bool events, bool observations, bool launches) {
  if (events) {
    bool overflow = false;
    Status s = ReadInotify(&overflow);
    if (s.ok() && overflow) {
      Say("inotify queue overflowed: rescanning the spool", Priority::kWarning);
      s = ScanAll();
    }
    if (!s.ok()) return s;
  }
  if (launches)  // the launches finished meanwhile, as the observations below
    if (Status s = DecideLaunched(launches_->Drain()); !s.ok()) return s;
  if (observations)
    for (Signal& sig : pool_->Drain())
      if (Status s = Dispatch(std::move(sig)); !s.ok()) return s;
  const TimeMs now = env_->Now();
  if (!work_.stopped() && work_.intake_paused() && intake_retry_.Due(now)) RetryIntake();
  // A canary that has run its span: the kernel hears the time (nothing else may come meanwhile).
  if (!work_.stopped())
    if (std::optional<TimeMs> due = CanaryDue(state_); due && now >= *due)
      if (Status s = Dispatch(Tick{now}); !s.ok()) return s;
  drops_.TakeSettled(now);
  if (Status s = TakeOps(); !s.ok()) return s;
  // A control request is judged on the files of the missions it names (a retry's returned/ID, a
  // cancel's mission.json), read as it is taken: what the turn decided so far is committed and
  // performed first, so that it reads them as those decisions left them.
  if (drops_.Controls()) {
    Status s = EndBatch();
    BeginBatch();
    if (!s.ok()) return s;
  }
  if (Status s = TakePending(kTakePerTurn); !s.ok()) return s;
  return RecheckExits();
}

Status Daemon::ReadInotify(bool* overflow) {
  alignas(struct inotify_event) char buf[64 * 1024];
  std::vector<std::string> exits;
  for (;;) {
    ssize_t n = read(inotify_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (char* p = buf; p < buf + n;) {
      auto* ev = reinterpret_cast<struct inotify_event*>(p);
      p += sizeof(struct inotify_event) + ev->len;
      if (ev->mask & IN_Q_OVERFLOW) {
        *overflow = true;
        continue;
      }
      std::string name = ev->len ? std::string(ev->name) : std::string();
      // While intake is paused for space, drops wait for the retry, which lists incoming/new
      // itself (RetryIntake; the resume lists every drop that waited): a drop dropped then, or
      // one an undone intake moved back, would otherwise be tried at once, a full disk's writes
      // and undo again for each.
      if (ev->wd == wd_incoming_ && work_.intake_paused()) continue;
      if (ev->wd == wd_incoming_ || ev->wd == wd_control_)
        drops_.Event(ev->wd == wd_control_, name, ev->mask & IN_CREATE);
      else if (std::optional<std::string> id = watches_->Event(ev->wd, name))
        exits.push_back(*id);
    }
  }
  // Drones that ended together are decided together (daemon.h, THE BATCH).
  BeginBatch();
  for (const std::string& id : exits)
    if (Status s = CheckExit(id); !s.ok()) {
      (void)EndBatch();
      return s;
    }
  return EndBatch();
}

Status Daemon::CheckExit(const std::string& id) {
  // An engine-run drone's exit.json is hangard's own (EngineEnded), decided on when written.
  if (!watches_->Watched(id) || engines_.PlanOf(id)) return Status::Ok();
  if (SupervisorAlive(layout_.RunDir(id))) {
    // Its exit.json counts only once the supervisor has let go (see scan.h); the lock's release
    // wakes us through IN_CLOSE_WRITE, a short recheck covers the moment in between.
    if (env_->Exists(layout_.RunDir(id) + "/exit.json")) watches_->RecheckLater(id);
    return Status::Ok();
  }
  watches_->RecheckDone(id);
  Result<ExitInfo> e = ReadExit(env_, layout_.RunDir(id));
  if (!e.ok()) {
    if (e.status().code() != Code::kNotFound) Say(id + ": " + e.status().message());
    return Status::Ok();
  }
  UnwatchRun(id);
  return Dispatch(DroneExited{id, *e, env_->Now()});
}

Status Daemon::RecheckExits() {
  BeginBatch();  // as ReadInotify's
  for (const std::string& id : watches_->DueRechecks())
    if (Status s = CheckExit(id); !s.ok()) {
      (void)EndBatch();
      return s;
    }
  return EndBatch();
}

Status Daemon::CheckSupervisors() {
  for (const std::string& id : watches_->Ids()) {
    if (engines_.PlanOf(id)) continue;   // CheckEngines
    if (launching_.count(id)) continue;  // no lock yet is no lost drone (daemon.h)
    const std::string run = layout_.RunDir(id);
    if (SupervisorAlive(run)) {
      if (kill_pending_.count(id) && SignalSupervisor(run, SIGTERM).ok()) kill_pending_.erase(id);
      watches_->ScanOps(id, env_->Now());
      continue;
    }
    Result<ExitInfo> e = ReadExit(env_, run);  // after the lock test: see scan.h
    if (!e.ok() && e.status().code() != Code::kNotFound) Say(id + ": " + e.status().message());
    UnwatchRun(id);
    Status s = e.ok() ? Dispatch(DroneExited{id, *e, env_->Now()})
                      : Dispatch(SupervisorGone{id, env_->Now()});
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status Daemon::EngineEnded(const std::string& id, const ExitInfo& e) {
  // Kept as a supervisor keeps it, visible, and made durable with the decision (ExitRead): a
  // restart reads the same end, or, should a power loss take it back, asks the engine again.
  Status s = env_->WriteFileVisible(layout_.RunDir(id), "exit.json", json::WritePretty(e.ToJson()));
  if (!s.ok()) return s;
  UnwatchRun(id);
  return Dispatch(DroneExited{id, e, env_->Now()});
}

Status Daemon::CheckEngines() {
  const EngineWatch::Looked looked = engines_.Look(env_->Now());
  for (const EngineWatch::Seen& seen : looked.seen) {
    const Plan* plan = engines_.PlanOf(seen.id);
    if (!plan) continue;  // returned meanwhile, by a decision on an earlier one
    switch (seen.kind) {
      case EngineWatch::Seen::Kind::kEnded:
        if (Status s = EngineEnded(seen.id, seen.exit); !s.ok()) return s;
        break;
      case EngineWatch::Seen::Kind::kGone:
        Say(seen.line);
        UnwatchRun(seen.id);
        if (Status s = Dispatch(SupervisorGone{seen.id, env_->Now()}); !s.ok()) return s;
        break;
      case EngineWatch::Seen::Kind::kRunning:
        if (kill_pending_.count(seen.id) && engines_.For(plan->launcher)->Cancel(*plan).ok())
          kill_pending_.erase(seen.id);
        watches_->ScanOps(seen.id, env_->Now());
        break;
    }
  }
  engines_.SayUnanswered(looked.unanswered);
  return Status::Ok();
}

}  // namespace hangar
