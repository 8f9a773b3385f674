// Deciding: every signal goes through the kernel, its ledger entries are appended together before
// any of its acts, and a decision that did not reach the disk stops the work. Also the work's
// state (stopped, intake paused) and hangard.json.
#include "daemon/daemon.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>

#include "daemon/presence.h"
#include "daemon/sd_notify.h"
#include "daemon/signature.h"
#include "kernel/control.h"
#include "launch/command.h"
#include "launch/direct_launcher.h"
#include "launch/launcher.h"
#include "shell/op_files.h"
#include "shell/path_resolve.h"
#include "shell/retry.h"
#include "shell/scan.h"
#include "shell/transitions.h"
#include "shell/users.h"
#include "shell/workspace.h"

namespace hangar {

namespace {

// Lines of decisions that only log are written with the next that acts, or once this many bytes
// wait (a start recovering a deep queue would otherwise hold a line per mission in memory).
constexpr size_t kSignalBufferMax = size_t(1) << 20;

constexpr uint64_t kResumeFreeBytes = uint64_t{8} << 20;  // free space that ends such a stop
// An engine's tool (systemctl, squeue, ...) that does not answer in this long is taken as "the
// engine cannot say now", never as "the drone is gone".
constexpr std::chrono::milliseconds kEngineToolTimeout{10000};

}  // namespace

Daemon::Daemon(Env* env, KernelSetup setup, SetupFacts facts, Layout layout, ManifestLimits limits,
               std::string shim_path, std::string config_path, std::string anchor_dir)
    : env_(env),
      setup_(std::move(setup)),
      facts_(std::move(facts)),
      layout_(std::move(layout)),
      limits_(limits),
      shim_path_(std::move(shim_path)),
      config_path_(std::move(config_path)),
      anchor_dir_(std::move(anchor_dir)),
      zygote_(shim_path_, [this](const std::string& line) { Say(line, Priority::kWarning); }),
      ledger_(env_, layout_.spool, anchor_dir_, setup_.config.ledger_name),
      signals_(env_, layout_.spool, setup_.config.ledger_name),
      outbox_(
          env_, layout_, [this](const std::string& line) { Say(line); },
          [this] { return ledger_.checkpoint(); }),
      drops_(env_, layout_),
      engines_(
          env_, layout_,
          [this](const std::string& name) {
            CommandRunner run = [](const std::vector<std::string>& argv) {
              return RunCommand(argv, kEngineToolTimeout);
            };
            return MakeLauncher(name, env_, shim_path_, run, &zygote_);
          },
          [this](const std::string& line) { Say(line); }) {
  engine_check_.set_period(TimeMs(setup_.config.launchers.poll_s) * 1000);
  notify_retry_.set_period(TimeMs(setup_.config.notify_retry_s) * 1000);
  retention_check_.set_period(TimeMs(setup_.config.retention.every_s) * 1000);
}

Daemon::~Daemon() {
  launches_.reset();  // the pools' threads end before what they may use goes
  pool_.reset();
  if (mask_set_) {
    // A SIGTERM or SIGINT that came while it was blocked was meant for this Daemon: taken here,
    // so the mask put back does not end the process by it.
    for (struct signalfd_siginfo si{}; read(signal_fd_, &si, sizeof si) == sizeof si;) {
    }
    sigprocmask(SIG_SETMASK, &old_mask_, nullptr);  // as Start found it
  }
  for (int fd : {inotify_fd_, signal_fd_})
    if (fd >= 0) close(fd);
}

void Daemon::Say(const std::string& line, Priority p) {
  WriteStderr(journal_, p, FormatTime(env_->Now()), line);
}

Status Daemon::WritePresence(const char* status) {
  std::vector<std::pair<int64_t, std::string>> approvers;
  for (int64_t uid : setup_.approvers) approvers.emplace_back(uid, LoginName(uid));
  Result<uint64_t> free = env_->FreeBytes(layout_.spool);
  const json::Value presence =
      PresenceJson({.setup = setup_,
                    .layout = layout_,
                    .state = state_,
                    .work = work_,
                    .config_path = config_path_,
                    .pid = int64_t(getpid()),
                    .started = started_,
                    .now = env_->Now(),
                    .status = status,
                    .ledger_name = ledger_.name(),
                    .anchor_path = ledger_.anchor_path(),
                    .anchor_same_filesystem = ledger_.anchor_same_filesystem(),
                    .free_bytes = free.ok() ? std::optional(*free) : std::nullopt,
                    .rooms_on_spool_filesystem = rooms_same_fs_,
                    .approvers = std::move(approvers)});
  presence_fail_closed_ = state_.fail_closed;
  presence_clock_behind_ = state_.clock_behind;
  presence_canaries_ = json::Write(*presence.find("canaries"));
  SdNotify(StatusLine({.stopping = std::string(status) == "stopped",
                       .work_stopped = work_.stopped_reason(),
                       .fail_closed = state_.fail_closed,
                       .intake_paused = work_.intake_reason()}));
  return env_->WriteFileAtomic(layout_.spool, "hangard.json", json::WritePretty(presence));
}

void Daemon::UpdatePresence() {
  if (!running_) return;  // Start writes it once recovery is over
  Status s = WritePresence("running");
  // Best effort: hangard.json only reports, and a failure to write it decides nothing.
  if (!s.ok() && !presence_said_) Say("cannot update hangard.json: " + s.message(), Priority::kErr);
  presence_said_ = !s.ok();
}

void Daemon::StopWork(const Status& cause) {
  const std::string line = work_.Stop(cause, env_->Now());
  if (line.empty()) return;  // the first reason stands
  Say(line, Priority::kErr);
  drops_.Clear();
  if (watches_) watches_->DropPendingOps();
  UpdatePresence();
}

void Daemon::PauseIntake(const std::string& reason) {
  const TimeMs now = env_->Now();
  if (std::string line = work_.PauseIntake(reason, now); !line.empty()) Say(line);
  intake_retry_.Restart(now);
  drops_.ClearDrops();  // the retry takes them, one at a time until one goes in
  UpdatePresence();
}

bool Daemon::SpaceReturned() {
  Result<uint64_t> free = env_->FreeBytes(layout_.spool);
  if (!free.ok() || *free < kResumeFreeBytes || pool_->in_flight() > 0) {
    UpdatePresence();  // best effort: says "storage": "full" as soon as it can be written
    return false;
  }
  // The restart's first act is a write too: one that fails now leaves the stop as it is.
  if (Status s = WritePresence("running"); !s.ok()) return false;
  Say("space is back (" + std::to_string(*free >> 20) + " MiB free on " + layout_.spool +
      "): restarting in place, to recover from the spool");
  return true;
}

void Daemon::RetryIntake() {
  intake_retry_.Restart(env_->Now());
  Result<std::vector<std::string>> names = Waiting(env_, layout_.IncomingNew());
  if (!names.ok()) return StopWork(names.status());
  for (const std::string& n : *names)
    if (!n.empty() && n[0] != '.') {
      drops_.Add(false, {n});  // taken by this turn's TakePending, as the one try
      return;
    }
}

void Daemon::Checkpoint() {
  std::string error;
  ledger_.MaybeCheckpoint(env_->Now(), state_.fail_closed.empty(), &error);
  if (!error.empty()) Say(error);
}

Status Daemon::TakePending(size_t max) {
  if (work_.stopped()) {
    drops_.Clear();
    return Status::Ok();
  }
  // Control requests first: a cancel should not wait behind a burst of new missions.
  for (; max > 0; --max) {
    std::optional<std::string> n = drops_.NextControl();
    if (!n) break;
    if (Status s = TakeControl(*n); !s.ok()) return s;
  }
  // While intake is paused for space only the retry's one drop is taken (it is alone in the list).
  const bool paused = work_.intake_paused();
  for (; max > 0; --max) {
    std::optional<std::string> n = drops_.NextDrop();
    if (!n) break;
    if (Status s = TakeName(*n); !s.ok()) return s;
    if (paused) break;
  }
  if (work_.intake_paused()) drops_.ClearDrops();
  return Status::Ok();
}

Status Daemon::TakeName(const std::string& name) {
  if (name.empty() || name[0] == '.' || !env_->Exists(layout_.IncomingNew() + "/" + name))
    return Status::Ok();
  // Decided in the open batch already: its file stays in place until the batch commits.
  if (!batch_names_.insert("incoming/" + name).second) return Status::Ok();
  Dropped d = ReadDrop(env_, layout_, name, env_->Now());
  auto parsed = std::make_shared<const MissionOrError>(ParseMission(d.bytes));
  if (auto* m = std::get_if<Mission>(parsed.get())) {
    d.resolved = ResolveWrites(*m, setup_.home);
    if (m->workspace) {  // git at intake, in the loop: a workspace mission's rare, bounded cost
      int64_t uid = -1, gid = -1;
      IntakeUser(d.by.uid, &uid, &gid);
      ResolveWorkspace(*m, uid, gid, &d.resolved);
    }
  }
  d.parsed = std::move(parsed);  // decide reads it, not the bytes again
  d.found_at_start = drops_.TakeFoundAtStart(name);
  return Dispatch(std::move(d));
}

Status Daemon::TakeControl(const std::string& name) {
  if (name.empty() || name[0] == '.' || !env_->Exists(layout_.ControlNew() + "/" + name))
    return Status::Ok();
  if (!batch_names_.insert("control/" + name).second) return Status::Ok();  // as TakeName
  ControlDropped c = ReadControl(env_, layout_, name, env_->Now());
  if (AnsweredBefore(env_, layout_, c)) {
    Say("control " + name + " was answered before a stop (control/done/" + name +
        ".json); removed, not decided again");
    return env_->Remove(layout_.ControlNew() + "/" + name);
  }
  // A retry is decided on what the returned mission's files say and on whether anything of its
  // last attempt lives: read here, for the kernel reads nothing itself.
  auto parsed = ParseControl(c.bytes);
  if (auto* r = std::get_if<ControlRequest>(&parsed);
      r && r->kind == ControlKind::kRetry && c.read_error.empty() &&
      env_->Exists(layout_.MissionDir(Phase::kReturned, r->id)))
    c.retry = ReadRetryFacts(env_, layout_, r->id, setup_.home,
                             [](const std::string& run) { return SupervisorAlive(run); });
  // A cancel of a queued mission brings its mission.json: a cold one's return is written from
  // it (kernel/kernel.h, the cold queue).
  if (auto* r = std::get_if<ControlRequest>(&parsed);
      r && r->kind == ControlKind::kCancel && c.read_error.empty())
    if (Result<std::string> m = env_->ReadFile(
            layout_.MissionDir(Phase::kQueued, r->id) + "/mission.json", kMaxMissionBytes);
        m.ok())
      c.cancel_mission = std::move(m).value();
  // A signed approve is checked here, with ssh-keygen: the kernel runs nothing itself.
  if (auto* r = std::get_if<ControlRequest>(&parsed);
      r && r->kind == ControlKind::kApprove && !r->signature.empty() && c.read_error.empty())
    c.signature = VerifyApproval(env_, layout_, setup_.config.allowed_signers, *r);
  return Dispatch(std::move(c));
}

Status Daemon::TakeOps() {
  if (work_.stopped()) watches_->DropPendingOps();
  while (std::optional<std::pair<std::string, std::string>> op = watches_->NextOp()) {
    const auto& [id, name] = *op;
    Status s = Dispatch(
        ReadOpRequest(env_, layout_.Room(id), layout_.MissionOps(id), id, name, env_->Now()));
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

void Daemon::UnwatchRun(const std::string& id) {
  engines_.Forget(id);
  watches_->Unwatch(id);
  kill_pending_.erase(id);
}

Status Daemon::Dispatch(Signal first) {
  if (work_.stopped()) {
    // Nothing is decided once stopped; an end seen is said, and taken up by the next start.
    const char* after = "; returned at the next start (hangard's work is stopped)";
    if (auto* e = std::get_if<DroneExited>(&first)) Say(e->id + ": its drone ended" + after);
    if (auto* g = std::get_if<SupervisorGone>(&first))
      Say(g->id + ": its supervisor is gone" + after);
    if (auto* o = std::get_if<Observed>(&first))
      Say(o->id + ": its observation is set aside" + after);
    return Status::Ok();
  }
  if (auto* e = std::get_if<DroneExited>(&first)) ExitRead(e->id);
  if (auto* r = std::get_if<Recovered>(&first); r && r->phase == Phase::kRunning && r->exit)
    ExitRead(r->id);
  follow_.push_back(std::move(first));
  return Drain();
}

void Daemon::ExitRead(const std::string& id) {
  const std::string run = layout_.RunDir(id);
  exits_unsynced_.push_back(run + "/exit.json");
  exits_unsynced_.push_back(run);
}

void Daemon::BeginBatch() {
  ++batching_;
}

Status Daemon::EndBatch() {
  if (--batching_ > 0) return Status::Ok();
  return Drain();
}

Status Daemon::Drain() {
  for (;;) {
    while (!follow_.empty() && !work_.stopped()) {
      Signal sig = std::move(follow_.front());
      follow_.pop_front();
      // Launches, grants and ops are protected acts: the ledger's head must still match its
      // anchor before the kernel may decide one (a control request may be a grant).
      if (state_.fail_closed.empty() &&
          (MayLaunch(setup_, state_) || std::holds_alternative<ControlDropped>(sig) ||
           std::holds_alternative<OpRequested>(sig)) &&
          !std::holds_alternative<LedgerFailed>(sig)) {
        if (Status h = ledger_.CheckHead(); !h.ok())
          if (Status s = Decided(LedgerFailed{h.message(), env_->Now()}); !s.ok()) StopWork(s);
      }
      // A decision whose entries or acts did not all reach the disk: the kernel is ahead of it.
      if (!work_.stopped())
        if (Status s = Decided(sig); !s.ok()) StopWork(s);
    }
    if (work_.stopped()) {
      follow_.clear();
      batch_ = Batch{};
      hold_until_us_ = 0;
      batch_names_.clear();
      break;
    }
    if (batching_ > 0) break;  // EndBatch commits
    if (Held()) break;         // the next turn's batch commits it (daemon.h, RETURNS HELD)
    if (Status s = Commit(); !s.ok()) StopWork(s);
    // The batch's drops and requests are moved out of the drop zones now (or wait to be retried):
    // not before, for a commit inside a batch (one grown to kMaxBatch) leaves the decision being
    // made, and its file, where they are.
    batch_names_.clear();
    if (follow_.empty()) break;  // else what the acts gave rise to (a launch done...)
  }
  if (running_ && (state_.fail_closed != presence_fail_closed_ ||
                   state_.clock_behind != presence_clock_behind_ ||
                   json::Write(CanaryPresence(setup_, state_)) != presence_canaries_))
    UpdatePresence();
  return Status::Ok();
}

bool Daemon::Held() {
  if (!may_hold_ || (!watches_->Any() && launching_.empty())) return false;
  if (!follow_.empty() || !batch_names_.empty() || !exits_unsynced_.empty()) return false;
  bool returns = false;
  for (const Action& a : batch_.acts) {
    if (std::holds_alternative<Log>(a)) continue;
    const auto* mv = std::get_if<Move>(&a);
    if (!mv || !BeginsEarly(*mv)) return false;
    returns = true;
  }
  if (!returns) return false;
  const int64_t now = MonotonicUs();
  if (hold_until_us_ == 0) hold_until_us_ = now + return_hold_us_;
  return now < hold_until_us_;
}

Status Daemon::Decided(const Signal& sig) {
  // The head this decision follows: after every entry staged in the batch, written or not.
  const int64_t head_seq = ledger_.staged_seq();
  const std::string head_hash = ledger_.staged_hash();
  std::vector<Action> acts = Decide(setup_, &state_, sig);
  const bool acts_any = Acts(acts);
  // The signal record first: the line of what was decided, durable with the decision's entries
  // and before their anchor lines and its acts when it has any (a decision that only logs goes
  // with the next one's line).
  std::optional<std::string> line;
  if (setup_.config.record_signals) {
    Result<std::string> added = signals_.Add(sig, acts, state_, head_seq, head_hash);
    if (!added.ok()) return added.status();
    line = std::move(added).value();
    if (!acts_any && signals_.buffered() > kSignalBufferMax)
      if (Status f = signals_.Flush(); !f.ok()) return f;
  }
  // Each entry carries the hash of the signal record's line that decided it.
  std::vector<Record> records;
  bool epoch = false;
  for (Action& a : acts)
    if (auto* r = std::get_if<Record>(&a)) {
      if (line) r->body["signal_record"] = *line;
      epoch = epoch || r->new_epoch;
      records.push_back(std::move(*r));
    }
  // A reanchor goes alone, after the batch before it; no batch grows past kMaxBatch entries
  // (a start's catch-up adopts at most one batch).
  if (epoch || batch_.records + int64_t(records.size()) > LedgerKeeper::kMaxBatch)
    if (Status s = Commit(); !s.ok()) return s;
  if (epoch) {
    batch_.flush = true;
    if (Status s = CommitRecords(&records, true); !s.ok()) return s;
  } else if (!records.empty()) {
    if (Status s = ledger_.Stage(records); !s.ok()) return s;
    batch_.records += int64_t(records.size());
  }
  batch_.flush = batch_.flush || acts_any;
  for (Action& a : acts)
    if (!std::holds_alternative<Record>(a)) batch_.acts.push_back(std::move(a));
  return Status::Ok();
}

Status Daemon::CommitRecords(std::vector<Record>* epoch_records, bool flush) {
  // The lines with the staged entries that name them, in one wait, and the anchor lines after
  // both (a crash between the writes or a power loss can leave entries without their lines: the
  // start cuts them, being unanchored, man/hangar-ledger.5 START-UP); first and alone before a
  // reanchor's entries, or while no anchor line is written (nothing would tell such entries
  // from acted-on ones).
  const bool lines = setup_.config.record_signals && flush;
  const bool together = lines && !epoch_records && ledger_.staged() && ledger_.anchoring();
  if (lines && !together)
    if (Status f = signals_.Flush(); !f.ok()) return f;
  const bool any = ledger_.staged() || (epoch_records && !epoch_records->empty());
  if (!any) return Status::Ok();
  const int64_t first = ledger_.head_seq() + 1;
  std::string anchor_error;
  Status lines_done = Status::Io("the signal record's lines were not written");
  Status s = epoch_records ? ledger_.AppendAll(*epoch_records, &anchor_error)
             : together    ? ledger_.Commit(&anchor_error, signals_.Unwritten(), &lines_done)
                           : ledger_.Commit(&anchor_error);
  if (together) signals_.Wrote(lines_done);
  if (!s.ok()) return s;
  if (!anchor_error.empty()) {
    // Record before act holds for the anchor as for the ledger: entries the anchor does not
    // vouch for back no act. The caller drops the batch's acts (nothing launched, moved, granted
    // or answered) and the work stops, failed closed; the next start decides again from the
    // spool, anchoring or refusing the unvouched tail (man/hangar-ledger.5, START-UP).
    const std::string seqs = std::to_string(first) + ".." + std::to_string(ledger_.head_seq());
    if (state_.fail_closed.empty()) state_.fail_closed = anchor_error;
    return Status::Io("ledger seqs " + seqs + " are not on the anchor (" + anchor_error +
                      "): their acts are dropped");
  }
  Checkpoint();
  return Status::Ok();
}

Status Daemon::Commit() {
  Batch b = std::move(batch_);  // a commit that fails drops its acts: none is performed
  batch_ = Batch{};
  hold_until_us_ = 0;
  std::deque<Signal> undone;        // IntakeFailed, decided before anything else
  std::set<std::string> forgotten;  // missions whose intake was undone for lack of space
  Status no_space = Status::Ok();
  // The batch's intakes first, together; then every other act in order (an intake's mission is
  // acted on only after its intake, which no other act needs before it).
  std::vector<const Intake*> intakes;
  std::vector<const Move*> returns;  // begun beside the records
  std::set<std::string> launched;    // a mission launched by the batch is not in running/ yet
  for (const Action& a : b.acts) {
    if (auto* x = std::get_if<Intake>(&a)) intakes.push_back(x);
    if (auto* x = std::get_if<Launch>(&a)) launched.insert(x->id);
  }
  const bool launching = !launched.empty();
  for (const Action& a : b.acts)
    if (auto* x = std::get_if<Move>(&a); x && BeginsEarly(*x) && !launched.count(x->id))
      returns.push_back(x);
  if (Status s = SyncIntakes(); !s.ok()) return s;  // none left by a batch before, as a rule
  const std::vector<std::vector<const Intake*>> runs = IntakeRuns(intakes);
  std::vector<Status> full;
  // The batch's acts go with this call; returns_unsynced_ stays (a later batch's launch must
  // still sync returned/ first).
  struct Forget {
    Daemon& d;
    ~Forget() {
      d.returns_written_.clear();
      d.rename_later_.clear();
      d.renamed_early_.clear();
      d.undelivered_.clear();
      d.early_.clear();  // a launch begun and not reached is withdrawn (its Begun dropped)
      d.intake_begun_.clear();
    }
  } forget{*this};
  const std::vector<const Launch*> early = EarlyLaunches(b.acts);
  const std::map<std::string, const Launch*> at_intake =
      runs.empty() ? std::map<std::string, const Launch*>{} : IntakeLaunches(b.acts, runs[0]);
  // The ends read since the last commit, durable beside the records (ExitRead).
  const std::vector<std::string> exits = std::exchange(exits_unsynced_, {});
  if (runs.empty() && returns.empty() && exits.empty() && early.empty()) {
    if (Status s = CommitRecords(nullptr, b.flush); !s.ok()) return s;
  } else {
    // While the lines, the entries and the anchor lines wait for the disk, the first run's drops
    // go into their .ID.tmp (BeginIntakes) and the returns' return.json into running/ID
    // (BeginReturns): the intake's three fsyncs in a row and the return's two beside the records'
    // two, where they came after them. Neither is an act a reader sees: nothing of an intake is
    // a mission before FinishIntakes renames it into its state directory (a start puts such drops
    // back), and a mission is returned when it is in returned/ (a start finishes a move out of
    // running/ only when the ledger holds its entry, RecoverIntakes). The renames come after the
    // records, so the record still comes before the act; a crash before the records leaves the
    // drop and the ended drone to be decided again, as a crash after them did. The intakes and
    // the returns share nothing either (the drops' directories, and running/ID): each goes beside
    // the other as well, so a batch with both waits for the intake's three, not five. So do the
    // ends read since the last commit: their exit.json and run/ fsynced (ExitRead), the launches
    // of missions already queued, up to their key (EarlyLaunches), and, in the intakes' chain,
    // the launches of drops taken in, up to the zygote's begin (IntakeLaunches).
    Status begun = Status::Ok(), committed = Status::Ok(), ended = Status::Ok();
    std::vector<Status> written;
    for (const Move* mv : returns) UnwatchRun(mv->id);  // its own writes are no news
    // Each chain that waits beside the others, in the order FaultEnv runs them: a thread more
    // only for a chain more.
    std::vector<std::function<void()>> chains;
    if (!runs.empty())
      chains.push_back([&] {
        std::function<void(size_t)> place;  // none: the intakes' waits as ever
        if (!at_intake.empty())
          place = [&](size_t i) {
            if (auto x = at_intake.find(runs[0][i]->id); x != at_intake.end())
              BeginAtIntake(*runs[0][i], *x->second);
          };
        begun = BeginIntakes(env_, layout_, runs[0], &full, place);
      });
    if (!returns.empty()) chains.push_back([&] { written = BeginReturns(env_, layout_, returns); });
    if (!exits.empty()) chains.push_back([&] { ended = env_->SyncPaths(exits); });
    if (!early.empty()) chains.push_back([&] { BeginEarly(early); });
    std::function<void(size_t)> from = [&](size_t i) {
      if (i + 1 == chains.size())
        chains[i]();
      else
        env_->Alongside(chains[i], [&, i] { from(i + 1); });
    };
    env_->Alongside([&] { from(0); }, [&] { committed = CommitRecords(nullptr, b.flush); });
    if (!committed.ok()) {
      // The drops back into incoming/new at once, best effort; after a failed begin, the next
      // start's RecoverIntakes, as ever. A return.json written stays: the start removes it.
      if (begun.ok() && !runs.empty())
        for (const Intake* in : runs[0]) (void)UndoSaying(*in);
      return committed;
    }
    if (!begun.ok()) return begun;
    if (!ended.ok()) return ended;
    for (size_t i = 0; i < returns.size(); ++i) returns_written_[returns[i]] = written[i];
  }
  for (size_t k = 0; k < runs.size(); ++k) {
    if (k > 0)
      if (Status s = BeginIntakes(env_, layout_, runs[k], &full); !s.ok()) return s;
    if (Status s = FinishIntakeRun(runs[k], &full, &undone, &forgotten, &no_space, launching);
        !s.ok())
      return s;
  }
  std::vector<const Action*> left;  // the acts left, in order
  Status cut = Status::Ok();        // set: after those, the work stops with it
  for (const Action& a : b.acts) {
    if (std::holds_alternative<Intake>(a)) continue;
    if (!forgotten.empty()) {
      // What the batch went on to do with it (its log lines, its launch) goes with it.
      const std::string id = ActId(a);
      if (auto* x = std::get_if<Log>(&a);
          x && std::any_of(forgotten.begin(), forgotten.end(),
                           [&](const std::string& f) { return x->line.starts_with(f + " "); }))
        continue;
      if (forgotten.count(id)) {
        if (std::holds_alternative<Launch>(a)) continue;
        // Another decision of the batch acted on it (a cancel): the kernel is ahead of the
        // disk, so the work stops as for any failed act, for want of space (a restart in place
        // once space is back decides again from the spool).
        cut = no_space;
        break;
      }
    }
    left.push_back(&a);
  }
  size_t last_launch = 0;  // after the last launch, a return is moved by the durable rename
  for (size_t j = 0; j < left.size(); ++j)
    if (std::holds_alternative<Launch>(*left[j])) last_launch = j;
  for (size_t j = 0; j < last_launch; ++j)
    if (auto* x = std::get_if<Move>(left[j]))
      if (auto w = returns_written_.find(x); w != returns_written_.end() && w->second.ok())
        rename_later_.insert(x);
  for (size_t k = 0; k < left.size();) {
    // Launches with only log lines between them are prepared together (PerformLaunches): their
    // fsyncs wait at once. A mission launched twice in a batch would end the run.
    size_t end = k, launches = 0;
    std::set<std::string> ids;
    for (; end < left.size(); ++end) {
      if (auto* x = std::get_if<Launch>(left[end])) {
        if (!ids.insert(x->id).second) break;
        ++launches;
      } else if (!std::holds_alternative<Log>(*left[end])) {
        break;
      }
    }
    if (launches >= 1)
      if (Status s = RenameBeforeLaunch(left, k); !s.ok()) return s;
    if (launches >= 2) {
      std::vector<const Action*> run(left.begin() + k, left.begin() + end);
      if (Status s = PerformLaunches(run, &follow_); !s.ok()) return s;
      if (Status s = DeliverReturns(); !s.ok()) return s;
      k = end;
      continue;
    }
    // At most one launch among them: each act in turn, and the scan goes on after them. An act
    // that writes or tells anything, but a launch, finds the intakes durable (SyncIntakes).
    for (const size_t stop = std::max(end, k + 1); k < stop; ++k) {
      const Action& a = *left[k];
      const auto* mv = std::get_if<Move>(&a);
      const bool quiet = std::holds_alternative<Launch>(a) || std::holds_alternative<Log>(a) ||
                         std::holds_alternative<Observe>(a) || std::holds_alternative<Warm>(a) ||
                         (mv && (rename_later_.count(mv) || renamed_early_.count(mv)));
      if (!quiet) {
        if (Status s = SyncIntakes(); !s.ok()) return s;
        if (Status s = SyncReturns(); !s.ok()) return s;
      }
      if (Status s = Perform(a, &follow_); !s.ok()) return s;
      if (std::holds_alternative<Launch>(a))
        if (Status s = DeliverReturns(); !s.ok()) return s;
    }
  }
  if (Status s = SyncIntakes(); !s.ok()) return s;  // no launch came after all
  if (Status s = SyncReturns(); !s.ok()) return s;  // no launch's closing sync came after all
  if (!cut.ok()) return cut;
  follow_.insert(follow_.begin(), std::make_move_iterator(undone.begin()),
                 std::make_move_iterator(undone.end()));
  return Status::Ok();
}

}  // namespace hangar
