// Daemon: hangard's imperative shell around the pure kernel. One thread runs the event loop:
// inotify on incoming/new, control/new, each running mission's run/ directory and its room's ops/
// directory (the window); a signalfd for SIGTERM/SIGINT/SIGHUP; the worker pools' eventfds for
// finished observations and ops, and for finished launches; periodic checks of supervisors' locks,
// engines, notify deliveries and space. Every signal goes through Decide and every action is
// performed in order.
//
// Its parts, one file each: daemon.cc (deciding: a signal through the kernel, the ledger's group
// commit, the work's state and hangard.json), daemon_start.cc (start and recovery),
// daemon_perform.cc (each action, a std::visit over every type), daemon_loop.cc (the loop, its
// inotify events and periodic checks); beside them the parts with a class of their own:
// DropQueue (drops and controls waiting), RunWatches (running missions' run/ and ops/),
// EngineWatch (engine-run drones), WorkState (ok, intake paused, stopped), Periodic (timers),
// PresenceJson (hangard.json), LedgerKeeper (the ledger, anchor and checkpoints).
//
// The signal record (ledger/signal_log.h, man/hangar-signals.5). Every signal is decided, then its
// line (the signal, the decision's digest, the state's) is buffered and, when the decision acts,
// written durably with its ledger entries, which carry the line's hash, and before their anchor
// lines; only then its acts.
// A line that cannot be written is a failed decision write: the work stops (below).
//
// THE BATCH (group commit across decisions). Everything one turn of the loop finds (Turn,
// DecideTurn: the drones' ends, the launches' and the observations' reports the workers finished,
// a canary's time, the window's requests, the drops and control requests it takes, the rechecks
// due) is decided one decision after the other without a write in between: each decision's entries
// are staged (LedgerKeeper:: Stage: their hashes are known, so the next decision's line names the
// head it follows) and its acts wait. Control requests are the exception: what hangard reads for
// one (a retry's returned/ID, a cancel's mission.json) must be what the decisions before it left,
// so when one waits, what the turn decided so far is committed first, and the requests and drops
// go into a second batch. Then one commit: every line in one write and every entry in one ledger
// write, fsynced in one wait (Env::AppendTogether), then one anchor write and fsync, then every
// act in decision order. The anchor follows both, and the acts the anchor, for the whole batch at
// once: a crash before the acts leaves decisions whose entries name no file yet, which a start
// decides again from the spool (as it did for one decision); a crash that keeps the lines and not
// the entries leaves a tail of lines whose entries never reached the ledger, all after the last
// committed one (replay/replayer.h accepts exactly that); a crash between the two writes or a
// power loss can leave unanchored entries naming lines the record lacks, which the start cuts
// (LedgerKeeper::Start), and the lines before them are again such a tail. A batch holds at most
// LedgerKeeper::kMaxBatch entries; a reanchor is never in one. Outside a batch every decision
// commits at once, as before. Two steps of the acts wait together: the batch's intakes
// (PerformIntakes, before the other acts), and launches that follow one another with only log lines
// between them (PerformLaunches: prepared step by step together, then each act of the run in
// order), so that their fsyncs wait at once (shell/transitions.h).
//
// RETURNS HELD (group commit across turns). A mission's end and its return come in two batches:
// the end (with the next launch) as soon as it is seen, the return once its room is observed, off
// the loop. With short drones the next drone then ends while the return's batch waits for the
// disk, and its end (and the launch after it) waits for that batch. So a turn whose batch holds
// only returns (running/ID -> returned/ID, with their log lines) does not commit it while some
// drone runs whose end may come: the batch stays open, and the next turn's news is decided into it
// and committed with it, one wait of the records for both, at most kReturnHoldUs later (the loop's
// poll waits no longer than that). Nothing of a held return is written before its records, as in
// any batch: a crash meanwhile leaves the drone's end and its observation to be decided again from
// the spool, as a crash before any commit does. A signal (SIGTERM, SIGINT, SIGHUP), any batch that
// is not the turn's own (a control request's, a periodic check's), and any other decision commit
// it at once.
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
// LAUNCHES OFF THE LOOP. A direct launch's spool part (PrepareLaunch: the room, plan.json,
// gate2.json, the key, launch.json, the move to running/) is done on the loop as an act of its
// decision; starting hangar-shim and waiting for its report (up to 10 s, some 20 ms as a rule) runs
// on the launch pool, so the loop takes drops and ends meanwhile. The mission is then *launching*
// (launching_, by attempt: a report of an attempt that is no longer the one launching is said
// and dropped, never decided for the next attempt): the kernel has it running and holding its
// slot; its run/ is watched already, so an end the supervisor records is decided as soon as
// seen, even before the launch's LaunchDone (the kernel lets a failed LaunchDone after a seen end
// go: the end stands); the supervisor check passes it by (no lock yet is no lost drone); a kill
// waits for the supervisor as for any other.
// The LaunchDone comes back through the pool's eventfd and is decided like any signal. A stop
// (SIGTERM, a restart for space) first waits for the launches in flight and decides them, so a
// stop leaves no launch half known; a crash in flight is a crash during a launch, as before.
// The shim is not executed for the launch: the shim zygote (zygote_, launch/shim_zygote.h),
// started with hangard, forks it on request (the loop's Begin, or the launch pool's), loaded and
// ready. Engine launchers
// (systemd, Slurm) still start on the loop.
// A direct launch is *begun* (Launcher::Begin) as soon as its room and run/ are made, before the
// waits for its plan, key and move: the zygote's child checks the plan's bytes and makes the
// drone's command meanwhile, and waits. The launch pool's task tells it to go (StartBegun) once
// the records and the key are durable and the mission is moved, beside the move's closing sync
// (PrepareLaunches, MOVED); a launch that does not get that far drops its
// Begun, which withdraws it: nothing of it runs. Nothing is begun while the zygote is not running
// or another thread holds it (Begin never waits): such a launch is asked for whole, as before.
//
// A full disk at intake (ENOSPC, EDQUOT while taking incoming/new/NAME in) is not such a failure:
// the half-made .ID.tmp is removed and the drop stays where it is, the kernel forgets the mission
// (IntakeFailed, recorded), and intake *pauses*: the first waiting drop is tried again every few
// seconds, and the first intake that succeeds resumes it. Meanwhile incoming/new's events are
// passed by (a drop put back by the undo would otherwise be tried again at once). Nothing is
// rejected for a full disk.
#pragma once

