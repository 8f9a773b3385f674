// Performing the kernel's actions, in order: one method per action type, chosen by std::visit so
// an action type hangard does not perform is a compile error, not an act silently skipped.
#include <signal.h>

#include <algorithm>
#include <set>
#include <utility>

#include "daemon/daemon.h"
#include "launch/direct_launcher.h"
#include "launch/sandbox_command.h"
#include "shell/observer.h"
#include "shell/op_files.h"
#include "shell/op_handler.h"
#include "shell/purge.h"
#include "shell/retry.h"
#include "shell/scan.h"
#include "shell/transitions.h"

namespace hangar {

std::vector<std::vector<const Intake*>> Daemon::IntakeRuns(
    const std::vector<const Intake*>& ins) const {
  std::vector<std::vector<const Intake*>> runs;
  std::set<std::string> tmps;  // the run's STATE/ID
  for (const Intake* in : ins) {
    if (runs.empty() || !tmps.insert(layout_.StateDir(in->to) + "/" + in->id).second) {
      runs.emplace_back();
      tmps = {layout_.StateDir(in->to) + "/" + in->id};
    }
    runs.back().push_back(in);
  }
  return runs;
}

Status Daemon::FinishIntakeRun(const std::vector<const Intake*>& run, std::vector<Status>* full,
                               std::deque<Signal>* undone, std::set<std::string>* forgotten,
                               Status* no_space, bool launching) {
  // A launch out of queued/ fsyncs queued/ in its first wait: the intakes' last fsync of it
  // waits there too (shell/transitions.h PerformIntakes, UNSYNCED).
  Status s = launching ? FinishIntakes(env_, layout_, run, full, layout_.StateDir(Phase::kQueued),
                                       &intakes_unsynced_)
                       : FinishIntakes(env_, layout_, run, full);
  if (!s.ok()) return s;
  for (size_t i = 0; i < run.size(); ++i) {
    Status why = Status::Ok();
    if (Status s = IntakeDone(*run[i], (*full)[i], undone, &why); !s.ok()) return s;
    if (!why.ok()) {
      forgotten->insert(run[i]->id);
      *no_space = why;
    }
  }
  return Status::Ok();
}

Status Daemon::UndoSaying(const Intake& in) {
  intake_begun_.erase(in.id);  // its launch begun at intake withdrawn first: nothing of it runs
  Status u = UndoIntake(env_, layout_, in);
  if (!u.ok() && u.code() != Code::kNotFound)
    Say("the intake of " + in.id + " is not wholly undone (" + u.message() +
            "); the next start finishes it",
        Priority::kErr);
  return u;
}

Status Daemon::IntakeDone(const Intake& in, Status s, std::deque<Signal>* undone, Status* why) {
  if (s.ok()) {
    if (in.to == Phase::kHold && in.notify_dir)
      outbox_.DeliverHold(in.id, *in.notify_dir, in.files.at("gate1.json"));
    if (std::string line = work_.ResumeIntake(in.id); !line.empty()) {
      Say(line);
      UpdatePresence();
      // Every drop that waited meanwhile.
      Result<std::vector<std::string>> names = Waiting(env_, layout_.IncomingNew());
      if (!names.ok()) return names.status();
      drops_.Add(false, *names);
    }
    return s;
  }
  if (!NoSpace(s)) return s;
  // NotFound: in place after all, but not known to be durable.
  if (UndoSaying(in).code() == Code::kNotFound) return s;
  *why = s;
  undone->push_back(IntakeFailed{in.name, in.id, s.message(), env_->Now()});
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
    Status operator()(const Purge& x) const {
      std::vector<std::string> said;
      Status s = PerformPurge(d->env_, d->layout_, x, &said);
      for (const std::string& line : said) d->Say(line, Priority::kWarning);
      return s;
    }
    Status operator()(const ConsumeControl& x) const { return d->PerformConsumeAction(x); }
    Status operator()(const Warm& x) const {
      // Reads only: what it finds, or why it could not, is the kernel's to judge (Warmed).
      for (const std::string& id : x.ids)
        follow->push_back(ReadWarmed(d->env_, d->layout_, d->setup_.home, id, d->env_->Now()));
      return Status::Ok();
    }
    Status operator()(const WriteMemory& x) const {
      Status s = PerformWriteMemory(d->env_, d->layout_, x);
      if (s.code() != Code::kExists) return s;
      d->Say(s.message());  // said, not a stop: a stop would take the request again, and again
      return Status::Ok();
    }
    // Commit performs these itself: the records before any act, an intake with its undo.
    Status operator()(const Record&) const {
      return Status::Invalid("a Record reaches Perform: Commit appends every record first");
    }
    Status operator()(const Intake& x) const {
      return Status::Invalid("the intake of " + x.id + " reaches Perform: Commit performs it");
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
  const Plan* plan = engines_.PlanOf(x.id);
  Launcher* engine = plan ? engines_.For(plan->launcher) : nullptr;
  Status s = engine ? engine->Cancel(*plan) : SignalSupervisor(layout_.RunDir(x.id), SIGTERM);
  if (!s.ok()) {
    Say(x.id + ": " + s.message() +
        (engine ? " (tried again at each look at its engine)"
                : " (tried again at each supervisor check)"));
    kill_pending_.insert(x.id);
  }
  return Status::Ok();
}

namespace {

// A return to deliver to its mission's notify.dir.
bool Notifies(const Move& x) {
  return x.notify_dir && x.to == Phase::kReturned && x.files.count("return.json");
}

}  // namespace

Status Daemon::PerformMoveAction(const Move& x) {
  // Its files written beside the batch's records (BeginReturns): their status, the rename left.
  auto begun = returns_written_.find(&x);
  const bool written = begun != returns_written_.end();
  if (written && !begun->second.ok()) return begun->second;
  if (renamed_early_.count(&x)) return Status::Ok();  // renamed before a launch
  if (rename_later_.count(&x)) return RenameUnsynced(x);
  if (x.from == Phase::kRunning) UnwatchRun(x.id);
  const bool notify = Notifies(x);
  // The pending record is written before the move, so a crash in between still delivers later.
  Status s = notify ? outbox_.Record(x.id, *x.notify_dir, "pending delivery") : Status::Ok();
  if (s.ok()) s = PerformMove(env_, layout_, x, written);
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
  Say("control " + x.name + " could not be kept in control/bad (" + s.message() + "); removed",
      Priority::kWarning);
  return env_->Remove(layout_.ControlNew() + "/" + x.name);
}

Status Daemon::SyncIntakes() {
  return env_->SyncDirs(std::exchange(intakes_unsynced_, {}), "");
}

Status Daemon::RenameBeforeLaunch(const std::vector<const Action*>& left, size_t from) {
  std::set<std::string> named;  // missions an act from FROM on names before the one looked at
  for (size_t j = from; j < left.size(); ++j) {
    const Action& a = *left[j];
    if (std::holds_alternative<Log>(a)) continue;  // a log line names, it does not act
    const auto* mv = std::get_if<Move>(&a);
    auto begun = mv ? returns_written_.find(mv) : returns_written_.end();
    if (begun != returns_written_.end() && begun->second.ok() && !renamed_early_.count(mv) &&
        !named.count(mv->id))
      if (Status s = RenameUnsynced(*mv); !s.ok()) return s;
    named.insert(ActId(a));
  }
  return Status::Ok();
}

Status Daemon::RenameUnsynced(const Move& mv) {
  UnwatchRun(mv.id);
  const bool notify = Notifies(mv);
  if (notify)
    if (Status s = outbox_.Record(mv.id, *mv.notify_dir, "pending delivery"); !s.ok()) return s;
  Status s =
      env_->RenameLater(layout_.MissionDir(mv.from, mv.id), layout_.MissionDir(mv.to, mv.id));
  if (!s.ok()) return s;
  renamed_early_.insert(&mv);
  returns_unsynced_ = true;
  if (notify) undelivered_.push_back(&mv);
  return Status::Ok();
}

Status Daemon::SyncReturns() {
  if (returns_unsynced_) {
    Status s =
        env_->SyncDirs({layout_.StateDir(Phase::kReturned)}, layout_.StateDir(Phase::kRunning));
    if (!s.ok()) return s;
    returns_unsynced_ = false;
  }
  return DeliverReturns();
}

Status Daemon::DeliverReturns() {
  if (returns_unsynced_) return Status::Ok();
  for (const Move* mv : std::exchange(undelivered_, {}))
    if (Status s = outbox_.Deliver(mv->id, *mv->notify_dir, mv->files.at("return.json")); !s.ok())
      return s;
  return Status::Ok();
}

std::string Daemon::ActId(const Action& a) {
  return std::visit(
      [](const auto& x) -> std::string {
        if constexpr (requires { x.id; }) return x.id;
        return "";
      },
      a);
}

std::vector<const Launch*> Daemon::EarlyLaunches(const std::vector<Action>& acts) const {
  std::vector<const Launch*> r;
  std::set<std::string> named;  // missions an act before names
  for (const Action& a : acts) {
    if (auto* x = std::get_if<Launch>(&a); x && !named.count(x->id)) r.push_back(x);
    named.insert(ActId(a));
  }
  return r;
}

std::unique_ptr<Launcher::Begun> Daemon::BeginDirect(const Launch& x, const std::string& run_now) {
  if (x.plan.launcher != "direct") return nullptr;
  Launcher* launcher = engines_.For(x.plan.launcher);
  return launcher
             ? launcher->Begin(
                   x.plan, layout_.MissionDir(Phase::kRunning, x.id) + "/plan.json", x.plan_sha256,
                   x.plan_text,
                   run_now.empty() ? layout_.MissionDir(Phase::kQueued, x.id) + "/run" : run_now)
             : nullptr;
}

std::map<std::string, const Launch*> Daemon::IntakeLaunches(
    const std::vector<Action>& acts, const std::vector<const Intake*>& run) const {
  std::set<std::string> taken;  // the run's intakes into queued/ whose mission no act named since
  for (const Intake* in : run)
    if (in->to == Phase::kQueued) taken.insert(in->id);
  std::map<std::string, const Launch*> r;
  std::set<std::string> seen;  // intakes of the run met so far
  for (const Action& a : acts) {
    const std::string id = ActId(a);
    if (id.empty() || !taken.count(id)) continue;
    if (std::holds_alternative<Intake>(a) && seen.insert(id).second) continue;
    if (auto* x = std::get_if<Launch>(&a); x && seen.count(id) && x->plan.launcher == "direct" &&
                                           RunRelative(x->plan, x->plan.last_message).empty())
      r[id] = x;
    taken.erase(id);  // the first act after its intake decides
  }
  return r;
}

void Daemon::BeginAtIntake(const Intake& in, const Launch& x) {
  Result<std::string> run = PlaceLaunchAtIntake(env_, layout_, in, x);
  if (!run.ok()) return;  // BeginLaunches meets it after the records, as for any launch
  if (std::unique_ptr<Launcher::Begun> b = BeginDirect(x, *run)) intake_begun_[x.id] = std::move(b);
}

void Daemon::BeginEarly(const std::vector<const Launch*>& ls) {
  std::vector<std::unique_ptr<Launcher::Begun>> begun(ls.size());
  LaunchesBegun b = BeginLaunches(env_, layout_, ls, env_->Now(), {},
                                  [&](size_t i) { begun[i] = BeginDirect(*ls[i]); });
  // Each finished on its own from here: one the spool stopped before is not finished either.
  StopAfterCut(ls, &b);
  for (size_t i = 0; i < ls.size(); ++i)
    early_[ls[i]] = Early{std::move(b.r[i]), std::move(begun[i])};
}

Result<std::vector<bool>> Daemon::KeysBacked(const std::vector<KeySeq>& keys) const {
  std::vector<bool> r(keys.size(), false);
  // An entry this start caught up was never acted on (the move waits for its anchor line): its
  // key backs no launch either, and the mission is decided again, as it would have been had the
  // key come after the entry.
  const int64_t caught = ledger_.caught_up_from();
  std::set<int64_t> seqs;
  for (const KeySeq& k : keys)
    if (caught == 0 || k.seq < caught) seqs.insert(k.seq);
  Result<std::map<int64_t, ledger::Entry>> at = ledger_.EntriesAt(seqs);
  if (!at.ok()) return at.status();
  for (size_t i = 0; i < keys.size(); ++i) {
    auto e = at->find(keys[i].seq);
    if (e == at->end()) continue;
    const json::Value& body = e->second.body;
    const json::Value* named = body.is_object() ? body.find("key") : nullptr;
    r[i] = e->second.kind == "mission.launched" && named && named->is_string() &&
           named->as_string() == keys[i].key;
  }
  return r;
}

std::vector<LaunchPrep> Daemon::PrepareBegun(const std::vector<const Launch*>& ls,
                                             std::vector<std::unique_ptr<Launcher::Begun>>* begun,
                                             std::vector<char>* gone) {
  begun->clear();
  begun->resize(ls.size());
  gone->assign(ls.size(), 0);
  std::vector<LaunchPrep> r(ls.size());
  // Those begun beside the records, and the others (their indexes in LS).
  std::vector<const Launch*> fresh, early;
  std::vector<size_t> fresh_at, early_at;
  LaunchesBegun early_begun;
  for (size_t i = 0; i < ls.size(); ++i) {
    if (auto it = early_.find(ls[i]); it != early_.end()) {
      early.push_back(ls[i]);
      early_at.push_back(i);
      early_begun.r.push_back(std::move(it->second.prep));
      (*begun)[i] = std::move(it->second.begun);
      early_.erase(it);
    } else {
      fresh.push_back(ls[i]);
      fresh_at.push_back(i);
    }
  }
  early_begun.cut = early.size();
  auto made = [&](size_t j) {
    auto at_intake = intake_begun_.find(fresh[j]->id);
    if (at_intake == intake_begun_.end()) {
      (*begun)[fresh_at[j]] = BeginDirect(*fresh[j]);
      return;
    }
    (*begun)[fresh_at[j]] = std::move(at_intake->second);
    intake_begun_.erase(at_intake);
  };
  // A launch begun is told to go once moved, beside the closing sync (FinishLaunches, MOVED).
  auto go = [&](size_t i) {
    if (!(*begun)[i]) return;
    Go(*ls[i], std::move((*begun)[i]));
    (*gone)[i] = 1;
  };
  // Returns renamed without a sync (RenameUnsynced): returned/ in the first wait (of a launch
  // prepared whole; of one begun beside the records, the closing sync's first), running/ in the
  // closing sync, after it.
  std::vector<std::string> first = std::exchange(intakes_unsynced_, {}), returned;
  const bool returns = returns_unsynced_;
  if (returns) returned.push_back(layout_.StateDir(Phase::kReturned));
  if (!fresh.empty()) {
    first.insert(first.end(), returned.begin(), returned.end());
    returned.clear();
    std::vector<LaunchPrep> p = PrepareLaunches(env_, layout_, fresh, env_->Now(), first, made,
                                                [&](size_t j) { go(fresh_at[j]); });
    for (size_t j = 0; j < p.size(); ++j) {
      // None goes further than the launch the spool stopped.
      if (!p[j].storage.ok())
        for (LaunchPrep& e : early_begun.r)
          if (e.storage.ok()) e.storage = NotFinished(fresh[j]->id, p[j].error, &e.error);
      r[fresh_at[j]] = std::move(p[j]);
    }
    first.clear();  // synced in that first wait
  }
  if (!early.empty()) {
    std::vector<LaunchPrep> p = FinishLaunches(
        env_, layout_, early, std::move(early_begun), first, [&](size_t j) { go(early_at[j]); },
        returned);
    for (size_t j = 0; j < p.size(); ++j) r[early_at[j]] = std::move(p[j]);
  }
  if (returns && std::any_of(r.begin(), r.end(), [](const LaunchPrep& p) { return p.ok; }))
    returns_unsynced_ = false;
  return r;
}

Status Daemon::PerformLaunch(const Launch& l, std::deque<Signal>* follow) {
  std::vector<std::unique_ptr<Launcher::Begun>> begun;
  std::vector<char> gone;
  std::vector<LaunchPrep> prep = PrepareBegun({&l}, &begun, &gone);
  return LaunchPrepared(l, std::move(prep.front()), follow, std::move(begun.front()), gone.front());
}

Status Daemon::PerformLaunches(const std::vector<const Action*>& run, std::deque<Signal>* follow) {
  std::vector<const Launch*> ls;
  for (const Action* a : run)
    if (auto* x = std::get_if<Launch>(a)) ls.push_back(x);
  std::vector<std::unique_ptr<Launcher::Begun>> begun;
  std::vector<char> gone;
  std::vector<LaunchPrep> preps = PrepareBegun(ls, &begun, &gone);
  // Then each act in the run's order, a launch from where its preparation left it. A stop of the
  // work withdraws the launches begun and not reached (their Begun dropped).
  size_t i = 0;
  for (const Action* a : run) {
    const Launch* x = std::get_if<Launch>(a);
    Status s = Status::Ok();
    if (x) {
      s = LaunchPrepared(*x, std::move(preps[i]), follow, std::move(begun[i]), gone[i]);
      ++i;
    } else {
      s = Perform(*a, follow);
    }
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status Daemon::LaunchPrepared(const Launch& l, LaunchPrep prep, std::deque<Signal>* follow,
                              std::unique_ptr<Launcher::Begun> begun, bool gone) {
  if (!prep.storage.ok()) return prep.storage;
  if (!prep.ok) {
    follow->push_back(
        LaunchDone{l.id, false, prep.key_existed, prep.in_running, prep.error, env_->Now()});
    return Status::Ok();
  }
  if (gone) return Status::Ok();  // told to go when moved (PrepareBegun)
  const bool engine = l.plan.launcher != "direct";
  Launcher* launcher = engines_.For(l.plan.launcher);
  if (!engine && launcher) {
    Go(l, std::move(begun));
    return Status::Ok();
  }
  watches_->Watch(l.id, env_->Now());  // before the drone starts: its exit.json cannot slip past
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
    engines_.Track(l.id, l.plan, env_->Now());
  }
  follow->push_back(LaunchDone{l.id, s.ok(), false, true, s.ok() ? "" : s.message(), env_->Now()});
  return Status::Ok();
}

void Daemon::Go(const Launch& l, std::unique_ptr<Launcher::Begun> begun) {
  Launcher* launcher = engines_.For(l.plan.launcher);
  watches_->Watch(l.id, env_->Now());  // before the drone starts: its exit.json cannot slip past
  // hangar-shim is started on the launch pool (daemon.h, LAUNCHES OFF THE LOOP).
  launching_[l.id] = l.attempt;
  // (std::function copies its callable: the Begun goes in a shared_ptr, taken out once.)
  launches_->Submit([launcher, plan = l.plan,
                     file = layout_.MissionDir(Phase::kRunning, l.id) + "/plan.json",
                     sha = l.plan_sha256, id = l.id, attempt = l.attempt, run = layout_.RunDir(l.id),
                     begun = std::make_shared<std::unique_ptr<Launcher::Begun>>(
                         std::move(begun))]() -> LaunchStarted {
    LaunchStarted r{id, attempt, launcher->StartBegun(plan, file, sha, std::move(*begun)), ""};
    if (r.status.code() == Code::kUnavailable && SupervisorAlive(run)) {
      r.note =
          id + ": " + r.status.message() + ", but its supervisor holds the lock: taken as launched";
      r.status = Status::Ok();
    }
    return r;
  });
}

Status Daemon::Launched(LaunchStarted r) {
  auto it = launching_.find(r.id);
  if (it == launching_.end() || it->second != r.attempt) {
    Say(r.id + ": the report of launch attempt " + std::to_string(r.attempt) +
        " came after that attempt was over; dropped (" +
        (r.status.ok() ? std::string("ok") : r.status.message()) + ")");
    return Status::Ok();
  }
  launching_.erase(it);
  if (!r.note.empty()) Say(r.note);
  if (!r.status.ok()) UnwatchRun(r.id);
  return Dispatch(LaunchDone{r.id, r.status.ok(), false, true,
                             r.status.ok() ? "" : r.status.message(), env_->Now()});
}

Status Daemon::SettleLaunches() {
  if (launching_.empty()) return Status::Ok();
  Say("waiting for " + std::to_string(launching_.size()) + " launch" +
      (launching_.size() == 1 ? "" : "es") + " in flight");
  // A launch that failed frees its slot, which may start the next: until none is in flight.
  while (!launching_.empty()) {
    launches_->Wait();
    std::vector<LaunchStarted> done = launches_->Drain();
    if (done.empty()) break;  // none in flight after all: nothing more will come
    if (Status s = DecideLaunched(std::move(done)); !s.ok()) return s;
  }
  return Status::Ok();
}

Status Daemon::DecideLaunched(std::vector<LaunchStarted> done) {
  BeginBatch();  // one commit for all (daemon.h, THE BATCH)
  for (LaunchStarted& r : done)
    if (Status s = Launched(std::move(r)); !s.ok()) {
      (void)EndBatch();
      return s;
    }
  return EndBatch();
}

Status Daemon::PerformRunOp(const RunOp& r, std::deque<Signal>* follow) {
  const std::string ops = layout_.MissionOps(r.id);
  Status s = env_->MakeDir(ops);
  if (!s.ok() && s.code() != Code::kExists) return s;
  if (s = env_->WriteFilesAtomic(ops, Env::Files(r.files.begin(), r.files.end())); !s.ok())
    return s;
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
  Env::Files before;
  for (const auto& [name, text] : a.files)
    if (name != a.name + ".result.json") before.emplace_back(name, text);
  if (s = env_->WriteFilesAtomic(ops, before); !s.ok()) return s;
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
    Say(a.id + ": the answer to ops/" + a.name + ".json stays in the spool only: " + r.message(),
        Priority::kWarning);
  return Status::Ok();
}

}  // namespace hangar
