#include "daemon/daemon.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "base/json.h"
#include "daemon/sd_notify.h"
#include "daemon/signature.h"
#include "kernel/control.h"
#include "kernel/window.h"
#include "launch/direct_launcher.h"
#include "launch/launcher.h"
#include "shell/observer.h"
#include "shell/op_files.h"
#include "shell/op_handler.h"
#include "shell/path_resolve.h"
#include "shell/retry.h"
#include "shell/scan.h"
#include "shell/transitions.h"
#include "shell/users.h"

namespace hangar {

namespace {

constexpr size_t kTakePerTurn = 8;  // drops taken per loop turn before ends are looked at again
constexpr int kExitRechecks = 50;   // times 10 ms: how long a seen exit.json waits for the lock
// A file seen while perhaps still written in place (an op request a scan finds, a drop or control
// created in new/ with one link) is taken once this long unchanged, if its close has not come.
constexpr TimeMs kOpSettleMs = 2000;
constexpr uint64_t kResumeFreeBytes = uint64_t{8} << 20;  // free space that ends such a stop
// An engine's tool (systemctl, squeue, ...) that does not answer in this long is taken as "the
// engine cannot say now", never as "the drone is gone".
constexpr std::chrono::milliseconds kEngineToolTimeout{10000};
// A unit or job whose start is not settled (its tool failed or timed out, or hangard restarted
// before its id was kept) may still appear: "the engine knows none" counts only after this long.
constexpr TimeMs kEngineSettleMs = 60000;

// What ENGINE says of each of PLANS, in one look (Launcher::ObserveAll); none: no such launcher.
std::vector<Result<EngineReport>> ObserveWith(Launcher* engine, const std::vector<Plan>& plans) {
  if (!engine)
    return std::vector<Result<EngineReport>>(plans.size(), Status::Invalid("no such launcher"));
  return engine->ObserveAll(plans);
}

int PoolSize(int slots) {
  return slots < 2 ? 2 : slots > 16 ? 16 : slots;
}

}  // namespace

Daemon::Daemon(Env* env, KernelSetup setup, Layout layout, ManifestLimits limits,
               std::string shim_path, std::string config_path, std::string anchor_dir)
    : env_(env),
      setup_(std::move(setup)),
      layout_(std::move(layout)),
      limits_(limits),
      shim_path_(std::move(shim_path)),
      config_path_(std::move(config_path)),
      anchor_dir_(std::move(anchor_dir)),
      ledger_(env_, layout_.spool, anchor_dir_, setup_.config.ledger_name),
      outbox_(
          env_, layout_, [this](const std::string& line) { Say(line); },
          [this] { return ledger_.checkpoint(); }) {
  engine_check_.set_period(TimeMs(setup_.config.launchers.poll_s) * 1000);
  notify_retry_.set_period(TimeMs(setup_.config.notify_retry_s) * 1000);
}

Daemon::~Daemon() {
  for (int fd : {inotify_fd_, signal_fd_, lock_fd_, anchor_lock_fd_})
    if (fd >= 0) close(fd);
}

void Daemon::Say(const std::string& line) {
  std::string out = FormatTime(env_->Now()) + " hangard: " + line + "\n";
  (void)!write(2, out.data(), out.size());
}

Status Daemon::WritePresence(const char* status) {
  json::Object o;
  o["hangar"] = 1;
  o["pid"] = int64_t(getpid());
  o["started"] = FormatTime(started_);
  o["spool"] = layout_.spool;
  o["rooms"] = layout_.rooms;
  o["config"] = config_path_;
  o["slots"] = setup_.config.slots;
  o["policy"] =
      json::Object{{"file", setup_.config.policy.empty() ? json::Value(nullptr)
                                                         : json::Value(setup_.config.policy)},
                   {"sha256", setup_.policy_sha256}};
  json::Array bwrap_profiles;
  for (const auto& [name, profile] : setup_.config.profiles)
    if (profile.sandbox == "bwrap") bwrap_profiles.emplace_back(name);
  json::Object sandbox;
  sandbox["bwrap"] = setup_.bwrap.empty() ? json::Value(nullptr) : json::Value(setup_.bwrap);
  sandbox["profiles"] = std::move(bwrap_profiles);
  // The limits in force (man hangard.8, SANDBOX): RLIMIT_NPROC binds no process of uid 0.
  const DroneLimits& lim = setup_.config.limits;
  sandbox["limits"] = json::Object{
      {"processes", lim.processes},
      {"processes_enforced", !setup_.root || setup_.drone_uid >= 0},
      {"drone_uid", setup_.drone_uid >= 0 ? json::Value(setup_.drone_uid) : json::Value(nullptr)},
      {"file_mb", lim.file_mb},
      {"shm_mb", lim.shm_mb},
      {"memory_mb", lim.memory_mb},
      {"ops_per_minute", lim.ops_per_minute}};
  o["sandbox"] = std::move(sandbox);
  // The spool's filesystem: "full" while the work is stopped for want of space (it resumes by
  // itself); the rooms on it can fill it (man/hangar.conf.5, rooms).
  Result<uint64_t> free = env_->FreeBytes(layout_.spool);
  o["storage"] = json::Object{
      {"state", storage_full_ ? "full" : "ok"},
      {"free_bytes", free.ok() ? json::Value(int64_t(*free)) : json::Value(nullptr)},
      {"since", storage_full_ ? json::Value(FormatTime(stopped_at_)) : json::Value(nullptr)},
      {"rooms_on_spool_filesystem", rooms_same_fs_}};
  json::Array approvers;
  for (int64_t uid : setup_.approvers)
    approvers.push_back(json::Object{{"uid", uid}, {"user", LoginName(uid)}});
  o["decide"] =
      json::Object{{"approvers", std::move(approvers)}, {"four_eyes", setup_.config.four_eyes}};
  o["clock"] =
      json::Object{{"behind", state_.clock_behind},
                   {"ledger_time", state_.ledger_time ? json::Value(FormatTime(state_.ledger_time))
                                                      : json::Value(nullptr)}};
  o["status"] = status;
  o["time"] = FormatTime(env_->Now());
  json::Object l{{"name", ledger_.name()},
                 {"anchor", ledger_.anchor_path()},
                 {"anchor_same_filesystem", ledger_.anchor_same_filesystem()},
                 {"state", state_.fail_closed.empty() ? "ok" : "fail-closed"},
                 {"reason", state_.fail_closed}};
  o["ledger"] = std::move(l);
  // The work: "ok", "intake-paused" (no space to take drops in) or "stopped" (a storage failure;
  // only a restart leaves it).
  const bool stopped = !stopped_.empty(), paused = !intake_paused_.empty();
  json::Object w{{"state", stopped  ? "stopped"
                           : paused ? "intake-paused"
                                    : "ok"},
                 {"reason", stopped ? stopped_ : intake_paused_},
                 {"since", stopped  ? json::Value(FormatTime(stopped_at_))
                           : paused ? json::Value(FormatTime(intake_paused_at_))
                                    : json::Value(nullptr)}};
  o["work"] = std::move(w);
  presence_fail_closed_ = state_.fail_closed;
  presence_clock_behind_ = state_.clock_behind;
  SdNotify(StatusLine({.stopping = std::string(status) == "stopped",
                       .work_stopped = stopped_,
                       .fail_closed = state_.fail_closed,
                       .intake_paused = intake_paused_}));
  return env_->WriteFileAtomic(layout_.spool, "hangard.json", json::WritePretty(o));
}

void Daemon::UpdatePresence() {
  if (!running_) return;  // Start writes it once recovery is over
  Status s = WritePresence("running");
  // Best effort: hangard.json only reports, and a failure to write it decides nothing.
  if (!s.ok() && !presence_said_) Say("cannot update hangard.json: " + s.message());
  presence_said_ = !s.ok();
}

void Daemon::StopWork(const Status& cause) {
  if (!stopped_.empty()) return;  // the first reason stands
  stopped_ = cause.message();
  stopped_at_ = env_->Now();
  storage_full_ = NoSpace(cause);
  if (storage_full_)
    Say("STOPPED (storage full): " + stopped_ +
        "; no intake, launch, control, op or grant until space returns, then hangard restarts in "
        "place and recovers from the spool; running drones go on under their supervisors, which "
        "keep their exit records until they can be written");
  else
    Say("STOPPED: " + stopped_ +
        "; no intake, launch, control, op or grant until hangard is restarted (fix the disk "
        "first: the next start recovers from the spool); running drones go on under their "
        "supervisors");
  pending_names_.clear();
  pending_controls_.clear();
  pending_ops_.clear();
  UpdatePresence();
}

void Daemon::PauseIntake(const std::string& reason) {
  const TimeMs now = env_->Now();
  if (intake_paused_.empty()) {
    intake_paused_at_ = now;
    Say("intake paused: " + reason + "; drops wait in incoming/new, tried again every " +
        std::to_string(kIntakeRetryMs / 1000) + " s");
  }
  intake_paused_ = reason;
  intake_retry_.Restart(now);
  pending_names_.clear();  // the retry takes them, one at a time until one goes in
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
      pending_names_.push_back(n);  // taken by this turn's TakePending, as the one try
      return;
    }
}