#include <signal.h>

#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "daemon/drop_queue.h"
#include "daemon/engine_watch.h"
#include "daemon/ledger_keeper.h"
#include "daemon/periodic.h"
#include "daemon/run_watches.h"
#include "daemon/stderr_log.h"
#include "daemon/watchdog.h"
#include "daemon/work_state.h"
#include "daemon/worker_pool.h"
#include "env/env.h"
#include "kernel/kernel.h"
#include "kernel/layout.h"
#include "kernel/setup_record.h"
#include "launch/shim_zygote.h"
#include "ledger/signal_log.h"
#include "shell/manifest.h"
#include "shell/notify_outbox.h"
#include "shell/transitions.h"
#include "shell/unbacked_keys.h"

namespace hangar {

inline constexpr TimeMs kSupervisorCheckMs = 2000;  // each supervisor's lock looked at this often
inline constexpr TimeMs kStorageRetryMs = 2000;     // stopped for a full disk: space looked for
inline constexpr int64_t kReturnHoldUs = 5000;      // RETURNS HELD: the longest a return waits

// What the launch pool hands back: the mission, StartShim's status as PerformLaunch takes it, and
// what the shell says of it (a late report whose supervisor holds the lock: taken as launched).
struct LaunchStarted {
  std::string id;
  int attempt = 0;
  Status status;
  std::string note;
};

class Daemon {
 public:
  // anchor_dir: where the ledger's anchor lives (absolute; meant to be another mount). FACTS:
  // what SETUP was built from (BuildSetup), the signal record's start line.
  Daemon(Env* env, KernelSetup setup, SetupFacts facts, Layout layout, ManifestLimits limits,
         std::string shim_path, std::string config_path, std::string anchor_dir);
  ~Daemon();

