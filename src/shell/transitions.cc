#include "shell/transitions.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <functional>
#include <thread>

#include "base/json.h"
#include "base/parallel.h"
#include "base/sha256.h"
#include "shell/retry.h"

namespace hangar {

namespace {

std::string TmpName(const std::string& id) {
  return "." + id + ".tmp";
}

bool IsIntakeTmp(const std::string& n) {
  return n.size() >= 6 && n[0] == '.' && n.compare(n.size() - 4, 4, ".tmp") == 0;
}

// An unfinished intake's TMP (STATE/.ID.tmp, its drop already out) removed, with its run/ (a
// launch begun at intake, PlaceLaunchAtIntake) and then that launch's room, unless a mission ID
// stands in a state directory (the room would be its). Every step tried; the first failure.
Status RemoveUnfinished(Env* env, const Layout& l, const std::string& tmp, const std::string& id) {
  Status first;
  auto keep = [&first](Status s) {
    if (!s.ok() && first.ok()) first = std::move(s);
  };
  bool launched = false;
  if (Result<std::vector<Env::DirEntry>> left = env->ListEntries(tmp); left.ok()) {
    for (const Env::DirEntry& e : *left) {
      launched = launched || e.name == "run";
      if (!e.dir) {
        keep(env->Remove(tmp + "/" + e.name));
        continue;
      }
      // The supervisor of a launch withdrawn a moment ago (or of a hangard that just ended) may
      // still be making its files there (lock, stdout, stderr) on its way out: the tree is tried
      // again for up to a second. Once run/ is gone it can make none (openat in a removed
      // directory fails).
      Status gone = env->RemoveTree(tmp + "/" + e.name);
      for (int i = 0; i < 100 && gone.sys_errno() == ENOTEMPTY; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        gone = env->RemoveTree(tmp + "/" + e.name);
      }
      keep(gone);
    }
  } else {
    keep(left.status());
  }
  keep(env->Remove(tmp));
  if (launched && env->Exists(l.Room(id)) &&
      std::none_of(kAllPhases.begin(), kAllPhases.end(),
                   [&](Phase p) { return env->Exists(l.MissionDir(p, id)); }))
    keep(env->RemoveTree(l.Room(id)));
  return first;
}

// The mission's run/ in DIR, with the prompt (BeginLaunches' and PlaceLaunchAtIntake's).
Status MakeRun(Env* env, const Launch& x, const std::string& dir) {
  Status s = env->MakeDirVisible(dir + "/run");
  if (s.ok() || s.code() == Code::kExists)
    s = env->WriteFileVisible(dir + "/run", "prompt.md", x.prompt);
  return s;
}

// The mission's room, what is not there yet of it: rooms/ID, ops/, the room_dirs, MISSION.md.
Status MakeRoom(Env* env, const Launch& x) {
  auto make = [&](const std::string& dir) {
    return env->Exists(dir) ? Status::Ok() : env->MakeDirVisible(dir);
  };
  Status s = make(x.plan.room);
  if (s.ok()) s = make(x.plan.room + "/ops");
  for (const std::string& d : x.plan.room_dirs)
    if (s.ok()) s = make(x.plan.room + "/" + d);
  if (s.ok() && x.plan.prompt_in_room)
    s = env->WriteFileVisible(x.plan.room, "MISSION.md", x.prompt);
  return s;
}

}  // namespace

Result<std::string> PlaceLaunchAtIntake(Env* env, const Layout& l, const Intake& in,
                                        const Launch& x) {
  const std::string tmp = l.StateDir(in.to) + "/" + TmpName(in.id);
  if (Status s = MakeRun(env, x, tmp); !s.ok()) return s;
  if (Status s = MakeRoom(env, x); !s.ok()) return s;
  return tmp + "/run";
}

Status PerformIntake(Env* env, const Layout& l, const Intake& in) {
  std::vector<Status> no_space;
  Status s = PerformIntakes(env, l, {&in}, &no_space);
  return s.ok() ? no_space.front() : s;
}

Status PerformIntakes(Env* env, const Layout& l, const std::vector<const Intake*>& ins,
                      std::vector<Status>* no_space, const std::string& later,
                      std::vector<std::string>* unsynced) {
  if (Status s = BeginIntakes(env, l, ins, no_space); !s.ok()) return s;
  return FinishIntakes(env, l, ins, no_space, later, unsynced);
}

namespace {

// Each intake's state directory and its STATE/.ID.tmp.
struct IntakeDirs {
  std::vector<std::string> dir, tmp;
  explicit IntakeDirs(const Layout& l, const std::vector<const Intake*>& ins)
      : dir(ins.size()), tmp(ins.size()) {
    for (size_t i = 0; i < ins.size(); ++i) {
      dir[i] = l.StateDir(ins[i]->to);
      tmp[i] = dir[i] + "/" + TmpName(ins[i]->id);
    }
  }
};

// One step's outcome S for intake I: a full disk takes that intake out of the rest (into
// *NO_SPACE, Ok returned); any other failure, returned, ends them all.
Status TakenOut(std::vector<Status>* no_space, size_t i, Status s) {
  if (s.ok() || !NoSpace(s)) return s;
  (*no_space)[i] = std::move(s);
  return Status::Ok();
}

// Each directory WHERE[i] of the intakes I still going (LIVE[i] Ok), once, in order.
std::vector<std::string> LiveDirs(const std::vector<Status>& live,
                                  const std::vector<std::string>& where) {
  std::vector<std::string> dirs;
  for (size_t i = 0; i < where.size(); ++i)
    if (live[i].ok() && std::find(dirs.begin(), dirs.end(), where[i]) == dirs.end())
      dirs.push_back(where[i]);
  return dirs;
}

}  // namespace

Status BeginIntakes(Env* env, const Layout& l, const std::vector<const Intake*>& ins,
                    std::vector<Status>* no_space, const std::function<void(size_t)>& made) {
  const size_t n = ins.size();
  no_space->assign(n, Status::Ok());
  const IntakeDirs d(l, ins);
  const std::vector<std::string>&dir = d.dir, &tmp = d.tmp;
  auto failed = [&](size_t i, Status s) { return TakenOut(no_space, i, std::move(s)); };
  auto live = [&](size_t i) { return (*no_space)[i].ok(); };
  auto live_dirs = [&](const std::vector<std::string>& where) {
    return LiveDirs(*no_space, where);
  };
  // One fsync of each of those directories, all at once, then of LAST. A failed fsync ends them
  // all, whatever its errno: what it covered is not known to be on the disk, and undoing one
  // intake would fsync incoming/new under another's unsynced move.
  auto sync = [&](const std::vector<std::string>& where, const std::string& last) {
    return env->SyncDirs(live_dirs(where), last);
  };
  auto each = [&](const std::function<Status(size_t)>& step) {
    for (size_t i = 0; i < n; ++i)
      if (live(i))
        if (Status s = failed(i, step(i)); !s.ok()) return s;
    return Status::Ok();
  };
  Status s = each([&](size_t i) { return env->MakeDirVisible(tmp[i]); });
  if (s.ok()) {
    // Steps 2 and 3 in one wait (WriteTogether): the state directories' fsyncs and every
    // intake's files, their data. Nothing between them needs an order: the drops move in after.
    Env::Together t;
    t.dirs = live_dirs(dir);
    std::vector<size_t> of;  // the intake of each entry of t.files
    for (size_t i = 0; i < n; ++i)
      if (live(i)) {
        t.files.push_back({tmp[i], Env::Files(ins[i]->files.begin(), ins[i]->files.end())});
        of.push_back(i);
      }
    // MADE beside that wait, on this thread (Env::Alongside): nothing of the wait needs it, nor
    // it the wait (a full disk there takes the intake out after both).
    Env::TogetherDone done;
    auto wait = [&] { done = env->WriteTogether(t); };
    if (made)
      env->Alongside(wait, [&] {
        for (size_t i = 0; i < n; ++i)
          if (live(i)) made(i);
      });
    else
      wait();
    s = done.dirs;
    for (size_t k = 0; k < of.size() && s.ok(); ++k) s = failed(of[k], done.files[k]);
  }
  if (!s.ok()) return s;
  std::vector<std::string> moved;  // the .ID.tmp a drop went into, until step 5 synced them
  s = each([&](size_t i) {
    const char* raw = ins[i]->to == Phase::kRejected ? "mission.raw" : "mission.json";
    Status r = env->RenameLater(l.IncomingNew() + "/" + ins[i]->name, tmp[i] + "/" + raw);
    if (r.ok()) moved.push_back(tmp[i]);
    return r;
  });
  if (s.ok()) s = sync(tmp, l.IncomingNew());
  if (!s.ok()) {
    // Stopped between the moves and their sync: the drops already moved are made durable where
    // they are, best effort, so that no later fsync of incoming/new (an undo, a recovery, anyone
    // dropping a file) makes a removal durable before its new name; the next start puts them back.
    if (!moved.empty()) (void)env->SyncDirs(moved, l.IncomingNew());
  }
  return s;
}

Status FinishIntakes(Env* env, const Layout& l, const std::vector<const Intake*>& ins,
                     std::vector<Status>* no_space, const std::string& later,
                     std::vector<std::string>* unsynced) {
  const IntakeDirs d(l, ins);
  for (size_t i = 0; i < ins.size(); ++i)
    if ((*no_space)[i].ok())
      if (Status s = TakenOut(no_space, i, env->RenameLater(d.tmp[i], d.dir[i] + "/" + ins[i]->id));
          !s.ok())
        return s;
  std::vector<std::string> dirs = LiveDirs(*no_space, d.dir);
  if (unsynced && !later.empty()) {
    auto it = std::find(dirs.begin(), dirs.end(), later);
    if (it != dirs.end()) {
      dirs.erase(it);
      unsynced->push_back(later);  // the caller's to sync, before anything relies on it
    }
  }
  return env->SyncDirs(dirs, "");
}

bool NoSpace(const Status& s) {
  return s.sys_errno() == ENOSPC || s.sys_errno() == EDQUOT;
}

Status UndoIntake(Env* env, const Layout& l, const Intake& in) {
  const std::string dir = l.StateDir(in.to);
  const std::string tmp = dir + "/" + TmpName(in.id);
  if (!env->Exists(tmp) && env->Exists(dir + "/" + in.id))
    return Status::NotFound("cannot undo the intake of " + in.id + ": it is done, in " + dir);
  Status first;
  auto keep = [&first](Status s) {
    if (!s.ok() && first.ok()) first = std::move(s);
  };
  for (const char* raw : {"mission.json", "mission.raw"}) {
    if (!env->Exists(tmp + "/" + raw)) continue;
    std::string back = in.name;
    Status s = env->RenameNoReplace(tmp + "/" + raw, l.IncomingNew() + "/" + back);
    for (int i = 1; s.code() == Code::kExists; i++) {  // a newer drop has that name: keep both
      back = in.name + ".recovered." + std::to_string(i);
      s = env->RenameNoReplace(tmp + "/" + raw, l.IncomingNew() + "/" + back);
    }
    keep(s);
  }
  if (!env->Exists(tmp)) return first;
  keep(RemoveUnfinished(env, l, tmp, in.id));
  return first;
}

Result<std::vector<std::string>> RecoverIntakes(Env* env, const Layout& l,
                                                const ReturnBacked& backed) {
  std::vector<std::string> done;
  // A batch of intakes cut between its drops' moves and their sync leaves several .ID.tmp whose
  // new names may not be durable yet: each is fsynced before any drop moves back, since a move back
  // fsyncs incoming/new, which would make another drop's removal durable before its new name.
  std::vector<std::string> unfinished;  // STATE/.ID.tmp; each state directory listed once
  for (Phase p : {Phase::kHold, Phase::kQueued, Phase::kDenied, Phase::kRejected}) {
    Result<std::vector<std::string>> names = env->ListDir(l.StateDir(p));
    if (!names.ok()) return names.status();
    for (const std::string& n : *names)
      if (IsIntakeTmp(n)) unfinished.push_back(l.StateDir(p) + "/" + n);
  }
  if (!unfinished.empty())
    if (Status s = env->SyncDirs(unfinished, ""); !s.ok()) return s;
  for (const std::string& tmp : unfinished) {
    const std::string n = tmp.substr(tmp.rfind('/') + 1);
    for (const char* raw : {"mission.json", "mission.raw"}) {
      if (!env->Exists(tmp + "/" + raw)) continue;
      // The drop's own name, from intake.json; a safe stand-in when that cannot be read.
      Result<std::string> intake = env->ReadFile(tmp + "/intake.json", 1 << 20);
      Result<json::Value> v =
          intake.ok() ? json::Parse(*intake) : Result<json::Value>(intake.status());
      const json::Value* name = v.ok() && v->is_object() ? v->find("name") : nullptr;
      std::string want = "recovered" + n;  // ".ID.tmp" -> "recovered.ID.tmp"
      if (name && name->is_string() && !name->as_string().empty() &&
          name->as_string().find('/') == std::string::npos && name->as_string()[0] != '.')
        want = name->as_string();
      std::string back = want;
      Status s = env->RenameNoReplace(tmp + "/" + raw, l.IncomingNew() + "/" + back);
      for (int i = 1; s.code() == Code::kExists; i++) {  // a newer drop has that name: keep both
        back = want + ".recovered." + std::to_string(i);
        s = env->RenameNoReplace(tmp + "/" + raw, l.IncomingNew() + "/" + back);
      }
      if (!s.ok()) return s;
      done.push_back("put " + back + " back into incoming/new from an unfinished intake");
    }
    // ".ID.tmp" -> "ID"
    if (Status s = RemoveUnfinished(env, l, tmp, n.substr(1, n.size() - 5)); !s.ok()) return s;
  }
  for (Phase p : {Phase::kHold, Phase::kQueued, Phase::kRunning}) {
    Result<std::vector<std::string>> ids = env->ListDir(l.StateDir(p));
    if (!ids.ok()) return ids.status();
    // One lstat per mission: on several threads for a deep queue (base/parallel.h).
    std::vector<char> returned(ids->size());
    SplitAcross(ids->size(), 2048, [&](size_t begin, size_t end, size_t) {
      for (size_t i = begin; i < end; ++i)
        returned[i] =
            (*ids)[i][0] != '.' && env->Exists(l.MissionDir(p, (*ids)[i]) + "/return.json");
    });
    for (size_t i = 0; i < ids->size(); ++i) {
      const std::string& id = (*ids)[i];
      if (!returned[i]) continue;
      if (p == Phase::kQueued) {
        Result<bool> retried = FinishRetry(env, l, id);
        if (!retried.ok()) return retried.status();
        if (*retried) {
          done.push_back("finished the retry of " + id + " (its last return kept in attempts/)");
          continue;
        }
      }
      if (p == Phase::kRunning) {  // begun before its entry was durable (BeginReturns)?
        const std::string file = l.MissionDir(p, id) + "/return.json";
        Result<std::string> text = env->ReadFile(file, size_t(256) << 20);  // with its manifest
        if (!text.ok()) return text.status();
        if (!backed(id, *text)) {
          if (Status s = env->Remove(file); !s.ok()) return s;
          done.push_back("removed running/" + id +
                         "/return.json, whose mission.returned entry is not on the ledger (a "
                         "crash before it was durable): its end is observed again");
          continue;
        }
      }
      Status s = env->RenameNoReplace(l.MissionDir(p, id), l.MissionDir(Phase::kReturned, id));
      if (!s.ok()) return s;
      done.push_back("finished moving " + id + " from " + std::string(PhaseName(p)) +
                     " to returned");
    }
  }
  return done;
}

Status PerformMove(Env* env, const Layout& l, const Move& mv, bool written) {
  const std::string from = l.MissionDir(mv.from, mv.id);
  if (!written)
    if (Status s = env->WriteFilesAtomic(from, Env::Files(mv.files.begin(), mv.files.end()));
        !s.ok())
      return s;
  return env->Rename(from, l.MissionDir(mv.to, mv.id));
}

bool BeginsEarly(const Move& mv) {
  return mv.from == Phase::kRunning && mv.to == Phase::kReturned && !mv.files.empty();
}

std::vector<Status> BeginReturns(Env* env, const Layout& l, const std::vector<const Move*>& moves) {
  std::vector<Env::DirFiles> batch;
  for (const Move* mv : moves)
    batch.push_back(
        {l.MissionDir(mv->from, mv->id), Env::Files(mv->files.begin(), mv->files.end())});
  std::vector<Status> r = env->WriteFilesDirsLater(batch);
  std::vector<std::string> dirs;
  for (size_t i = 0; i < r.size(); ++i)
    if (r[i].ok()) dirs.push_back(batch[i].dir);
  if (Status s = env->SyncDirs(dirs, ""); !s.ok())
    for (Status& each : r)
      if (each.ok()) each = s;
  return r;
}

namespace {

// A launch's closing sync, for the mission directories DIRS in running/: they, running/ and rooms/
// at once, then queued/ (the move's old directory after its new one).
Status SyncLaunched(Env* env, const Layout& l, std::vector<std::string> dirs) {
  dirs.push_back(l.StateDir(Phase::kRunning));
  dirs.push_back(l.rooms);
  return env->SyncDirs(dirs, l.StateDir(Phase::kQueued));
}

}  // namespace

Status SyncCutLaunches(Env* env, const Layout& l) {
  const std::string running = l.StateDir(Phase::kRunning);
  Result<std::vector<Env::DirEntry>> entries = env->ListEntries(running);
  if (!entries.ok()) return entries.status();
  std::vector<std::string> dirs;  // each directory (no file, no link: recovery says what they are)
  for (const Env::DirEntry& e : *entries)
    if (e.dir && e.name[0] != '.') dirs.push_back(running + "/" + e.name);
  // returned/ before running/: a return renamed without a sync for a launch's waits to make
  // durable (hangard's RenameUnsynced) has its new name made durable before its old one goes.
  if (Status s = env->SyncDirs({l.StateDir(Phase::kReturned)}, ""); !s.ok()) return s;
  return SyncLaunched(env, l, std::move(dirs));
}

namespace {

// Where a batch of launches stands between BeginLaunches and FinishLaunches.
struct LaunchSteps {
  std::vector<LaunchPrep>& r;
  size_t& cut;  // the first launch whose spool failed: none from it on goes further
  void Fail(size_t i, const Status& s) { r[i].error = s.message(); }
  void SpoolFail(size_t i, const Status& s) {
    r[i].storage = s;
    Fail(i, s);
    cut = std::min(cut, i);
  }
  bool Going(size_t i) const { return i < cut && r[i].error.empty(); }
};

}  // namespace

LaunchesBegun BeginLaunches(Env* env, const Layout& l, const std::vector<const Launch*>& launches,
                            TimeMs now, const std::vector<std::string>& sync_first,
                            const std::function<void(size_t)>& made) {
  const size_t n = launches.size();
  LaunchesBegun b;
  b.r.resize(n);
  b.cut = n;
  std::vector<LaunchPrep>& r = b.r;
  LaunchSteps step{r, b.cut};
  auto fail = [&](size_t i, const Status& s) { step.Fail(i, s); };
  auto spool_fail = [&](size_t i, const Status& s) { step.SpoolFail(i, s); };
  auto going = [&](size_t i) { return step.Going(i); };
  std::vector<std::string> queued(n), plan_sha(n), key(n), key_text(n), record(n);

  for (size_t i = 0; i < n; ++i) {
    const Launch& x = *launches[i];
    queued[i] = l.MissionDir(Phase::kQueued, x.id);
    r[i].dir = queued[i];
    plan_sha[i] = Sha256Hex(x.plan_text);
  }

  // The room becomes durable with launch.json, by the last sync: it keeps the drone's work after
  // the return. What the drone is given in it (the window's inbox, man/hangar-ops.5; the profile's
  // room_dirs; MISSION.md) and run/ with the prompt are made without fsyncs: a power loss ends the
  // drone, and what it may take back of them belongs to an attempt that comes back lost, made anew
  // by a retry (hangar-spool(5), THE RULES). run/ becomes durable with launch.json, in the same
  // directory, before the supervisor. Only what is not there yet is made (a retry's room is there,
  // with the attempt before's work): a call that made nothing is no call for a power loss to take
  // back (crash-sweep's model). A room or MISSION.md that fails is the mission's failure, and it
  // gets no key.
  std::vector<char> own_failure(n, 0);  // the mission's, not the spool's: its plan is written
  for (size_t i = 0; i < n; ++i) {
    if (!going(i)) continue;
    const Launch& x = *launches[i];
    if (Status s = MakeRoom(env, x); !s.ok()) {
      own_failure[i] = 1;
      fail(i, s);
    } else if (s = MakeRun(env, x, queued[i]); !s.ok()) {
      spool_fail(i, s);
    }
  }
  if (made)
    for (size_t i = 0; i < n; ++i)
      if (going(i)) made(i);

  // Every plan.json and gate2.json (a mission that failed too: they say what was tried), every
  // key and every launch.json, in one wait (WriteTogether): their data at once, keys/ with them.
  // launch.json goes into queued/ID with its plan, before the move, so that it needs no wait of
  // its own; it is a keyed file, written only once its key is created (a key left by a cut launch
  // ends this one lost, which then launched nothing): no launch.json stands without its key. The
  // names become durable with the move, by the closing sync of running/ID; a power loss before it
  // ends the launch as lost (or before the key, launches anew, and queued/ID's launch.json is
  // written again). The keys are durable before any move. When a file's write(2) fails no key is
  // taken (WriteTogether): the spool's failure stops every launch of the batch before its point of
  // no return, to be launched anew at the next start. A file's fsync or rename that fails is met
  // after the keys are made: its launch and those after it stop with their key, and end lost at
  // the next start.
  Env::Together t;
  t.dirs = sync_first;
  t.key_dir = l.Keys();
  std::vector<size_t> planned, keyed;
  for (size_t i = 0; i < n; ++i) {
    if (!going(i) && !own_failure[i]) continue;
    const Launch& x = *launches[i];
    t.files.push_back({queued[i], {{"plan.json", x.plan_text}, {"gate2.json", x.gate2_text}}});
    planned.push_back(i);
    if (!going(i)) continue;
    key[i] = LaunchKeyName(x.id, x.attempt);
    json::Object k;
    k["hangar"] = 1;
    k["id"] = x.id;
    k["attempt"] = x.attempt;
    k["plan_sha256"] = plan_sha[i];
    if (x.seq > 0) k["ledger_seq"] = x.seq;  // its mission.launched: a start drops a key unbacked
    k["time"] = FormatTime(now);
    key_text[i] = json::WritePretty(k);
    json::Object rec;
    rec["hangar"] = 1;
    rec["id"] = x.id;
    rec["attempt"] = x.attempt;
    rec["key"] = "keys/" + key[i];
    rec["launcher"] = x.plan.launcher;
    rec["plan_sha256"] = plan_sha[i];
    if (x.plan.workspace)
      rec["workspace"] =
          json::Object{{"git", x.plan.workspace->git}, {"commit", x.plan.workspace->commit}};
    rec["time"] = FormatTime(now);
    record[i] = json::WritePretty(rec);  // Env::Files holds views: the text lives here
    t.keyed.push_back({keyed.size(), {queued[i], {{"launch.json", record[i]}}}});
    keyed.push_back(i);
  }
  for (size_t i : keyed) t.keys.emplace_back(key[i], key_text[i]);
  Env::TogetherDone done = env->WriteTogether(t);
  if (!done.dirs.ok())  // the caller's intakes are not known to be durable: every launch stops
    for (size_t i = 0; i < n; ++i)
      if (r[i].storage.ok()) spool_fail(i, done.dirs);
  for (size_t j = 0; j < planned.size(); ++j)
    if (!done.files[j].ok()) spool_fail(planned[j], done.files[j]);
  for (size_t j = 0; j < keyed.size(); ++j) {
    const size_t i = keyed[j];
    if (done.keys[j].code() == Code::kExists) {
      r[i].key_existed = true;
      if (r[i].error.empty()) r[i].error = "keys/" + key[i];
    } else if (!done.keys[j].ok() && r[i].storage.ok()) {
      spool_fail(i, done.keys[j]);
    } else if (!done.keyed[j].ok() && r[i].storage.ok()) {
      spool_fail(i, done.keyed[j]);  // launch.json: written after its key, which stands
    }
  }
  return b;
}

std::vector<LaunchPrep> FinishLaunches(Env* env, const Layout& l,
                                       const std::vector<const Launch*>& launches,
                                       LaunchesBegun begun,
                                       const std::vector<std::string>& sync_first,
                                       const std::function<void(size_t)>& moved,
                                       const std::vector<std::string>& closing_first) {
  const size_t n = launches.size();
  std::vector<LaunchPrep> r = std::move(begun.r);
  size_t cut = begun.cut;
  LaunchSteps step{r, cut};
  auto spool_fail = [&](size_t i, const Status& s) { step.SpoolFail(i, s); };
  auto going = [&](size_t i) { return step.Going(i); };
  std::vector<std::string> queued(n), running(n);
  for (size_t i = 0; i < n; ++i) {
    queued[i] = l.MissionDir(Phase::kQueued, launches[i]->id);
    running[i] = l.MissionDir(Phase::kRunning, launches[i]->id);
  }
  // What the caller left unsynced since the begin (its intakes' state directories): durable
  // before any move, in a wait of its own.
  if (!sync_first.empty() && std::any_of(r.begin(), r.end(), [&](const LaunchPrep& p) {
        return p.storage.ok() && p.error.empty();
      }))
    if (Status s = env->SyncDirs(sync_first, ""); !s.ok())
      for (size_t i = 0; i < n; ++i)
        if (r[i].storage.ok()) spool_fail(i, s);

  // The key is durable before the move, the move and every name in the closing sync: the moves,
  // launch.json's names and the rooms are synced by one call, their directories at once; the
  // drones of those moved are told to go beside it (MOVED), a drone told only after it would
  // wait for two fsyncs more that keep nothing it needs (a power loss before them ends its attempt
  // lost either way: its key is durable). CLOSING_FIRST goes first in it, before running/.
  std::vector<size_t> renamed;
  for (size_t i = 0; i < n; ++i) {
    if (!going(i)) continue;
    if (Status s = env->RenameLater(queued[i], running[i]); !s.ok()) {
      spool_fail(i, s);
      continue;
    }
    r[i].dir = running[i];
    r[i].in_running = true;
    renamed.push_back(i);
  }
  std::vector<size_t> synced;
  for (size_t i : renamed)
    if (going(i)) synced.push_back(i);
  if (moved)
    for (size_t i : synced) moved(i);
  if (!synced.empty()) {
    std::vector<std::string> dirs;
    for (size_t i : synced) dirs.push_back(running[i]);
    Status s = closing_first.empty() ? Status::Ok() : env->SyncDirs(closing_first, "");
    if (s.ok()) s = SyncLaunched(env, l, dirs);  // the room is rooms/ID (Layout::Room)
    for (size_t i : synced) {
      if (s.ok())
        r[i].ok = true;
      else
        spool_fail(i, s);  // every one: the sync was theirs
    }
  }
  LaunchesBegun done{std::move(r), cut};
  StopAfterCut(launches, &done);
  return std::move(done.r);
}

Status NotFinished(const std::string& id, const std::string& error, std::string* said) {
  Status s =
      Status::Io("not finished: the spool failed for the launch of " + id + " (" + error + ")");
  *said = s.message();
  return s;
}

void StopAfterCut(const std::vector<const Launch*>& launches, LaunchesBegun* b) {
  for (size_t i = b->cut + 1; i < b->r.size(); ++i)
    if (!b->r[i].ok && b->r[i].error.empty())
      b->r[i].storage = NotFinished(launches[b->cut]->id, b->r[b->cut].error, &b->r[i].error);
}

std::vector<LaunchPrep> PrepareLaunches(Env* env, const Layout& l,
                                        const std::vector<const Launch*>& launches, TimeMs now,
                                        const std::vector<std::string>& sync_first,
                                        const std::function<void(size_t)>& made,
                                        const std::function<void(size_t)>& moved) {
  return FinishLaunches(env, l, launches, BeginLaunches(env, l, launches, now, sync_first, made),
                        {}, moved);
}

LaunchPrep PrepareLaunch(Env* env, const Layout& l, const Launch& launch, TimeMs now,
                         const std::vector<std::string>& sync_first) {
  return PrepareLaunches(env, l, {&launch}, now, sync_first).front();
}

Status PerformWriteMemory(Env* env, const Layout& l, const WriteMemory& w) {
  const std::string dir = l.MemoryOf(w.requester), name = Layout::MemoryName(w.version);
  if (Status s = env->MakeDir(l.Memory()); !s.ok() && s.code() != Code::kExists) return s;
  if (Status s = env->MakeDir(dir); !s.ok() && s.code() != Code::kExists) return s;
  Status s = env->CreateFileAtomic(dir, name, w.text, 0644);
  if (s.code() != Code::kExists) return s;
  Result<std::string> there = env->ReadFile(dir + "/" + name, w.text.size() + 1);
  if (there.ok() && *there == w.text) return Status::Ok();
  return Status::Exists(dir + "/" + name +
                        " holds other bytes than the work state the ledger recorded as this "
                        "version; it is left as it is (hangar memory log shows it changed)");
}

Status PerformConsumeControl(Env* env, const Layout& l, const ConsumeControl& c) {
  const std::string path = l.ControlNew() + "/" + c.name;
  // The answer before the request goes: a crash in between leaves both, and the request is then
  // finished by the answer it already has (AnsweredControl), never decided twice.
  Status s = c.answer.empty() ? Status::Ok()
                              : env->WriteFileAtomic(l.ControlDone(), c.name + ".json", c.answer);
  if (!s.ok()) return s;
  if (!c.bad) return env->Remove(path);
  s = env->WriteFileAtomic(l.ControlBad(), c.bad_name + ".why.json", c.why);
  if (!s.ok()) return s;
  return env->RenameNoReplace(path, l.ControlBad() + "/" + c.bad_name);
}

}  // namespace hangar
