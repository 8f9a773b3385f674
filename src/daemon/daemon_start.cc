// Start and recovery: the spool's directories and locks, the signalfd and inotify, the ledger
// before anything is decided, then every mission found in the spool handed to the kernel (the
// ended ones and tombstones as one RecoveredEnded, each live one as a Recovered), the control
// requests that waited, Ready, and a scan of what waits.
#include <malloc.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <chrono>
#include <span>
#include <thread>

#include "base/plural.h"
#include "base/sha256.h"
#include "daemon/daemon.h"
#include "launch/direct_launcher.h"
#include "shell/scan.h"
#include "shell/transitions.h"

namespace hangar {

namespace {

int PoolSize(int slots) {
  return slots < 2 ? 2 : slots > 16 ? 16 : slots;
}

// How long a start waits for a lock whose holder may be dying: a hangard killed a moment ago
// (SIGKILL, then an immediate restart) can leave a child between fork and exec that still holds
// its descriptor; a hangard that really runs holds it for longer than this.
constexpr int kLockPatienceMs = 2000;

// LockExclusive, tried again every 50 ms for kLockPatienceMs while another holds it.
Result<std::unique_ptr<Env::Lock>> LockPatiently(Env* env, const std::string& path, bool directory,
                                                 const std::string& named = "") {
  for (int waited = 0;; waited += 50) {
    Result<std::unique_ptr<Env::Lock>> lock = env->LockExclusive(path, directory, named);
    if (lock.ok() || lock.status().code() != Code::kUnavailable || waited >= kLockPatienceMs)
      return lock;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

Status Daemon::Start() {
  started_ = env_->Now();
  for (const std::string& d : layout_.AllDirs()) {
    Status s = env_->MakeDir(d);
    if (!s.ok() && s.code() != Code::kExists) return s;
  }
  Result<uint64_t> spool_fs = env_->FilesystemOf(layout_.spool);
  Result<uint64_t> rooms_fs = env_->FilesystemOf(layout_.rooms);
  rooms_same_fs_ = spool_fs.ok() && rooms_fs.ok() && *spool_fs == *rooms_fs;
  Result<std::unique_ptr<Env::Lock>> lock = LockPatiently(env_, layout_.LockFile(), false);
  if (!lock.ok() && lock.status().code() == Code::kUnavailable)
    return Status::Unavailable("cannot lock " + layout_.LockFile() +
                               ": another hangard runs on this spool");
  if (!lock.ok()) return lock.status();
  spool_lock_ = std::move(lock).value();
  // One writer per anchor: a second hangard (another spool, or a copy of this one) pointed at the
  // same anchor directory is refused before it writes a line there. The directory itself is
  // locked, so nothing is created on an anchor mount that may be missing.
  lock = LockPatiently(env_, anchor_dir_, true, "the anchor directory " + anchor_dir_);
  if (!lock.ok() && lock.status().code() == Code::kUnavailable)
    return Status::Unavailable("cannot lock the anchor directory " + anchor_dir_ +
                               ": another hangard writes this anchor (another spool, or a copy "
                               "of this one); one anchor directory serves one hangard");
  if (!lock.ok()) return lock.status();
  anchor_lock_ = std::move(lock).value();

  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  sigprocmask(SIG_BLOCK, &mask, &old_mask_);
  mask_set_ = true;
  signal_fd_ = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  // Threads inherit the mask: started only now, no worker can take a signal meant for the loop.
  pool_ = std::make_unique<WorkerPool<Signal>>(PoolSize(setup_.config.slots));
  // A launch holds a slot until decided, so at most `slots` are in flight: one thread each (up to
  // PoolSize's bound; beyond it they wait their turn).
  launches_ = std::make_unique<WorkerPool<LaunchStarted>>(PoolSize(setup_.config.slots));
  // Ready before the first direct launch (else that launch starts it); with the loop's mask, as
  // the launch pool's threads have it. One that cannot start says why.
  for (const auto& [name, profile] : setup_.config.profiles)
    if (profile.launcher == "direct") {
      (void)zygote_.Ready();
      break;
    }
  signal(SIGPIPE, SIG_IGN);
  inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (signal_fd_ < 0 || inotify_fd_ < 0) return Status::Errno("set up signalfd/inotify", errno);
  watches_ = std::make_unique<RunWatches>(env_, layout_, inotify_fd_,
                                          [this](const std::string& line) { Say(line); });
  // Watch before scanning, so nothing dropped in between goes unseen.
  wd_incoming_ = inotify_add_watch(inotify_fd_, layout_.IncomingNew().c_str(),
                                   IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE);
  wd_control_ = inotify_add_watch(inotify_fd_, layout_.ControlNew().c_str(),
                                  IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE);
  if (wd_incoming_ < 0 || wd_control_ < 0) return Status::Errno("watch " + layout_.spool, errno);

  // The ledger before anything is decided: recovery's decisions (a drone that ended while
  // hangard was down) are recorded too, and nothing launches on a ledger that does not verify.
  // The signal record is read first (also when it is no longer kept, if there is one): the
  // ledger's unanchored tail keeps only the entries whose lines it holds (daemon/ledger_keeper.h).
  std::optional<ledger::LinesCover> lines;
  if (setup_.config.record_signals || env_->Exists(signals_.path())) {
    std::string said;
    if (Status o = signals_.Open(&said); !o.ok()) return o;
    if (!said.empty()) Say(said);
    lines = signals_.cover();
  }
  if (Status l = ledger_.Start(env_->Now(), lines); !l.ok()) return l;
  if (!ledger_.said().empty()) Say(ledger_.said(), Priority::kWarning);
  state_.ledger_seq = ledger_.head_seq();
  state_.ledger_time = ledger_.HeadTime();
  if (Status g = ledger_.FoldBooks(&state_.grants, &state_.requesters, &state_.canaries);
      !g.ok() && ledger_.failure().empty())
    return Status::Invalid("cannot fold the ledger's grants and requesters: " + g.message());
  // The signal record: this start's line, before any of its decisions.
  if (setup_.config.record_signals) {
    Status s = signals_.Start(facts_, ledger_.head_seq(), ledger_.head_hash(), ledger_.HeadTime());
    if (!s.ok()) return s;
  }
  {
    const Config& c = setup_.config;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const std::string key =
        c.checkpoint_key.empty() ? anchor_dir_ + "/" + c.ledger_name + ".key" : c.checkpoint_key;
    Status k = ledger_.StartCheckpoints(key, c.checkpoint_every, c.checkpoint_seconds,
                                        std::string(host) + ":" + layout_.spool);
    if (!k.ok()) return Status::Invalid("cannot use the checkpoint key: " + k.message());
  }
  state_.ready = false;  // no launch before every mission is known and waiting cancels are read
  if (!ledger_.failure().empty()) {
    Status f = Dispatch(LedgerFailed{ledger_.failure(), env_->Now(), ledger_.rolled_back(),
                                     ledger_.unvouched_grants()});
    if (!f.ok()) return f;
  }
  if (ledger_.anchor_same_filesystem())
    Say("warning: anchor " + ledger_.anchor_path() +
            " is on the spool's filesystem: it guards against edits, not against losing the disk",
        Priority::kWarning);

  // Launch keys taken beside entries that did not become durable (a stop between): taken back
  // before recovery reads queued/, so that their missions launch anew. Not on a ledger that
  // failed or was rolled back: a key whose entry a restored ledger lacks may have launched.
  if (ledger_.failure().empty() && !ledger_.rolled_back()) {
    Result<std::vector<std::string>> back = DropUnbackedKeys(
        env_, layout_, [this](const std::vector<KeySeq>& keys) { return KeysBacked(keys); });
    if (!back.ok()) return back.status();
    for (const std::string& line : *back) Say(line, Priority::kWarning);
  }
  Result<std::vector<std::string>> fixed = RecoverIntakes(
      env_, layout_,
      [this](const std::string& id, const std::string& text) { return ReturnOnLedger(id, text); });
  if (!fixed.ok()) return fixed.status();
  for (const std::string& f : *fixed) Say(f);
  if (Status s = SyncCutLaunches(env_, layout_); !s.ok()) return s;

  // The ends engines saw while hangard was down become exit.json first; the run directories of
  // drones an engine still runs (or cannot say) are alive.
  Result<std::set<std::string>> engine_alive = engines_.CollectEnds();
  if (!engine_alive.ok()) return engine_alive.status();
  std::vector<std::string> log;
  // The cold queue: beyond the first queue_warm, queued missions are found as small records. Not
  // on a rolled-back ledger, whose reanchor returns every queued mission found (it reads them).
  RecoveredCold cold{{}, env_->Now()};
  Result<std::vector<Recovered>> rec = RecoverMissions(
      env_, layout_, setup_.home, env_->Now(),
      [&](const std::string& run) { return engine_alive->count(run) || SupervisorAlive(run); },
      &log, size_t(setup_.config.queue_warm), ledger_.rolled_back() ? nullptr : &cold.missions);
  if (!rec.ok()) return rec.status();
  for (const std::string& line : log) Say(line);
  // The ended missions and tombstones come first: one signal for all of them.
  RecoveredEnded ended{{}, env_->Now()};
  size_t live = 0;
  for (; live < rec->size(); ++live) {
    const Recovered& r = (*rec)[live];
    if (!r.purged && !Terminal(r.phase)) break;
    ended.missions.push_back({r.id, r.phase, r.accepted, r.attempt, r.by, r.purged});
  }
  if (!ended.missions.empty())
    if (Status s = Dispatch(std::move(ended)); !s.ok()) return s;
  for (Recovered& r : std::span(rec->begin() + live, rec->end())) {
    if (r.phase == Phase::kRunning && !r.exit && r.supervisor_alive)
      watches_->Watch(r.id, env_->Now());
    if (r.phase != Phase::kRunning || r.exit || !r.supervisor_alive) UnwatchRun(r.id);
    Status s = Dispatch(std::move(r));
    if (!s.ok()) return s;
  }
  if (!cold.missions.empty()) {
    Say(Plural(int64_t(cold.missions.size()), "queued mission") + " held cold (beyond the " +
        std::to_string(setup_.config.queue_warm) + " at the head of the queue; queue_warm)");
    if (Status s = Dispatch(std::move(cold)); !s.ok()) return s;
  }
  Result<std::vector<std::string>> controls = Waiting(env_, layout_.ControlNew());
  if (!controls.ok()) return controls.status();
  for (const std::string& n : *controls) {
    Status s = TakeControl(n);
    if (!s.ok()) return s;
  }
  Status s = Dispatch(Ready{env_->Now()});
  // What recovery read of every mission directory is freed now: give it back to the system, or
  // a deep spool's start leaves hangard holding its peak for good.
  malloc_trim(0);
  running_ = true;
  if (s.ok()) s = WritePresence("running");
  if (!s.ok()) return s;
  Say("policy " +
      (setup_.config.policy.empty() ? std::string("(built-in default)") : setup_.config.policy) +
      ", sha256 " + setup_.policy_sha256);
  Say("started on " + layout_.spool + " (" + Plural(setup_.config.slots, "slot") + ", " +
      Plural(int64_t(state_.missions.size()), "mission") + " known)");
  Status scanned = ScanAll();
  drops_.MarkFoundAtStart();
  return scanned;
}

bool Daemon::ReturnOnLedger(const std::string& id, const std::string& text) const {
  Result<json::Value> v = json::Parse(text);
  const json::Value* seq = v.ok() && v->is_object() ? v->find("ledger_seq") : nullptr;
  if (!seq || !seq->is_int()) return false;
  Result<std::optional<ledger::Entry>> e = ledger_.EntryAt(seq->as_int());
  if (!e.ok() || !*e) return false;
  const ledger::Entry& entry = **e;
  const json::Value* named = entry.body.is_object() ? entry.body.find("id") : nullptr;
  const json::Value* sha = entry.body.is_object() ? entry.body.find("sha256") : nullptr;
  return entry.kind == "mission.returned" && named && named->is_string() &&
         named->as_string() == id && sha && sha->is_string() && sha->as_string() == Sha256Hex(text);
}

Status Daemon::ScanAll() {
  engine_check_.DueNext();  // the engines are asked at the next turn too
  Result<std::vector<std::string>> names = Waiting(env_, layout_.IncomingNew());
  if (!names.ok()) return names.status();
  drops_.Add(false, *names);
  names = Waiting(env_, layout_.ControlNew());
  if (!names.ok()) return names.status();
  drops_.Add(true, *names);
  for (const std::string& id : watches_->Ids()) {
    watches_->ScanOps(id, env_->Now());
    Status s = CheckExit(id);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace hangar