  // Creates missing spool directories, takes the spool's and the anchor's locks, recovers, and
  // scans what waits. Unavailable when another hangard holds either lock.
  Status Start();
  // Runs until SIGTERM or SIGINT (Ok, or hangard.json's last write failed), also when stopped by
  // a storage failure; an error only when the loop itself cannot wait (poll).
  Status Run();
  // One turn of the loop: waits at most MAX_WAIT_MS (not at all while drops wait, ~10 ms while an
  // exit is looked at again) for the signalfd, inotify and the workers, then takes what they say
  // and runs the periodic checks that are due. *quit when the loop is over: a SIGTERM or SIGINT
  // (the result is hangard.json's last write) or a restart for space. A failure outside a
  // decision stops the work, as one inside does; an error only when poll fails.
  Status Step(int max_wait_ms, bool* quit);

  // Why the work stopped (a storage failure), empty while it goes on; why intake waits for space.
  const std::string& stopped() const { return work_.stopped_reason(); }
  const std::string& intake_paused() const { return work_.intake_reason(); }
  // Run returned because space came back after a stop for a full disk: restart in place.
  bool restart() const { return restart_; }
  // Before a restart in place: the shim zygote goes (launch/shim_zygote.h).
  void ReleaseShimZygote() { zygote_.Release(); }
  // Until every observation and op handler submitted has finished; their results wait for the
  // next turn (so a test can have one turn find a drone's end and another's observation).
  void WaitPool() { pool_->Wait(); }
  // The longest a return alone waits for the next turn's batch (RETURNS HELD; kReturnHoldUs): a
  // test makes it long, to see a held return go out with the next news and at a stop.
  void HoldReturnsFor(int64_t us) { return_hold_us_ = us; }

 private:
  // ---- daemon.cc: deciding ----
  // The signal decided now (or, inside a batch, staged with the batch), and what its acts give
  // rise to after it. Ok also when a failure stopped the work (StopWork says it).
  Status Dispatch(Signal s);
  // A batch: what is dispatched between BeginBatch and the last EndBatch is decided at once and
  // committed together (see THE BATCH above); EndBatch commits and decides what the acts gave
  // rise to.
  void BeginBatch();
  Status EndBatch();
  Status Drain();  // decides every signal in follow_, and commits when no batch is open
  // Whether the batch Drain would commit is a return held (RETURNS HELD below): the turn's own
  // batch (may_hold_), only returns and log lines, a drone running whose end may come, and the
  // hold begun less than return_hold_us_ ago.
  bool Held();
  // Decides one signal: its line buffered, its entries staged, its acts added to the batch.
  Status Decided(const Signal& s);
  // The batch to the disk: the lines and the entries (one wait), the anchor lines, then every act
  // in order, the first intakes begun alongside the records (Commit's comment); what the acts
  // give rise to goes to follow_.
  Status Commit();
  // Commit's first half: the lines with the staged entries (the buffered lines with them when
  // FLUSH, a decision of the batch acting), or before EPOCH_RECORDS (a reanchor, which is never
  // staged) appended at once. An anchor that refuses them is an error, and the caller drops the
  // batch's acts.
  Status CommitRecords(std::vector<Record>* epoch_records, bool flush);
  Status TakePending(size_t max);
  Status TakeName(const std::string& name);
  Status TakeControl(const std::string& name);
  // The window: requests in ROOM/ops of running missions, taken one at a time.
  Status TakeOps();
  // A running mission's drone is over: its watches and engine tracking go.
  void UnwatchRun(const std::string& id);
  Status WritePresence(const char* status);
  // hangard.json while running: best effort (it only reports; a failure is said once).
  void UpdatePresence();
  // Enters the stopped state with cause's message as the reason (the first reason stands), see
  // above; a cause of ENOSPC or EDQUOT is a full disk, which ends by a restart in place.
  void StopWork(const Status& cause);
  // Stopped for a full disk: has space returned (see above)? Then the loop ends for a restart.
  bool SpaceReturned();
  void PauseIntake(const std::string& reason);
  void RetryIntake();
  void Say(const std::string& line, Priority p = Priority::kInfo);
  void Checkpoint();  // a signed checkpoint when one is due