void Daemon::Checkpoint() {
  std::string error;
  ledger_.MaybeCheckpoint(env_->Now(), state_.fail_closed.empty(), &error);
  if (!error.empty()) Say(error);
}

Status Daemon::Start() {
  started_ = env_->Now();
  for (const std::string& d : layout_.AllDirs()) {
    Status s = env_->MakeDir(d);
    if (!s.ok() && s.code() != Code::kExists) return s;
  }
  struct stat spool_st {
  }, rooms_st{};
  rooms_same_fs_ = ::stat(layout_.spool.c_str(), &spool_st) == 0 &&
                   ::stat(layout_.rooms.c_str(), &rooms_st) == 0 &&
                   spool_st.st_dev == rooms_st.st_dev;
  lock_fd_ = open(layout_.LockFile().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) return Status::Errno("open " + layout_.LockFile(), errno);
  if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      return Status::Unavailable("cannot lock " + layout_.LockFile() +
                                 ": another hangard runs on this spool");
    return Status::Errno("lock " + layout_.LockFile(), errno);
  }
  // One writer per anchor: a second hangard (another spool, or a copy of this one) pointed at the
  // same anchor directory is refused before it writes a line there. The directory itself is
  // locked, so nothing is created on an anchor mount that may be missing.
  anchor_lock_fd_ = open(anchor_dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (anchor_lock_fd_ < 0) return Status::Errno("open the anchor directory " + anchor_dir_, errno);
  if (flock(anchor_lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      return Status::Unavailable("cannot lock the anchor directory " + anchor_dir_ +
                                 ": another hangard writes this anchor (another spool, or a copy "
                                 "of this one); one anchor directory serves one hangard");
    return Status::Errno("lock the anchor directory " + anchor_dir_, errno);
  }

  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  signal_fd_ = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  // Threads inherit the mask: started only now, no worker can take a signal meant for the loop.
  pool_ = std::make_unique<WorkerPool>(PoolSize(setup_.config.slots));
  signal(SIGPIPE, SIG_IGN);
  inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (signal_fd_ < 0 || inotify_fd_ < 0) return Status::Errno("set up signalfd/inotify", errno);
  // Watch before scanning, so nothing dropped in between goes unseen.
  wd_incoming_ = inotify_add_watch(inotify_fd_, layout_.IncomingNew().c_str(),
                                   IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE);
  wd_control_ = inotify_add_watch(inotify_fd_, layout_.ControlNew().c_str(),
                                  IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE);
  if (wd_incoming_ < 0 || wd_control_ < 0) return Status::Errno("watch " + layout_.spool, errno);

  // The ledger before anything is decided: recovery's decisions (a drone that ended while
  // hangard was down) are recorded too, and nothing launches on a ledger that does not verify.
  if (Status l = ledger_.Start(env_->Now()); !l.ok()) return l;
  state_.ledger_seq = ledger_.head_seq();
  state_.ledger_time = ledger_.HeadTime();
  if (Status g = ledger_.FoldGrants(&state_.grants); !g.ok() && ledger_.failure().empty())
    return Status::Invalid("cannot fold the ledger's grants: " + g.message());
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
        " is on the spool's filesystem: it guards against edits, not against losing the disk");

  Result<std::vector<std::string>> fixed = RecoverIntakes(env_, layout_);
  if (!fixed.ok()) return fixed.status();
  for (const std::string& f : *fixed) Say(f);

  Result<std::set<std::string>> engine_alive = CollectEngineEnds();
  if (!engine_alive.ok()) return engine_alive.status();
  std::vector<std::string> log;
  Result<std::vector<Recovered>> rec = RecoverMissions(
      env_, layout_, setup_.home, env_->Now(),
      [&](const std::string& run) { return engine_alive->count(run) || SupervisorAlive(run); },
      &log);
  if (!rec.ok()) return rec.status();
  for (const std::string& line : log) Say(line);
  for (Recovered& r : rec.value()) {
    if (r.phase == Phase::kRunning && !r.exit && r.supervisor_alive) WatchRun(r.id);
    if (r.phase != Phase::kRunning || r.exit || !r.supervisor_alive) UnwatchRun(r.id);
    Status s = Dispatch(std::move(r));
    if (!s.ok()) return s;
  }
  Result<std::vector<std::string>> controls = Waiting(env_, layout_.ControlNew());
  if (!controls.ok()) return controls.status();
  for (const std::string& n : *controls) {
    Status s = TakeControl(n);
    if (!s.ok()) return s;
  }
  Status s = Dispatch(Ready{env_->Now()});
  running_ = true;
  if (s.ok()) s = WritePresence("running");
  if (!s.ok()) return s;
  Say("policy " +
      (setup_.config.policy.empty() ? std::string("(built-in default)") : setup_.config.policy) +
      ", sha256 " + setup_.policy_sha256);
  Say("started on " + layout_.spool + " (" + std::to_string(setup_.config.slots) + " slots, " +
      std::to_string(state_.missions.size()) + " missions known)");
  Status scanned = ScanAll();
  start_names_.insert(pending_names_.begin(), pending_names_.end());
  return scanned;
}

