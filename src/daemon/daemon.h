// Daemon: hangard's imperative shell around the pure kernel. One thread runs the event loop:
// inotify on incoming/new, control/new, each running mission's run/ directory and its room's ops/
// directory (the window); a signalfd for
// SIGTERM/SIGINT; the worker pool's eventfd for finished observations; a one-second tick that
// checks supervisors' locks and retries notify deliveries. Every signal goes through Decide and
// every action is performed here, in order.
//
// Storage failures (issue 6). A failed write, sync, rename or ledger append made for a decision
// leaves that file's state unknown: a failed fsync may already have dropped the data, and trying
// again "succeeds" without bringing it back (PostgreSQL's fsync lesson). The daemon then *stops
// its work*: it decides nothing more (no intake, launch, control, op or grant), stays up, says why
// once on stderr, in hangard.json ("work") and to systemd (STATUS=), and leaves running drones to
// their supervisors, which keep enforcing deadlines; their ends are taken up by the next start,
// which recovers from the spool, the truth. Only a restart leaves the state.
// This is the shell's state, not the kernel's (unlike failing closed): after a failed act the
// kernel's State is ahead of the disk (it believes a move, a launch or an entry happened), so no
// signal may be decided against it at all, not even an end that only frees a slot and returns a
// mission; asking the kernel to refuse some decisions would still let it act on a false state.
// At start, failures before recovery's decisions (the ledger, the spool's directories, unfinished
// intakes) still end hangard with exit 74.
//
// A full disk (ENOSPC, EDQUOT) is the one stop that ends by itself. A drone filling the spool's
// filesystem must not stop the service for good: once stopped for want of space, the daemon looks
// every few seconds (kStorageRetryMs) whether space has returned (at least kResumeFreeBytes free,
// no observation in flight, hangard.json written again) and then asks for a restart in place
// (restart(): hangard_main re-executes itself, same pid, HANGAR_FAULT dropped), which recovers
// from the spool like any start. Meanwhile hangard.json says "storage": "full" whenever it can be
// written, and `hangar status` reads the free space itself. Supervisors keep a drone's exit record
// until it can be written (launch/supervisor.cc), so no end is lost to a full disk.
//
// A full disk at intake (ENOSPC, EDQUOT while taking incoming/new/NAME in) is not such a failure:
// the half-made .ID.tmp is removed and the drop stays where it is, the kernel forgets the mission
// (IntakeFailed, recorded), and intake *pauses*: the first waiting drop is tried again every few
// seconds, and the first intake that succeeds resumes it. Nothing is rejected for a full disk.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "daemon/ledger_keeper.h"
#include "daemon/periodic.h"
#include "daemon/watchdog.h"
#include "daemon/worker_pool.h"
#include "env/env.h"
#include "kernel/kernel.h"
#include "kernel/layout.h"
#include "launch/launcher.h"
#include "shell/manifest.h"
#include "shell/notify_outbox.h"

namespace hangar {

inline constexpr TimeMs kSupervisorCheckMs = 2000;  // each supervisor's lock looked at this often
inline constexpr TimeMs kIntakeRetryMs = 5000;      // intake paused for space: a drop tried
inline constexpr TimeMs kStorageRetryMs = 2000;     // stopped for a full disk: space looked for

class Daemon {
 public:
  // anchor_dir: where the ledger's anchor lives (absolute; meant to be another mount).
  Daemon(Env* env, KernelSetup setup, Layout layout, ManifestLimits limits, std::string shim_path,
         std::string config_path, std::string anchor_dir);
  ~Daemon();

  // Creates missing spool directories, takes the spool lock, recovers, and scans what waits.
  Status Start();
  // Runs until SIGTERM or SIGINT (Ok), also when stopped by a storage failure; an error only when
  // the loop itself cannot wait (poll).
  Status Run();

  // Why the work stopped (a storage failure), empty while it goes on; why intake waits for space.
  const std::string& stopped() const { return stopped_; }
  const std::string& intake_paused() const { return intake_paused_; }
  // Run returned because space came back after a stop for a full disk: restart in place.
  bool restart() const { return restart_; }