  // ---- daemon_start.cc ----
  Status ScanAll();  // what waits in the drop zones and the running missions' run/ and ops/
  // Whether TEXT, a return.json a crash left in running/ID, is backed by its mission.returned
  // entry on the ledger (the seq it names, that kind, this id, its sha256): RecoverIntakes then
  // finishes its move, else it is removed (shell/transitions.h). A ledger that cannot be read
  // there backs nothing.
  bool ReturnOnLedger(const std::string& id, const std::string& text) const;

  // ---- daemon_perform.cc: one method per action ----
  Status Perform(const Action& a, std::deque<Signal>* follow);  // std::visit: every action type
  // A batch's Intakes in runs whose STATE/.ID.tmp directories are distinct, in order (two drops
  // of one id into one state directory, as two rejected ones, go in turn); the intakes of a run are
  // performed together (shell/transitions.h PerformIntakes: the directory fsyncs they share made
  // once).
  std::vector<std::vector<const Intake*>> IntakeRuns(const std::vector<const Intake*>& ins) const;
  // The rest of a run BeginIntakes took through with *FULL (FinishIntakes), then IntakeDone of
  // each: the ids of those that failed for lack of space and were undone go to *forgotten and that
  // failure to *no_space (intake paused, IntakeFailed added to *undone). With LAUNCHING (the batch
  // launches too), the fsync of queued/ that ends them is left to the batch's first launch
  // (intakes_unsynced_).
  Status FinishIntakeRun(const std::vector<const Intake*>& run, std::vector<Status>* full,
                         std::deque<Signal>* undone, std::set<std::string>* forgotten,
                         Status* no_space, bool launching);
  // UndoIntake of IN, its status; what it could not undo (but NotFound: done after all) is said,
  // and the next start finishes it.
  Status UndoSaying(const Intake& in);
  // The state directories a batch's intakes left unsynced (PerformIntakes' UNSYNCED): the first
  // launch syncs them in its first wait (PrepareLaunches' SYNC_FIRST); an act before it that
  // writes or tells anything (all but a log line, an observation or a warm read), or the batch's
  // end, first by SyncIntakes.
  Status SyncIntakes();
  // A drone's end read from its run/exit.json (a DroneExited, or a running mission recovered with
  // one): the supervisor wrote it visible, not durable (launch/supervisor.cc WriteExit), so the
  // batch that decides it fsyncs the file and run/ (Env::SyncPaths) beside its records, where the
  // intakes' and the returns' first steps go (Commit): one wait beside the records' two, where the
  // supervisor's two fsyncs in a row lay between the drone's end and the next launch. A power loss
  // before leaves no exit.json (or an empty one, read as none): the start then finds the drone
  // lost, and records that, as one the power ended itself; what the records said of the end stays
  // true of what hangard read.
  void ExitRead(const std::string& id);
  // A return begun beside the records (returns_written_) whose batch launches after it is renamed
  // to returned/ without a sync (RenameLater), its notify outbox's "pending" record first
  // (RenameUnsynced): the launch fsyncs returned/ in its first wait (one begun beside the
  // records, in its closing sync's first, after its move and go) and running/ in its closing
  // sync, the new directory before the old (PrepareBegun), and the return is delivered to its
  // notify.dir only then (DeliverReturns). 5 fsync waits in a row for a return and a launch, where
  // the durable rename made 7. Such a return whose Move comes after the launch in the batch is
  // renamed before that launch is prepared (RenameBeforeLaunch: each one in LEFT from FROM with no
  // act before it there naming its mission); one whose Move comes before a launch (rename_later_)
  // at its Move. An act between that writes or tells anything (all but a launch, a log line, an
  // observation, a warm read and such a Move) finds them durable first (SyncReturns), and so does
  // the batch's end.
  Status RenameBeforeLaunch(const std::vector<const Action*>& left, size_t from);
  Status RenameUnsynced(const Move& mv);
  // returned/, then running/, when a return renamed without a sync is not yet known durable (no
  // launch's closing sync came after it, or every launch failed before it); then DeliverReturns.
  Status SyncReturns();
  // The notify deliveries of the returns renamed without a sync, once they are durable.
  Status DeliverReturns();
  // What follows one performed intake, given what its steps gave (S): a hold's notice and the
  // intake resumed; or, for want of space, the undo, *why = S.
  Status IntakeDone(const Intake& in, Status s, std::deque<Signal>* undone, Status* why);
  Status PerformObserve(const Observe& x);
  Status PerformKill(const Kill& x);
  Status PerformMoveAction(const Move& x);
  Status PerformConsumeAction(const ConsumeControl& x);
  Status PerformLaunch(const Launch& l, std::deque<Signal>* follow);
  // A run of the batch's acts that are launches (at least two) and log lines: every launch
  // prepared together (PrepareLaunches), then each act in order, a launch from its preparation.
  Status PerformLaunches(const std::vector<const Action*>& run, std::deque<Signal>* follow);
  // BEGUN: the launch as begun while it was prepared (null: started whole). GONE: told to go
  // already, once moved (PrepareBegun): nothing is left to do for it.
  Status LaunchPrepared(const Launch& l, LaunchPrep prep, std::deque<Signal>* follow,
                        std::unique_ptr<Launcher::Begun> begun = nullptr, bool gone = false);
  // PrepareLaunches of LS, each direct launch begun as soon as its room is made; *BEGUN gets each
  // launch's Begun (null when not begun). A launch begun beside the records (early_) is finished
  // from there (FinishLaunches), after the others. Each launch begun is told to go (Go) as soon as
  // it is moved into running/, beside the closing sync; *GONE says which (their Begun taken).
  std::vector<LaunchPrep> PrepareBegun(const std::vector<const Launch*>& ls,
                                       std::vector<std::unique_ptr<Launcher::Begun>>* begun,
                                       std::vector<char>* gone);
  // The drone's start on the launch pool (LAUNCHES OFF THE LOOP): its run watched, then the shim
  // begun told to go (BEGUN), or asked for whole (null).
  void Go(const Launch& l, std::unique_ptr<Launcher::Begun> begun);
  // LAUNCHES BESIDE THE RECORDS. The launches of a batch whose mission is in queued/ before it
  // (no act of the batch before its Launch names it: not an intake, an approval or a warm read of
  // the batch) are begun beside the batch's records (BeginLaunches: the room, run/, the zygote's
  // begin, then plan.json, gate2.json, the key and launch.json in one wait), in Commit's chains:
  // their moves and closing sync come after the records, as ever. That wait goes beside the
  // records' two, where it came after them, and the go beside the closing sync (PrepareBegun): 2
  // waits from a drone's end to the next drone's go, where 5 were. The key then stands before its
  // entry is durable, naming that entry's seq; a stop between leaves a key that a start takes back
  // (shell/unbacked_keys.h), and the mission launches anew. The launches whose mission the batch
  // acts on before are prepared whole after the records, as before.
  std::vector<const Launch*> EarlyLaunches(const std::vector<Action>& acts) const;
  void BeginEarly(const std::vector<const Launch*>& ls);
  // LAUNCHES BEGUN AT INTAKE. A drop the batch takes into queued/ and launches at once (the
  // unloaded path: a free slot, gate 2 passed) has its launch begun in its intake's chain, beside
  // the records: once its .ID.tmp is made (BeginIntakes' MADE), its run/ and room are made there
  // (PlaceLaunchAtIntake) and the zygote begins it with that run/ (intake_begun_), so the drone's
  // sandbox is made during the intake's waits and the records', where it started only after them
  // and the intake's rename. Its launch is then prepared as before (PrepareBegun, after the records
  // and the intake's rename; its room and run/ are there), and told to go beside its move's closing
  // sync. A launch that does not get that far is withdrawn (its Begun dropped) before anything of
  // its intake is undone (UndoSaying), and the undo or the next start's recovery removes its run/
  // and its room with the .ID.tmp. Left on the path after the records: an engine's launch, and a
  // plan whose last-message file is in run/ (bound by its path as it is at the begin, it would move
  // twice before the go, and the binding follows one move).
  // The launches of RUN's intakes (the batch's first run) that may be begun so, by mission.
  std::map<std::string, const Launch*> IntakeLaunches(const std::vector<Action>& acts,
                                                      const std::vector<const Intake*>& run) const;
  void BeginAtIntake(const Intake& in, const Launch& x);
  // The zygote's begin of launch X (launch/launcher.h, Begin), made as soon as its room is, with
  // its run directory RUN_NOW (default: queued/ID/run); null for an engine's launch, or when
  // nothing was begun.
  std::unique_ptr<Launcher::Begun> BeginDirect(const Launch& x, const std::string& run_now = "");
  // The mission act A names ("" for one that names none: a log line).
  static std::string ActId(const Action& a);
  // For each of KEYS, whether the ledger holds, anchored before this start, the mission.launched
  // entry of that key at its seq (one read of the ledger): one this start caught up
  // (ledger_keeper.h) was never acted on.
  Result<std::vector<bool>> KeysBacked(const std::vector<KeySeq>& keys) const;
  // A launch the pool finished: the shell's part (launching_, the watch of a failed one, its
  // note), then its LaunchDone decided.
  Status Launched(LaunchStarted r);
  // Launched for each of DONE, in one batch.
  Status DecideLaunched(std::vector<LaunchStarted> done);
  // Waits for every launch in flight and decides them (a stop's first step).
  Status SettleLaunches();
  Status PerformRunOp(const RunOp& r, std::deque<Signal>* follow);
  Status PerformAnswerOp(const AnswerOp& a);

