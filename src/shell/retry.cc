#include "shell/retry.h"

#include <algorithm>

#include "base/json.h"
#include "shell/json_file.h"
#include "shell/proc.h"
#include "shell/workspace.h"

namespace hangar {

namespace {

constexpr size_t kMaxReturnBytes = size_t(256) << 20;  // return.json carries the room manifest
constexpr size_t kMaxSmallBytes = 1 << 20;

// The files of one attempt that the next would write again; return.json goes last, by itself.
constexpr const char* kAttemptFiles[] = {"launch.json",  "plan.json",  "gate2.json",
                                         "approve.json", "retry.json", "run"};

int IntMember(const json::Value& v, const char* k) {
  const json::Value* m = v.find(k);
  return m && m->is_int() && m->as_int() > 0 && m->as_int() < (1 << 30) ? int(m->as_int()) : 0;
}

// Why the process run/shim.json names as WHO ("shim", "drone") may still be alive, or "".
std::string Lives(const json::Value& shim, const std::string& who) {
  const json::Value* pid = shim.find(who + "_pid");
  const json::Value* start = shim.find(who + "_start");
  if (!pid || !pid->is_int() || pid->as_int() <= 0) return "";
  const pid_t p = pid_t(pid->as_int());
  if (start && start->is_int()) {
    if (SameProcess(p, uint64_t(start->as_int())))
      return "its " + who + " (pid " + std::to_string(p) + ", started at tick " +
             std::to_string(start->as_int()) + ") still runs";
  } else if (ProcStartTime(p)) {
    return "run/shim.json gives no start time for its " + who + " and pid " + std::to_string(p) +
           " exists";
  }
  if (who == "drone") {
    std::vector<pid_t> left = ProcessGroupMembers(p);
    if (!left.empty())
      return "the drone's process group " + std::to_string(p) + " still has " +
             std::to_string(left.size()) + " process" + (left.size() == 1 ? "" : "es") + " (pid " +
             std::to_string(left.front()) + (left.size() > 1 ? ", ..." : "") + ")";
  }
  return "";
}

std::string MayLive(Env* env, const std::string& run,
                    const std::function<bool(const std::string&)>& alive) {
  if (alive(run)) return "its supervisor holds " + run + "/lock";
  Result<json::Value> shim = ReadObject(env, run + "/shim.json", kMaxSmallBytes);
  if (!shim.ok()) {
    if (shim.status().code() == Code::kNotFound) return "";  // never started, or its exec failed
    return shim.status().message() + " (its processes cannot be told)";
  }
  for (const char* who : {"shim", "drone"})
    if (std::string why = Lives(*shim, who); !why.empty()) return why;
  return "";
}

}  // namespace

RetryFacts ReadRetryFacts(Env* env, const Layout& l, const std::string& id, const std::string& home,
                          const std::function<bool(const std::string&)>& alive) {
  RetryFacts f;
  const std::string dir = l.MissionDir(Phase::kReturned, id);
  Result<json::Value> ret = ReadObject(env, dir + "/return.json", kMaxReturnBytes);
  if (!ret.ok()) {
    f.read_error = ret.status().message();
    return f;
  }
  const json::Value* outcome = ret->find("outcome");
  f.outcome = outcome && outcome->is_string() ? outcome->as_string() : "";
  const json::Value* exit = ret->find("exit");
  f.ran = exit && exit->is_object();
  f.attempt = IntMember(*ret, "attempt");
  if (Result<json::Value> launch = ReadObject(env, dir + "/launch.json", kMaxSmallBytes);
      launch.ok())
    f.attempt = std::max(f.attempt, IntMember(*launch, "attempt"));
  if (Result<std::string> m = env->ReadFile(dir + "/mission.json", kMaxMissionBytes); m.ok())
    f.mission_bytes = std::move(m).value();
  Result<json::Value> in = ReadObject(env, dir + "/intake.json", kMaxSmallBytes);
  f.resolved = ResolveRecorded(f.mission_bytes, home, in.ok() ? in->find("workspace") : nullptr);
  if (in.ok()) {
    const json::Value* sha = in->find("sha256");
    const json::Value* time = in->find("time");
    if (sha && sha->is_string()) f.intake_sha256 = sha->as_string();
    if (time && time->is_string()) f.accepted = ParseTime(time->as_string()).value_or(0);
    const json::Value* uid = in->find("uid");
    if (uid && uid->is_int() && uid->as_int() >= 0) f.owner_uid = uid->as_int();
    const json::Value* user = in->find("user");
    if (user && user->is_string()) f.owner_user = user->as_string();
  }
  f.alive = MayLive(env, dir + "/run", alive);
  return f;
}

Status PerformRetry(Env* env, const Layout& l, const Retry& r) {
  const std::string returned = l.MissionDir(Phase::kReturned, r.id);
  const std::string queued = l.MissionDir(Phase::kQueued, r.id);
  const std::string kept = "attempts/" + std::to_string(r.previous);
  for (const std::string& d : {returned + "/attempts", returned + "/" + kept}) {
    Status s = env->MakeDir(d);
    if (!s.ok() && s.code() != Code::kExists) return s;
  }
  for (const char* f : kAttemptFiles) {
    const std::string from = returned + "/" + f;
    if (!env->Exists(from)) continue;
    Status s = env->RenameNoReplace(from, returned + "/" + kept + "/" + f);
    if (!s.ok()) return s;
  }
  Status s = env->RenameNoReplace(returned, queued);
  if (s.ok()) {
    s = env->WriteFilesAtomic(queued, Env::Files(r.files.begin(), r.files.end()));
  }
  if (s.ok())
    s = env->RenameNoReplace(queued + "/return.json", queued + "/" + kept + "/return.json");
  return s;
}

Result<bool> FinishRetry(Env* env, const Layout& l, const std::string& id) {
  const std::string queued = l.MissionDir(Phase::kQueued, id);
  Result<json::Value> retry = ReadObject(env, queued + "/retry.json", kMaxSmallBytes);
  if (!retry.ok()) return false;
  const int previous = IntMember(*retry, "previous");
  const std::string to = queued + "/attempts/" + std::to_string(previous) + "/return.json";
  if (previous == 0 || !env->Exists(queued + "/attempts/" + std::to_string(previous)) ||
      env->Exists(to))
    return false;
  Status s = env->RenameNoReplace(queued + "/return.json", to);
  if (!s.ok()) return s;
  return true;
}

int RetriedAttempt(Env::Dir* state, const std::string& id) {
  Result<std::string> text = state->ReadFile(id + "/retry.json", kMaxSmallBytes);
  if (!text.ok()) return 0;
  Result<json::Value> v = json::Parse(*text);
  return v.ok() && v->is_object() ? IntMember(*v, "previous") : 0;
}

}  // namespace hangar