Status Daemon::ScanAll() {
  engine_check_.DueNext();  // the engines are asked at the next turn too
  Result<std::vector<std::string>> names = Waiting(env_, layout_.IncomingNew());
  if (!names.ok()) return names.status();
  pending_names_.insert(pending_names_.end(), names->begin(), names->end());
  names = Waiting(env_, layout_.ControlNew());
  if (!names.ok()) return names.status();
  pending_controls_.insert(pending_controls_.end(), names->begin(), names->end());
  std::vector<std::string> ids;
  for (const auto& [id, wd] : run_wd_) ids.push_back(id);
  for (const std::string& id : ids) {
    ScanOps(id);
    Status s = CheckExit(id);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status Daemon::TakePending(size_t max) {
  if (!stopped_.empty()) {
    pending_controls_.clear();
    pending_names_.clear();
    return Status::Ok();
  }
  // Control requests first: a cancel should not wait behind a burst of new missions.
  for (; max > 0 && !pending_controls_.empty(); --max) {
    std::string n = std::move(pending_controls_.front());
    pending_controls_.pop_front();
    Status s = TakeControl(n);
    if (!s.ok()) return s;
  }
  // While intake is paused for space only the retry's one drop is taken (it is alone in the list).
  const bool paused = !intake_paused_.empty();
  for (; max > 0 && !pending_names_.empty(); --max) {
    std::string n = std::move(pending_names_.front());
    pending_names_.pop_front();
    Status s = TakeName(n);
    if (!s.ok()) return s;
    if (paused) break;
  }
  if (!intake_paused_.empty()) pending_names_.clear();
  return Status::Ok();
}

Status Daemon::TakeName(const std::string& name) {
  if (name.empty() || name[0] == '.' || !env_->Exists(layout_.IncomingNew() + "/" + name))
    return Status::Ok();
  Dropped d = ReadDrop(env_, layout_, name, env_->Now());
  d.resolved = ResolveWrites(d.bytes, setup_.home);
  d.found_at_start = start_names_.erase(name) > 0;
  return Dispatch(std::move(d));
}

Status Daemon::TakeControl(const std::string& name) {
  if (name.empty() || name[0] == '.' || !env_->Exists(layout_.ControlNew() + "/" + name))
    return Status::Ok();
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
  // A signed approve is checked here, with ssh-keygen: the kernel runs nothing itself.
  if (auto* r = std::get_if<ControlRequest>(&parsed);
      r && r->kind == ControlKind::kApprove && !r->signature.empty() && c.read_error.empty())
    c.signature = VerifyApproval(env_, layout_, setup_.config.allowed_signers, *r);
  return Dispatch(std::move(c));
}

Status Daemon::CheckExit(const std::string& id) {
  // An engine-run drone's exit.json is hangard's own (EngineEnded), decided on when written.
  if (!run_wd_.count(id) || engine_runs_.count(id)) return Status::Ok();
  if (SupervisorAlive(layout_.RunDir(id))) {
    // Its exit.json counts only once the supervisor has let go (see scan.h); the lock's release
    // wakes us through IN_CLOSE_WRITE, a short recheck covers the moment in between.
    if (env_->Exists(layout_.RunDir(id) + "/exit.json") && !exit_recheck_.count(id))
      exit_recheck_[id] = kExitRechecks;
    return Status::Ok();
  }
  exit_recheck_.erase(id);
  Result<ExitInfo> e = ReadExit(env_, layout_.RunDir(id));
  if (!e.ok()) {
    if (e.status().code() != Code::kNotFound) Say(id + ": " + e.status().message());
    return Status::Ok();
  }
  UnwatchRun(id);
  return Dispatch(DroneExited{id, *e, env_->Now()});
}

Status Daemon::RecheckExits() {
  std::vector<std::string> ids;
  for (auto& [id, left] : exit_recheck_)
    if (--left >= 0) ids.push_back(id);
  std::erase_if(exit_recheck_, [](const auto& kv) { return kv.second < 0; });
  for (const std::string& id : ids) {
    Status s = CheckExit(id);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

void Daemon::WatchRun(const std::string& id) {
  // exit.json renamed into place, and the supervisor's lock closed (only it opens it for writing).
  int wd = inotify_add_watch(inotify_fd_, layout_.RunDir(id).c_str(), IN_MOVED_TO | IN_CLOSE_WRITE);
  if (wd < 0) {
    Say(id + ": cannot watch " + layout_.RunDir(id) + ": " + std::strerror(errno) +
        " (the tick will look)");
    run_wd_[id] = -1;
    return;
  }
  run_watch_[wd] = id;
  run_wd_[id] = wd;
  WatchOps(id);
}

void Daemon::WatchOps(const std::string& id) {
  if (ops_wd_.count(id)) return;
  // A request is taken once it is complete: renamed into place, or closed after writing.
  const std::string ops = layout_.RoomOps(id);
  int wd = inotify_add_watch(inotify_fd_, ops.c_str(),
                             IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR | IN_DONT_FOLLOW);
  ops_wd_[id] = wd;
  if (wd >= 0) ops_watch_[wd] = id;
  ScanOps(id);
}

// Requests already in ROOM/ops (at a restart, after an overflow, or if the watch was lost because
// the drone replaced the directory): the tick calls this for every running mission.
void Daemon::ScanOps(const std::string& id) {
  const std::string ops = layout_.RoomOps(id) + "/";
  const TimeMs now = env_->Now();
  for (std::string& name : ListOpRequests(layout_.Room(id))) {
    if (ops_taken_.count({id, name})) continue;
    // A file written in place may still be open: a scan takes it once it has been left alone
    // for a moment (closing or renaming it wakes the watch at once).
    Result<Env::FileInfo> f = env_->Lstat(ops + name + ".json");
    if (f.ok() && f->modified + kOpSettleMs > now) continue;
    pending_ops_.emplace_back(id, std::move(name));
  }
}

Status Daemon::TakeOps() {
  if (!stopped_.empty()) pending_ops_.clear();
  while (!pending_ops_.empty()) {
    auto [id, name] = std::move(pending_ops_.front());
    pending_ops_.pop_front();
    if (!run_wd_.count(id) || !ops_taken_.insert({id, name}).second) continue;
    const std::string mission_ops = layout_.MissionOps(id);
    if (env_->Exists(mission_ops + "/" + name + ".result.json")) continue;  // answered before
    Status s = Dispatch(ReadOpRequest(env_, layout_.Room(id), mission_ops, id, name, env_->Now()));
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

void Daemon::UnwatchRun(const std::string& id) {
  engine_runs_.erase(id);
  engine_since_.erase(id);
  auto it = run_wd_.find(id);
  if (it == run_wd_.end()) return;
  if (it->second >= 0) {
    inotify_rm_watch(inotify_fd_, it->second);
    run_watch_.erase(it->second);
  }
  run_wd_.erase(it);
  exit_recheck_.erase(id);
  kill_pending_.erase(id);
  if (auto o = ops_wd_.find(id); o != ops_wd_.end()) {
    if (o->second >= 0) {
      inotify_rm_watch(inotify_fd_, o->second);
      ops_watch_.erase(o->second);
    }
    ops_wd_.erase(o);
  }
  std::erase_if(ops_taken_, [&](const auto& p) { return p.first == id; });
}

Status Daemon::Dispatch(Signal first) {
  if (!stopped_.empty()) {
    // Nothing is decided once stopped; an end seen is said, and taken up by the next start.
    const char* after = "; returned at the next start (hangard's work is stopped)";
    if (auto* e = std::get_if<DroneExited>(&first)) Say(e->id + ": its drone ended" + after);
    if (auto* g = std::get_if<SupervisorGone>(&first))
      Say(g->id + ": its supervisor is gone" + after);
    if (auto* o = std::get_if<Observed>(&first))
      Say(o->id + ": its observation is set aside" + after);
    return Status::Ok();
  }
  std::deque<Signal> pending;
  pending.push_back(std::move(first));
  while (!pending.empty()) {
    Signal sig = std::move(pending.front());
    pending.pop_front();
    // Launches, grants and ops are protected acts: the ledger's head must still match its anchor
    // before the kernel may decide one (a control request may be a grant).
    if (state_.fail_closed.empty() &&
        (MayLaunch(setup_, state_) || std::holds_alternative<ControlDropped>(sig) ||
         std::holds_alternative<OpRequested>(sig)) &&
        !std::holds_alternative<LedgerFailed>(sig)) {
      if (Status h = ledger_.CheckHead(); !h.ok()) {
        Status s = Decided(LedgerFailed{h.message(), env_->Now()}, &pending);
        if (!s.ok()) {
          StopWork(s);
          return Status::Ok();
        }
      }
    }
    // A decision whose entries or acts did not all reach the disk: the kernel is ahead of it.
    Status s = Decided(sig, &pending);
    if (!s.ok()) {
      StopWork(s);
      return Status::Ok();
    }
  }
  if (running_ && (state_.fail_closed != presence_fail_closed_ ||
                   state_.clock_behind != presence_clock_behind_))
    UpdatePresence();
  return Status::Ok();
}

Status Daemon::Decided(const Signal& sig, std::deque<Signal>* pending) {
  std::vector<Action> acts = Decide(setup_, &state_, sig);
  // Group commit: every entry of this decision in one ledger write and one anchor write, before
  // any of its acts. (Entries only ever go earlier than the acts they back, never later.)
  std::vector<Record> records;
  for (Action& a : acts)
    if (auto* r = std::get_if<Record>(&a)) records.push_back(std::move(*r));
  if (!records.empty()) {
    std::string anchor_error;
    Status s = ledger_.AppendAll(records, &anchor_error);
    if (!s.ok()) return s;
    if (!anchor_error.empty()) {
      // Record before act holds for the anchor as for the ledger: entries the anchor does not
      // vouch for back no act. The decision's acts are dropped (nothing launched, moved, granted
      // or answered) and the work stops, failed closed; the next start decides again from the
      // spool, anchoring or refusing the unvouched tail (man/hangar-ledger.5, START-UP).
      const std::string seqs =
          std::to_string(records.front().seq) + ".." + std::to_string(records.back().seq);
      if (state_.fail_closed.empty()) state_.fail_closed = anchor_error;
      return Status::Io("ledger seqs " + seqs + " are not on the anchor (" + anchor_error +
                        "): their acts are dropped");
    }
    Checkpoint();
  }
  std::string forgotten;  // a mission whose intake was undone for lack of space
  for (const Action& a : acts) {
    if (std::holds_alternative<Record>(a)) continue;
    if (!forgotten.empty()) {
      // What the decision went on to do with it (its log lines, its launch) goes with it.
      if (auto* x = std::get_if<Log>(&a); x && x->line.starts_with(forgotten + " ")) continue;
      if (auto* x = std::get_if<Launch>(&a); x && x->id == forgotten) continue;
    }
    if (auto* x = std::get_if<Intake>(&a)) {
      bool undone = false;
      Status s = PerformIntakeAction(*x, pending, &undone);
      if (!s.ok()) return s;
      if (undone) forgotten = x->id;
      continue;
    }
    Status s = Perform(a, pending);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status Daemon::PerformIntakeAction(const Intake& in, std::deque<Signal>* pending, bool* undone) {
  Status s = PerformIntake(env_, layout_, in);
  if (s.ok()) {
    if (in.to == Phase::kHold && in.notify_dir)
      outbox_.DeliverHold(in.id, *in.notify_dir, in.files.at("gate1.json"));
    if (!intake_paused_.empty()) {
      Say("intake resumed: " + in.id + " taken in");
      intake_paused_.clear();
      UpdatePresence();
      // Every drop that waited meanwhile.
      Result<std::vector<std::string>> names = Waiting(env_, layout_.IncomingNew());
      if (!names.ok()) return names.status();
      pending_names_.insert(pending_names_.end(), names->begin(), names->end());
    }
    return s;
  }
  if (!NoSpace(s)) return s;
  Status u = UndoIntake(env_, layout_, in);
  if (u.code() == Code::kNotFound) return s;  // in place after all, but not known to be durable
  if (!u.ok())
    Say("the intake of " + in.id + " is not wholly undone (" + u.message() +
        "); the next start finishes it");
  *undone = true;
  pending->push_front(IntakeFailed{in.name, in.id, s.message(), env_->Now()});
  PauseIntake(s.message());
  return Status::Ok();
}

// One overload per action type, so an action the kernel comes to return that hangard does not
// perform is a compile error here, not an act silently skipped.
Status Daemon::Perform(const Action& a, std::deque<Signal>* follow) {
  struct Performer {
    Daemon* d;
    std::deque<Signal>* follow;
    Status operator()(const Log& x) const {
      d->Say(x.line);
      return Status::Ok();
    }
    Status operator()(const Launch& x) const { return d->PerformLaunch(x, follow); }
    Status operator()(const RunOp& x) const { return d->PerformRunOp(x, follow); }
    Status operator()(const AnswerOp& x) const { return d->PerformAnswerOp(x); }
    Status operator()(const Observe& x) const { return d->PerformObserve(x); }
    Status operator()(const Kill& x) const { return d->PerformKill(x); }
    Status operator()(const Move& x) const { return d->PerformMoveAction(x); }
    Status operator()(const Retry& x) const { return PerformRetry(d->env_, d->layout_, x); }
    Status operator()(const ConsumeControl& x) const { return d->PerformConsumeAction(x); }
    // Decided performs these itself: the records before any act, an intake with its undo.
    Status operator()(const Record&) const {
      return Status::Invalid("a Record reaches Perform: Decided appends every record first");
    }
    Status operator()(const Intake& x) const {
      return Status::Invalid("the intake of " + x.id + " reaches Perform: Decided performs it");
    }
  };
  return std::visit(Performer{this, follow}, a);
}

Status Daemon::PerformObserve(const Observe& x) {
  Observe ob = x;
  ManifestLimits lim = limits_;
  Env* env = env_;
  pool_->Submit([ob, lim, env]() -> Signal {
    return Observed{ob.id, ObserveMission(ob, lim), env->Now()};
  });
  return Status::Ok();
}

Status Daemon::PerformKill(const Kill& x) {
  auto run = engine_runs_.find(x.id);
  Launcher* engine = run == engine_runs_.end() ? nullptr : LauncherFor(run->second.launcher);
  Status s = engine ? engine->Cancel(run->second) : SignalSupervisor(layout_.RunDir(x.id), SIGTERM);
  if (!s.ok()) {
    Say(x.id + ": " + s.message() +
        (engine ? " (tried again at each look at its engine)"
                : " (tried again at each supervisor check)"));
    kill_pending_.insert(x.id);
  }
  return Status::Ok();
}

Status Daemon::PerformMoveAction(const Move& x) {
  if (x.from == Phase::kRunning) UnwatchRun(x.id);
  const bool notify = x.notify_dir && x.to == Phase::kReturned && x.files.count("return.json");
  // The pending record is written before the move, so a crash in between still delivers later.
  Status s = notify ? outbox_.Record(x.id, *x.notify_dir, "pending delivery") : Status::Ok();
  if (s.ok()) s = PerformMove(env_, layout_, x);
  if (!s.ok()) return s;
  if (x.to == Phase::kHold && x.notify_dir)
    for (const char* g : {"gate2.json", "gate1.json"})
      if (x.files.count(g)) {
        outbox_.DeliverHold(x.id, *x.notify_dir, x.files.at(g));
        break;
      }
  return notify ? outbox_.Deliver(x.id, *x.notify_dir, x.files.at("return.json")) : Status::Ok();
}

Status Daemon::PerformConsumeAction(const ConsumeControl& x) {
  Status s = PerformConsumeControl(env_, layout_, x);
  if (s.ok() || !x.bad) return s;
  // A bad request that cannot be filed must not come back at every start: its reason is in
  // the log line the kernel wrote; the request goes.
  Say("control " + x.name + " could not be kept in control/bad (" + s.message() + "); removed");
  return env_->Remove(layout_.ControlNew() + "/" + x.name);
}

Status Daemon::PerformLaunch(const Launch& l, std::deque<Signal>* follow) {
  LaunchPrep prep = PrepareLaunch(env_, layout_, l, env_->Now());
  if (!prep.storage.ok()) return prep.storage;
  if (!prep.ok) {
    follow->push_back(
        LaunchDone{l.id, false, prep.key_existed, prep.in_running, prep.error, env_->Now()});
    return Status::Ok();
  }
  const bool engine = l.plan.launcher != "direct";
  Launcher* launcher = LauncherFor(l.plan.launcher);
  WatchRun(l.id);  // before the drone starts: a supervisor's exit.json cannot slip past
  Status s = launcher ? launcher->Start(l.plan, prep.dir + "/plan.json", l.plan_sha256)
                      : Status::Invalid("no launcher \"" + l.plan.launcher + "\"");
  if (s.code() == Code::kUnavailable && engine) {
    // Whether the engine took it is unknown: asked until it says, for kEngineSettleMs at least.
    Say(l.id + ": " + s.message() + "; taken as launched, its engine is asked until it says");
    s = Status::Ok();
  } else if (s.code() == Code::kUnavailable && SupervisorAlive(layout_.RunDir(l.id))) {
    // The shim did not report in time but holds the lock: the drone runs; watch it as launched.
    Say(l.id + ": " + s.message() + ", but its supervisor holds the lock: taken as launched");
    s = Status::Ok();
  }
  if (!s.ok()) {
    UnwatchRun(l.id);
  } else if (engine) {
    engine_runs_[l.id] = l.plan;
    engine_since_[l.id] = env_->Now();
  }
  follow->push_back(LaunchDone{l.id, s.ok(), false, true, s.ok() ? "" : s.message(), env_->Now()});
  return Status::Ok();
}

Status Daemon::PerformRunOp(const RunOp& r, std::deque<Signal>* follow) {
  const std::string ops = layout_.MissionOps(r.id);
  Status s = env_->MakeDir(ops);
  if (!s.ok() && s.code() != Code::kExists) return s;
  for (const auto& [name, text] : r.files)
    if (s = env_->WriteFileAtomic(ops, name, text); !s.ok()) return s;
  json::Object key{{"hangar", 1}, {"id", r.id},   {"request", r.name},
                   {"op", r.op},  {"key", r.key}, {"time", FormatTime(env_->Now())}};
  s = TakeOpKey(env_, ops, r.key, json::WritePretty(key));
  if (!s.ok()) {
    // Nothing ran: the kernel answers the request with the reason. A key taken meanwhile is
    // another request's, and stays (the answer releases only a key that names this request).
    OpFinished f;
    f.id = r.id;
    f.name = r.name;
    f.op = r.op;
    f.key = r.key;
    f.error = "cannot take op key ops/keys/" + r.key + ".json: " + s.message();
    f.output = nullptr;
    f.now = env_->Now();
    follow->push_back(std::move(f));
    return Status::Ok();
  }
  Env* env = env_;
  pool_->Submit([r, ops, env]() -> Signal { return RunOpHandler(r, ops, env->Now()); });
  return Status::Ok();
}

Status Daemon::PerformAnswerOp(const AnswerOp& a) {
  const std::string ops = layout_.MissionOps(a.id);
  Status s = env_->MakeDir(ops);
  if (!s.ok() && s.code() != Code::kExists) return s;
  // The answer itself last: a request whose NAME.result.json exists is never taken again.
  for (const auto& [name, text] : a.files)
    if (name != a.name + ".result.json" && !(s = env_->WriteFileAtomic(ops, name, text)).ok())
      return s;
  const std::string key_file = ops + "/keys/" + a.key + ".json";
  if ((a.keep || a.release) && !a.key.empty()) {
    Result<std::string> text = env_->ReadFile(key_file, 1 << 20);
    Result<json::Value> k = text.ok() ? json::Parse(*text) : Result<json::Value>(text.status());
    const json::Value* req = k.ok() && k->is_object() ? k->find("request") : nullptr;
    if (req && req->is_string() && req->as_string() == a.name) {
      // The key itself is never rewritten: its act's result goes beside it.
      s = a.release ? env_->Remove(key_file)
                    : env_->WriteFileAtomic(ops + "/keys", a.key + ".result.json", a.result);
      if (!s.ok()) return s;
    }
  }
  if (s = env_->WriteFileAtomic(ops, a.name + ".result.json", a.result); !s.ok()) return s;
  if (Status r = WriteRoomResult(layout_.Room(a.id), a.name, a.result); !r.ok())
    Say(a.id + ": the answer to ops/" + a.name + ".json stays in the spool only: " + r.message());
  return Status::Ok();
}

Status Daemon::CheckSupervisors() {
  std::vector<std::string> ids;
  for (const auto& [id, wd] : run_wd_) ids.push_back(id);
  for (const std::string& id : ids) {
    if (engine_runs_.count(id)) continue;  // CheckEngines
    const std::string run = layout_.RunDir(id);
    if (SupervisorAlive(run)) {
      if (kill_pending_.count(id) && SignalSupervisor(run, SIGTERM).ok()) kill_pending_.erase(id);
      ScanOps(id);
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

Launcher* Daemon::LauncherFor(const std::string& name) {
  auto it = launchers_.find(name);
  if (it == launchers_.end()) {
    CommandRunner run = [](const std::vector<std::string>& argv) {
      return RunCommand(argv, kEngineToolTimeout);
    };
    it = launchers_.emplace(name, MakeLauncher(name, env_, shim_path_, run)).first;
  }
  return it->second.get();
}

Status Daemon::EngineEnded(const std::string& id, const ExitInfo& e) {
  // Kept before it is decided on, as a supervisor's would be: a restart reads the same end.
  Status s = env_->WriteFileAtomic(layout_.RunDir(id), "exit.json", json::WritePretty(e.ToJson()));
  if (!s.ok()) return s;
  UnwatchRun(id);
  return Dispatch(DroneExited{id, e, env_->Now()});
}

Status Daemon::CheckEngines() {
  // One look per launcher at all its drones (Launcher::ObserveAll: Slurm asks squeue once).
  std::map<std::string, std::vector<std::string>> by_launcher;
  for (const auto& [id, plan] : engine_runs_) by_launcher[plan.launcher].push_back(id);
  std::string unanswered;
  const TimeMs now = env_->Now();
  for (const auto& [name, ids] : by_launcher) {
    Launcher* engine = LauncherFor(name);
    std::vector<Plan> plans;
    for (const std::string& id : ids) plans.push_back(engine_runs_.at(id));
    std::vector<Result<EngineReport>> reports = ObserveWith(engine, plans);
    for (size_t i = 0; i < ids.size(); ++i) {
      const std::string& id = ids[i];
      const Plan& plan = plans[i];
      const Result<EngineReport>& r = reports[i];
      if (!engine_runs_.count(id)) continue;
      if (!r.ok()) {
        unanswered = id + ": " + name + " cannot say how its drone is (" + r.status().message() +
                     "); asked again";
        continue;
      }
      if (r->state == EngineReport::State::kUnknown && now - engine_since_[id] < kEngineSettleMs &&
          StartUnsettled(env_, plan))
        continue;  // asked to start it, and its answer is not settled yet
      switch (r->state) {
        case EngineReport::State::kEnded:
          if (Status s = EngineEnded(id, r->exit); !s.ok()) return s;
          break;
        case EngineReport::State::kUnknown: {
          Say(id + ": " + name + " knows no drone " + (r->name.empty() ? id : r->name) +
              " and it left no end: lost");
          UnwatchRun(id);
          if (Status s = Dispatch(SupervisorGone{id, env_->Now()}); !s.ok()) return s;
          break;
        }
        case EngineReport::State::kPending:
        case EngineReport::State::kRunning:
          if (kill_pending_.count(id) && engine->Cancel(plan).ok()) kill_pending_.erase(id);
          ScanOps(id);
          break;
      }
    }
  }
  // Said once while it lasts, not at every look.
  if (unanswered != engine_said_ && !unanswered.empty()) Say(unanswered);
  engine_said_ = unanswered;
  return Status::Ok();
}

Result<std::set<std::string>> Daemon::CollectEngineEnds() {
  // The engine-run missions of running/ whose drone has not been seen ending, by launcher.
  std::map<std::string, std::vector<std::pair<std::string, Plan>>> by_launcher;
  Result<std::vector<std::string>> ids = env_->ListDir(layout_.StateDir(Phase::kRunning));
  if (!ids.ok()) return ids.status();
  for (const std::string& id : *ids) {
    if (id.empty() || id[0] == '.') continue;
    if (env_->Exists(layout_.RunDir(id) + "/exit.json")) continue;
    Result<std::string> text =
        env_->ReadFile(layout_.MissionDir(Phase::kRunning, id) + "/plan.json", 1 << 20);
    if (!text.ok()) continue;
    Result<json::Value> doc = json::Parse(*text);
    Result<Plan> plan = doc.ok() ? Plan::FromJson(*doc) : Result<Plan>(doc.status());
    if (!plan.ok() || plan->launcher == "direct") continue;
    // Only an attempt whose launch key was taken may have reached its engine.
    if (!env_->Exists(layout_.LaunchKey(id, plan->attempt))) continue;
    by_launcher[plan->launcher].emplace_back(id, *plan);
  }
  std::set<std::string> alive;
  for (const auto& [name, missions] : by_launcher) {
    Launcher* engine = LauncherFor(name);
    std::vector<Plan> plans;
    for (const auto& m : missions) plans.push_back(m.second);
    std::vector<Result<EngineReport>> reports = ObserveWith(engine, plans);
    for (size_t i = 0; i < missions.size(); ++i) {
      const auto& [id, plan] = missions[i];
      const Result<EngineReport>& r = reports[i];
      const std::string run = layout_.RunDir(id);
      if (!r.ok()) {
        Say(id + ": " + name + " cannot say how its drone is (" + r.status().message() +
            "); taken as running, asked again");
      } else if (r->state == EngineReport::State::kEnded) {
        Status s = env_->WriteFileAtomic(run, "exit.json", json::WritePretty(r->exit.ToJson()));
        if (!s.ok()) return s;
        Say(id + ": ended under " + name + " while hangard was down (" + r->detail + ")");
        continue;
      } else if (r->state == EngineReport::State::kUnknown && !StartUnsettled(env_, plan)) {
        continue;  // started and now known nowhere, or never asked to start: recovery says lost
      }
      // Running, or the engine cannot say, or a start not settled (asked, but no answer kept: a
      // crash during the engine's tool): asked again; lost only once kEngineSettleMs have passed.
      alive.insert(run);
      engine_runs_[id] = plan;
      engine_since_[id] = env_->Now();
    }
  }
  return alive;
}

void Daemon::TakeSettled(TimeMs now) {
  for (auto it = created_open_.begin(); it != created_open_.end();) {
    const auto& [control, name] = *it;
    Result<Env::FileInfo> f =
        env_->Lstat((control ? layout_.ControlNew() : layout_.IncomingNew()) + "/" + name);
    if (f.ok() && f->modified + kOpSettleMs > now && f->modified <= now) {
      ++it;  // still being written, perhaps: its close will say so
      continue;
    }
    if (f.ok()) (control ? pending_controls_ : pending_names_).push_back(name);
    it = created_open_.erase(it);
  }
}

Status Daemon::ReadInotify(bool* overflow) {
  alignas(struct inotify_event) char buf[64 * 1024];
  std::vector<std::string> names, controls, exits;
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
      if (ev->wd == wd_incoming_ || ev->wd == wd_control_) {
        const bool control = ev->wd == wd_control_;
        if (ev->mask & IN_CREATE) {
          // A regular file created in place is taken when it is closed; one linked into place
          // (link(2), the other maildir way) and anything that is no regular file at once. A
          // link whose first name was unlinked before this look has one link too, and no close
          // will come: TakeSettled takes whatever of these is left alone long enough.
          const std::string dir = control ? layout_.ControlNew() : layout_.IncomingNew();
          Result<Env::FileInfo> f = env_->Lstat(dir + "/" + name);
          if (f.ok() && f->regular && f->links < 2) {
            created_open_.insert({control, name});
            continue;
          }
        }
        created_open_.erase({control, name});
        (control ? controls : names).push_back(name);
      } else if (auto it = run_watch_.find(ev->wd);
                 it != run_watch_.end() && (name == "exit.json" || name == "lock")) {
        exits.push_back(it->second);
      } else if (auto o = ops_watch_.find(ev->wd); o != ops_watch_.end()) {
        if (std::string req = OpRequestName(name); !req.empty())
          pending_ops_.emplace_back(o->second, std::move(req));
      }
    }
  }
  pending_names_.insert(pending_names_.end(), names.begin(), names.end());
  pending_controls_.insert(pending_controls_.end(), controls.begin(), controls.end());
  for (const std::string& id : exits) {
    Status s = CheckExit(id);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status Daemon::Run() {
  for (;;) {
    if (watchdog_.Due(MonotonicUs())) SdNotify("WATCHDOG=1");
    struct pollfd fds[3] = {
        {inotify_fd_, POLLIN, 0}, {signal_fd_, POLLIN, 0}, {pool_->ready_fd(), POLLIN, 0}};
    const bool backlog = !pending_names_.empty() || !pending_controls_.empty();
    int n = poll(fds, 3, backlog ? 0 : !exit_recheck_.empty() ? 10 : 1000);
    if (n < 0 && errno != EINTR) return Status::Errno("poll", errno);
    bool quit = false;
    Status s =
        Turn(fds[1].revents & POLLIN, fds[0].revents & POLLIN, fds[2].revents & POLLIN, &quit);
    if (quit) return stopped_.empty() ? s : Status::Ok();  // s: hangard.json's last write
    // A failure outside a decision (a scan that cannot list, a notify record): the same stop.
    if (!s.ok()) StopWork(s);
  }
}

Status Daemon::Turn(bool signals, bool events, bool observations, bool* quit) {
  if (signals) {
    struct signalfd_siginfo si {};
    (void)!read(signal_fd_, &si, sizeof si);
    if (si.ssi_signo == SIGHUP) {
      if (!stopped_.empty()) {
        Say("SIGHUP: the work is stopped (" + stopped_ +
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
  if (events) {
    bool overflow = false;
    Status s = ReadInotify(&overflow);
    if (s.ok() && overflow) {
      Say("inotify queue overflowed: rescanning the spool");
      s = ScanAll();
    }
    if (!s.ok()) return s;
  }
  if (observations) {
    for (Signal& sig : pool_->Drain()) {
      Status s = Dispatch(std::move(sig));
      if (!s.ok()) return s;
    }
  }
  const TimeMs now = env_->Now();
  if (stopped_.empty() && !intake_paused_.empty() && intake_retry_.Due(now)) RetryIntake();
  TakeSettled(now);
  if (Status s = TakeOps(); !s.ok()) return s;
  if (Status s = TakePending(kTakePerTurn); !s.ok()) return s;
  if (Status s = RecheckExits(); !s.ok()) return s;
  // The periodic checks (daemon/periodic.h: a wall clock stepped back stalls none of them).
  if (supervisor_check_.Due(now)) {
    Status s = CheckSupervisors();
    if (!s.ok()) return s;
  }
  if (!engine_runs_.empty() && stopped_.empty() && engine_check_.Due(now)) {
    Status s = CheckEngines();
    if (!s.ok()) return s;
  }
  if (storage_full_ && storage_check_.Due(now)) {
    if (SpaceReturned()) {
      *quit = true;
      restart_ = true;
      return Status::Ok();
    }
  }
  if (!stopped_.empty()) return Status::Ok();  // no checkpoint, no delivery: nothing is trusted
  Checkpoint();
  if (notify_retry_.Due(now)) {
    Status s = outbox_.Retry();
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace hangar