  // ---- daemon_loop.cc: the loop's events and checks ----
  // One turn after poll (which of the signalfd, inotify and the workers' eventfd are readable).
  Status Turn(bool signals, bool events, bool observations, bool launches, bool* quit);
  // The turn's decisions, inside the one batch Turn opens: the drones' ends inotify told of, the
  // launches and observations finished, a canary's time, the window's requests, the drops and
  // requests waiting, the rechecks due.
  Status DecideTurn(bool events, bool observations, bool launches);
  Status ReadInotify(bool* overflow);
  Status CheckExit(const std::string& id);
  Status RecheckExits();
  Status CheckSupervisors();
  // The engines' drones, every launchers.poll_s: an end becomes run/exit.json, then the same
  // DroneExited as the direct launcher's; an engine that knows no such drone: SupervisorGone.
  Status CheckEngines();
  Status EngineEnded(const std::string& id, const ExitInfo& e);

  // ---- daemon_retention.cc ----
  // Retention (hangar.conf "retention"), every retention.every_s: the ended missions older than
  // their state's span go to the kernel as hangard's own purge request (control/new/
  // purge.retention.*), at most kMaxPurgeIds at a time and one request at a time, judged and
  // recorded like an approver's. Nothing while the ledger is failed closed.
  void DropRetention(TimeMs now);

