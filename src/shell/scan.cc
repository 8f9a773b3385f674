#include "shell/scan.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "base/id.h"
#include "base/json.h"
#include "base/parallel.h"
#include "base/sha256.h"
#include "base/strict_json.h"
#include "kernel/control.h"
#include "shell/purge.h"
#include "shell/retry.h"
#include "shell/users.h"
#include "shell/workspace.h"

namespace hangar {

namespace {

// "cannot read PATH: reason" -> "reason": the why.json already names the mission.
std::string Reason(const Status& s, const std::string& path) {
  const std::string prefix = "cannot read " + path + ": ";
  const std::string& m = s.message();
  return m.compare(0, prefix.size(), prefix) == 0 ? m.substr(prefix.size()) : m;
}

std::optional<json::Value> ReadJson(Env* env, const std::string& path) {
  Result<std::string> text = env->ReadFile(path, kMaxMissionBytes);
  if (!text.ok()) return std::nullopt;
  Result<json::Value> v = json::Parse(*text);
  if (!v.ok() || !v->is_object()) return std::nullopt;
  return v.value();
}

// The named string members of the JSON object in the file rel below dir, "" for each that is
// absent or no string, or when the file cannot be read or is no object.
std::vector<std::string> StringMembersOf(Env::Dir* dir, const std::string& rel,
                                         std::initializer_list<std::string_view> names) {
  std::vector<std::string> out(names.size());
  Result<std::string> text = dir->ReadFile(rel, kMaxMissionBytes);
  if (!text.ok()) return out;
  Result<std::vector<std::optional<std::string>>> got = json::StringMembers(*text, names);
  if (!got.ok()) return out;
  for (size_t i = 0; i < out.size(); ++i)
    if ((*got)[i]) out[i] = std::move(*(*got)[i]);
  return out;
}

// intake.json's "time", "sha256", "uid" and "user" (what is absent or of another type stays as
// it was: 0, "", -1; a member given twice: its last value). Returns its "workspace" (null when it
// has none or cannot be read as an object). One pass over the document, no tree of it built: a
// deep queue's start reads one of each.
json::Value ReadIntake(Env::Dir* dir, const std::string& rel, TimeMs* accepted, std::string* sha256,
                       Dropper* by) {
  Result<std::string> text = dir->ReadFile(rel, kMaxMissionBytes);
  if (!text.ok()) return nullptr;
  json::Value workspace = nullptr;
  (void)strict::ReadDocument<bool>(*text, [&](simdjson::dom::element root) {
    for (auto field : AsObject(root)) {
      std::string_view s;
      int64_t i = 0;
      const bool str = field.value.get(s) == simdjson::SUCCESS;
      if (field.key == "time" && str)
        *accepted = ParseTime(s).value_or(0);
      else if (field.key == "sha256" && str)
        *sha256 = std::string(s);
      else if (field.key == "uid" && field.value.get(i) == simdjson::SUCCESS && i >= 0)
        by->uid = i;
      else if (field.key == "user" && str)
        by->user = std::string(s);
      else if (field.key == "workspace")
        workspace = json::FromElement(field.value);
    }
    return true;
  });
  return workspace;
}

}  // namespace

Result<std::vector<std::string>> Waiting(Env* env, const std::string& dir) {
  Result<std::vector<std::string>> names = env->ListDir(dir);
  if (!names.ok()) return names;
  std::vector<std::string> out;
  for (std::string& n : names.value())
    if (n[0] != '.') out.push_back(std::move(n));
  return out;
}

// DIR/NAME into a Dropped or ControlDropped: its bytes, or why they could not be read, and who
// owns the file (the owner of the descriptor read, so a swap after the read cannot change it).
template <typename T>
T ReadWaiting(Env* env, const std::string& dir, const std::string& name, TimeMs now) {
  T t;
  t.name = name;
  t.now = now;
  const std::string path = dir + "/" + name;
  Result<std::string> bytes = env->ReadFileOwned(path, kMaxMissionBytes, &t.by.uid);
  t.by.user = LoginName(t.by.uid);
  if (bytes.ok())
    t.bytes = std::move(bytes).value();
  else
    t.read_error = Reason(bytes.status(), path);
  if (t.read_error.find("larger than") == 0) t.read_error = "file " + t.read_error;
  return t;
}

Dropped ReadDrop(Env* env, const Layout& l, const std::string& name, TimeMs now) {
  return ReadWaiting<Dropped>(env, l.IncomingNew(), name, now);
}

ControlDropped ReadControl(Env* env, const Layout& l, const std::string& name, TimeMs now) {
  return ReadWaiting<ControlDropped>(env, l.ControlNew(), name, now);
}

bool AnsweredBefore(Env* env, const Layout& l, const ControlDropped& c) {
  if (!c.read_error.empty()) return false;
  std::optional<json::Value> a = ReadJson(env, l.ControlDone() + "/" + c.name + ".json");
  const json::Value* sha = a ? a->find("request_sha256") : nullptr;
  return sha && sha->is_string() && sha->as_string() == Sha256Hex(c.bytes);
}

Result<std::string> HeldApprovalMessage(Env* env, const Layout& l, const std::string& id,
                                        std::string* mission_sha256, std::string* plan_sha256) {
  const std::string dir = l.MissionDir(Phase::kHold, id);
  Result<std::string> mission = env->ReadFile(dir + "/mission.json", kMaxMissionBytes);
  if (!mission.ok()) return mission.status();
  *mission_sha256 = Sha256Hex(*mission);
  plan_sha256->clear();
  if (std::optional<json::Value> g2 = ReadJson(env, dir + "/gate2.json"))
    if (const json::Value* p = g2->find("plan_sha256"); p && p->is_string())
      *plan_sha256 = p->as_string();
  return ApprovalMessage(id, *mission_sha256, *plan_sha256);
}

Result<ExitInfo> ReadExit(Env* env, const std::string& run_dir) {
  const std::string path = run_dir + "/exit.json";
  Result<std::string> text = env->ReadFile(path, 1 << 20);
  if (!text.ok()) return text.status();
  Result<json::Value> v = json::Parse(*text);
  if (!v.ok()) return Status::Invalid("cannot read " + path + ": " + v.status().message());
  Result<ExitInfo> e = ExitInfo::FromJson(*v);
  if (!e.ok()) return Status::Invalid("cannot read " + path + ": " + e.status().message());
  return e;
}

namespace {

// The attempt DIR/launch.json names, if it is there and says one.
std::optional<int> LaunchAttempt(Env* env, const std::string& dir) {
  std::optional<json::Value> launch = ReadJson(env, dir + "/launch.json");
  const json::Value* att = launch ? launch->find("attempt") : nullptr;
  if (att && att->is_int()) return int(att->as_int());
  return std::nullopt;
}

// The mission's bytes (mission.json) of live mission ID in state directory STATE, and its writes
// resolved again against home, with the workspace its intake.json names (WORKSPACE, or read here
// when null).
void ReadMissionOf(Env::Dir* state, const std::string& home, const std::string& id,
                   const json::Value* workspace, std::string* bytes, std::string* read_error,
                   ResolvedWrites* resolved) {
  Result<std::string> b = state->ReadFile(id + "/mission.json", kMaxMissionBytes);
  if (b.ok())
    *bytes = std::move(b).value();
  else if (read_error)
    *read_error = b.status().message();
  json::Value read = nullptr;
  if (!workspace) {
    TimeMs accepted = 0;
    std::string sha;
    Dropper by;
    read = ReadIntake(state, id + "/intake.json", &accepted, &sha, &by);
    workspace = &read;
  }
  *resolved = ResolveRecorded(*bytes, home, workspace);
}

// What recovery knows of one mission directory beyond its name: its files, read again through
// state, the mission's state directory held open. With facts_only (a queued mission that may be
// held cold), its mission.json is not read: ReadMissionOf reads it if it is kept warm after all.
void ReadRecovered(Env* env, Env::Dir* state, const Layout& l, const std::string& home,
                   const std::function<bool(const std::string&)>& alive, bool facts_only,
                   Recovered* r, std::vector<std::string>* log) {
  const Phase p = r->phase;
  const std::string dir = l.MissionDir(p, r->id);
  if (Terminal(p)) {
    // An ended mission decides nothing more, but a purge's tombstone says who dropped it, when,
    // and which launch keys it took: its intake.json and its last launch.json (two small files).
    ReadIntake(state, r->id + "/intake.json", &r->accepted, &r->intake_sha256, &r->by);
    r->attempt = LaunchAttempt(env, dir).value_or(0);
    return;
  }
  const json::Value workspace =
      ReadIntake(state, r->id + "/intake.json", &r->accepted, &r->intake_sha256, &r->by);
  if (!facts_only)
    ReadMissionOf(state, home, r->id, &workspace, &r->mission_bytes, nullptr, &r->resolved);
  std::vector<std::string> approve =
      StringMembersOf(state, r->id + "/approve.json", {"mission_sha256", "plan_sha256"});
  r->approved_sha256 = std::move(approve[0]);
  r->approved_plan_sha256 = std::move(approve[1]);
  // A retried mission's next launch is the attempt after the one its retry.json names.
  if (p != Phase::kRunning) r->attempt = RetriedAttempt(state, r->id);
  if (p == Phase::kHold)
    r->held_plan_sha256 =
        std::move(StringMembersOf(state, r->id + "/gate2.json", {"plan_sha256"})[0]);
  if (p == Phase::kRunning) {
    // Without launch.json (a power loss took its name back; or a spool of an older hangard
    // stopped between the move to running/ and its write) the attempt is the one after a retry's
    // previous, or the first: its lost return must name the key taken.
    const std::optional<int> launched = LaunchAttempt(env, dir);
    r->attempt = launched ? *launched : RetriedAttempt(state, r->id) + 1;
    const std::string run = dir + "/run";
    r->supervisor_alive = alive(run);
    // exit.json counts only once its supervisor has let go of the lock: the supervisor writes
    // it as its last act, and a drone that could write into run/ must not end itself early.
    if (!r->supervisor_alive) {
      Result<ExitInfo> e = ReadExit(env, run);
      if (e.ok())
        r->exit = e.value();
      else if (e.status().code() != Code::kNotFound)
        log->push_back(r->id + ": " + e.status().message());
    }
  }
}

// ReadRecovered over a whole state directory. Reading a deep queue is a few system calls per
// mission and nothing else, so it is split over the cores (Env may be used from any thread); the
// result and the log come out in the order one thread would give them. Running missions stay on
// this thread: alive() is the caller's.
Status ReadAll(Env* env, const Layout& l, const std::string& home,
               const std::function<bool(const std::string&)>& alive, bool facts_only,
               std::vector<Recovered>* batch, std::vector<std::string>* log) {
  constexpr size_t kEachAtLeast = 512;
  const bool running = !batch->empty() && batch->front().phase == Phase::kRunning;
  const size_t each = running ? batch->size() + 1 : kEachAtLeast;
  std::vector<std::vector<std::string>> logs(Parts(batch->size(), each));
  Status failed = Status::Ok();
  std::mutex mu;
  SplitAcross(batch->size(), each, [&](size_t begin, size_t end, size_t part) {
    if (begin == end) return;
    // A Dir is for one thread: each part holds the state directory open for itself.
    Result<std::unique_ptr<Env::Dir>> state = env->OpenDir(l.StateDir((*batch)[begin].phase));
    if (!state.ok()) {
      std::lock_guard<std::mutex> lock(mu);
      failed = state.status();
      return;
    }
    for (size_t i = begin; i < end; ++i)
      ReadRecovered(env, state->get(), l, home, alive, facts_only, &(*batch)[i], &logs[part]);
  });
  if (!failed.ok()) return failed;
  for (std::vector<std::string>& lines : logs)
    log->insert(log->end(), std::make_move_iterator(lines.begin()),
                std::make_move_iterator(lines.end()));
  return Status::Ok();
}

}  // namespace

Warmed ReadWarmed(Env* env, const Layout& l, const std::string& home, const std::string& id,
                  TimeMs now) {
  Warmed w;
  w.id = id;
  w.now = now;
  Result<std::unique_ptr<Env::Dir>> state = env->OpenDir(l.StateDir(Phase::kQueued));
  if (!state.ok()) {
    w.read_error = state.status().message();
    return w;
  }
  ReadMissionOf(state->get(), home, id, nullptr, &w.bytes, &w.read_error, &w.resolved);
  return w;
}

Result<std::vector<Recovered>> RecoverMissions(Env* env, const Layout& l, const std::string& home,
                                               TimeMs now,
                                               const std::function<bool(const std::string&)>& alive,
                                               std::vector<std::string>* log, size_t warm,
                                               std::vector<ColdFound>* cold) {
  // Tombstones first: a purged id is taken before any directory of it (one a stop left) is read.
  Result<std::vector<Recovered>> purged = RecoverPurged(env, l, now, log);
  if (!purged.ok()) return purged.status();
  std::vector<Recovered> out = std::move(purged).value();
  for (Phase p : {Phase::kReturned, Phase::kDenied, Phase::kRejected, Phase::kRunning, Phase::kHold,
                  Phase::kQueued}) {
    Result<std::vector<Env::DirEntry>> entries = env->ListEntries(l.StateDir(p));
    if (!entries.ok()) return entries.status();
    std::vector<Recovered> batch;
    batch.reserve(entries->size());
    for (const Env::DirEntry& e : *entries) {
      const std::string& id = e.name;
      if (id[0] == '.') continue;  // somebody's unfinished file (see Waiting)
      // Only hangard makes mission directories; anything else here (a stray file, a name that is
      // no id) is left alone and said, never taken for a mission.
      if (!ValidId(id) || (!Terminal(p) && !e.dir)) {
        log->push_back(std::string(PhaseName(p)) + "/" + id +
                       " is no mission directory; left alone");
        continue;
      }
      Recovered& r = batch.emplace_back();
      r.id = id;
      r.phase = p;
      r.now = now;
    }
    const bool queued = p == Phase::kQueued;
    if (Status s = ReadAll(env, l, home, alive, queued && cold, &batch, log); !s.ok()) return s;
    if (queued) {
      // In intake order (the indices sorted, each record moved once). With cold, the first `warm`
      // (and any whose intake.json names no sha256 to check its bytes against later) are read
      // whole; the others are held cold, in launch order behind them.
      std::vector<size_t> order(batch.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return batch[a].accepted < batch[b].accepted; });
      std::unique_ptr<Env::Dir> state;
      if (cold) {
        Result<std::unique_ptr<Env::Dir>> opened = env->OpenDir(l.StateDir(p));
        if (!opened.ok()) return opened.status();
        state = std::move(opened).value();
      }
      std::vector<Recovered> kept;
      kept.reserve(batch.size());
      for (size_t k = 0; k < order.size(); ++k) {
        Recovered& r = batch[order[k]];
        if (cold && k >= warm && IsHexHash(r.intake_sha256)) {
          cold->push_back({std::move(r.id), r.accepted, r.attempt, std::move(r.by),
                           std::move(r.intake_sha256), std::move(r.approved_sha256),
                           std::move(r.approved_plan_sha256)});
          continue;
        }
        if (cold)
          ReadMissionOf(state.get(), home, r.id, nullptr, &r.mission_bytes, nullptr, &r.resolved);
        kept.push_back(std::move(r));
      }
      batch = std::move(kept);
    }
    out.reserve(out.size() + batch.size());
    for (Recovered& r : batch) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace hangar