 private:
  Status Dispatch(Signal s);
  Status Decided(const Signal& s, std::deque<Signal>* pending);
  Status Perform(const Action& a, std::deque<Signal>* follow);  // std::visit: every action type
  Status PerformObserve(const Observe& x);
  // Takes each created_open_ file left unchanged for kOpSettleMs (a link whose other name went
  // before hangard looked: no close will come), and forgets those that are gone.
  void TakeSettled(TimeMs now);
  Status PerformKill(const Kill& x);
  Status PerformMoveAction(const Move& x);
  Status PerformConsumeAction(const ConsumeControl& x);
  Status PerformLaunch(const Launch& l, std::deque<Signal>* follow);
  Status TakeName(const std::string& name);
  Status TakeControl(const std::string& name);
  Status ScanAll();
  Status TakePending(size_t max);
  Status ReadInotify(bool* overflow);
  Status CheckSupervisors();
  // Engine launchers (systemd, Slurm): the launcher a plan names, made on first use; the ends of
  // engine-run drones, observed every launchers.poll_s (an end becomes run/exit.json, then the
  // same DroneExited as the direct launcher's; an engine that knows no such drone: SupervisorGone).
  Launcher* LauncherFor(const std::string& name);
  Status CheckEngines();
  Status EngineEnded(const std::string& id, const ExitInfo& e);
  // Before recovery: the ends engines saw while hangard was down become exit.json, and the run
  // directories of drones an engine still runs (or cannot say) are returned, as alive.
  Result<std::set<std::string>> CollectEngineEnds();
  Status CheckExit(const std::string& id);
  Status RecheckExits();
  void WatchRun(const std::string& id);
  void UnwatchRun(const std::string& id);
  // The window: requests in ROOM/ops of running missions, taken one at a time.
  void WatchOps(const std::string& id);
  void ScanOps(const std::string& id);
  Status TakeOps();
  Status PerformRunOp(const RunOp& r, std::deque<Signal>* follow);
  Status PerformAnswerOp(const AnswerOp& a);
  Status WritePresence(const char* status);
  // hangard.json while running: a write that fails stops the work (or, once stopped, is said).
  void UpdatePresence();
  // Enters the stopped state with cause's message as the reason (the first reason stands), see
  // above; a cause of ENOSPC or EDQUOT is a full disk, which ends by a restart in place.
  void StopWork(const Status& cause);
  // Stopped for a full disk: has space returned (see above)? Then the loop ends for a restart.
  bool SpaceReturned();
  // Performs an Intake; false when it failed for lack of space and was undone (intake paused,
  // IntakeFailed queued in *pending).
  Status PerformIntakeAction(const Intake& in, std::deque<Signal>* pending, bool* undone);
  void PauseIntake(const std::string& reason);
  void RetryIntake();
  // One turn of the loop after poll (which of the signalfd, inotify and the workers' eventfd are
  // readable); *quit when a SIGTERM or SIGINT came.
  Status Turn(bool signals, bool events, bool observations, bool* quit);
  void Say(const std::string& line);
  void Checkpoint();  // a signed checkpoint when one is due

  Env* env_;
  KernelSetup setup_;
  Layout layout_;
  ManifestLimits limits_;
  std::string shim_path_, config_path_, anchor_dir_;
  State state_;
  std::unique_ptr<WorkerPool> pool_;
  LedgerKeeper ledger_;
  std::string presence_fail_closed_;  // fail_closed as hangard.json last said it
  bool running_ = false;              // Start is over: hangard.json follows fail_closed
  NotifyOutbox outbox_;
  int lock_fd_ = -1, inotify_fd_ = -1, signal_fd_ = -1;
  int anchor_lock_fd_ = -1;
  bool presence_clock_behind_ = false;  // what hangard.json says of the clock  // flock on the
                                        // anchor directory: one hangard per anchor
  int wd_incoming_ = -1, wd_control_ = -1;
  // Drops and control requests seen but not yet taken: a burst is taken a batch per loop turn, so
  // drones' ends and finished observations are handled in between (they free slots).
  std::deque<std::string> pending_names_, pending_controls_;
  // Drops and controls (control?, name) created in place and not closed yet (IN_CREATE of a
  // regular file with one link): taken at their close, or by TakeSettled once unchanged 2 s.
  std::set<std::pair<bool, std::string>> created_open_;
  std::map<int, std::string> run_watch_;  // inotify wd -> mission id
  std::map<std::string, int> run_wd_;     // mission id -> inotify wd (running, drone not ended)
  // exit.json seen while the supervisor still held its lock: looked at again a few times shortly
  // (the lock goes a moment after the file appears), then left to the supervisor check.
  std::map<std::string, int> exit_recheck_;
  std::set<std::string> kill_pending_;  // cancels whose signal did not reach the supervisor yet
  std::map<std::string, std::unique_ptr<Launcher>> launchers_;  // by name, made on first use
  std::map<std::string, Plan> engine_runs_;     // mission id -> plan, of drones an engine runs
  std::map<std::string, TimeMs> engine_since_;  // when each was launched (or found at start)
  std::string engine_said_;                     // the last "engine does not answer" line said
  Periodic engine_check_{1000, Periodic::StepBack::kRestart};  // period: launchers.poll_s
  std::map<int, std::string> ops_watch_;  // inotify wd of ROOM/ops -> mission id
  std::map<std::string, int> ops_wd_;     // mission id -> that wd (-1: the tick looks instead)
  // Requests (id, NAME) seen and not yet read, and those already handed to the kernel.
  std::deque<std::pair<std::string, std::string>> pending_ops_;
  std::set<std::pair<std::string, std::string>> ops_taken_;
  TimeMs started_ = 0;
  Periodic supervisor_check_{kSupervisorCheckMs, Periodic::StepBack::kDueNow};
  Periodic notify_retry_{1000, Periodic::StepBack::kRestart};  // period: notify_retry_s
  std::set<std::string> start_names_;  // drops that waited in incoming/new at start, not taken yet
  std::string stopped_;                // why the work stopped; empty: it goes on
  std::string intake_paused_;          // why intake waits for space; empty: it does not
  TimeMs stopped_at_ = 0, intake_paused_at_ = 0;
  Periodic intake_retry_{kIntakeRetryMs, Periodic::StepBack::kRestart};
  bool presence_said_ = false;  // a failed hangard.json write while stopped was logged
  bool storage_full_ = false;   // stopped for want of space (ENOSPC, EDQUOT)
  bool restart_ = false;        // space returned: Run ended for a restart in place
  Periodic storage_check_{kStorageRetryMs, Periodic::StepBack::kDueNow};
  bool rooms_same_fs_ = false;  // the rooms are on the spool's filesystem (st_dev), seen at start
  Watchdog watchdog_ = Watchdog::FromEnvironment();  // pinged at every turn of the loop
};

}  // namespace hangar