  Env* env_;
  KernelSetup setup_;
  SetupFacts facts_;
  Layout layout_;
  ManifestLimits limits_;
  std::string shim_path_, config_path_, anchor_dir_;
  ShimZygote zygote_;  // the direct launcher's, before the launchers that use it
  State state_;
  std::unique_ptr<WorkerPool<Signal>> pool_;             // observations and op handlers
  std::unique_ptr<WorkerPool<LaunchStarted>> launches_;  // direct launches (LAUNCHES OFF THE LOOP)
  std::map<std::string, int> launching_;  // their missions and attempts, until decided
  LedgerKeeper ledger_;
  ledger::SignalLog
      signals_;  // the signal record: each decision's line with its entries, before its acts
  NotifyOutbox outbox_;
  WorkState work_;
  DropQueue drops_;
  EngineWatch engines_;
  std::unique_ptr<RunWatches> watches_;     // made in Start, with the inotify descriptor
  std::string presence_fail_closed_;        // fail_closed as hangard.json last said it
  bool presence_clock_behind_ = false;      // what hangard.json says of the clock
  std::string presence_canaries_;           // its "canaries", as canonical text
  bool presence_said_ = false;              // a failed hangard.json write while running was said
  const bool journal_ = StderrIsJournal();  // stderr is the journal: priority prefixes, no time
  bool running_ = false;                    // Start is over: hangard.json follows fail_closed
  int inotify_fd_ = -1, signal_fd_ = -1;
  sigset_t old_mask_{};    // the signal mask Start found, put back when the Daemon goes
  bool mask_set_ = false;  // Start blocked SIGTERM, SIGINT and SIGHUP for its signalfd
  // The spool's lock (one hangard per spool) and the anchor directory's (one per anchor).
  std::unique_ptr<Env::Lock> spool_lock_, anchor_lock_;
  int wd_incoming_ = -1, wd_control_ = -1;
  std::set<std::string> kill_pending_;  // cancels whose signal did not reach the supervisor yet
  struct Batch {
    std::vector<Action> acts;  // the decided acts but the records (staged in ledger_), in order
    int64_t records = 0;       // entries staged
    bool flush = false;        // a decision acts: the lines go out before anything of it
  };
  Batch batch_;
  std::vector<std::string> intakes_unsynced_;  // see SyncIntakes
  // The committing batch's returns whose files BeginReturns wrote, with its status for each: their
  // Move acts rename alone (PerformMoveAction).
  std::map<const Move*, Status> returns_written_;
  std::set<const Move*> rename_later_;    // of those, the Moves a launch of the batch follows
  std::set<const Move*> renamed_early_;   // of those, renamed without a sync (RenameUnsynced)
  std::vector<const Move*> undelivered_;  // of those, with a notify.dir, not delivered yet
  bool returns_unsynced_ = false;         // returned/ and running/ to sync: see SyncReturns
  std::vector<std::string> exits_unsynced_;  // see ExitRead
  struct Early {
    LaunchPrep prep;
    std::unique_ptr<Launcher::Begun> begun;
  };
  std::map<const Launch*, Early> early_;  // the committing batch's, see EarlyLaunches
  // The committing batch's launches begun at intake, by mission (see IntakeLaunches).
  std::map<std::string, std::unique_ptr<Launcher::Begun>> intake_begun_;
  int batching_ = 0;                   // BeginBatch calls not yet ended
  bool may_hold_ = false;              // the turn's own batch is ending: a return may wait
  int64_t hold_until_us_ = 0;          // a return held waits until then (monotonic), 0: none
  int64_t return_hold_us_ = kReturnHoldUs;
  std::deque<Signal> follow_;          // signals waiting to be decided
  std::set<std::string> batch_names_;  // drops and requests taken since the last commit
  TimeMs started_ = 0;
  Periodic supervisor_check_{kSupervisorCheckMs, Periodic::StepBack::kDueNow};
  Periodic engine_check_{1000, Periodic::StepBack::kRestart};  // period: launchers.poll_s
  Periodic notify_retry_{1000, Periodic::StepBack::kRestart};  // period: notify_retry_s
  Periodic intake_retry_{kIntakeRetryMs, Periodic::StepBack::kRestart};
  Periodic storage_check_{kStorageRetryMs, Periodic::StepBack::kDueNow};
  Periodic retention_check_{3'600'000, Periodic::StepBack::kRestart};  // retention.every_s
  bool restart_ = false;        // space returned: Run ended for a restart in place
  bool rooms_same_fs_ = false;  // the rooms are on the spool's filesystem, seen at start
  Watchdog watchdog_ = Watchdog::FromEnvironment();  // pinged at every turn of the loop
};

}  // namespace hangar
