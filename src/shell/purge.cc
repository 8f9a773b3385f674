#include "shell/purge.h"

#include "base/id.h"
#include "base/json.h"

namespace hangar {

namespace {

// Removes PATH's tree when it is there; what failed is said, not returned.
void RemoveIfThere(Env* env, const std::string& path, const std::string& what,
                   std::vector<std::string>* said) {
  if (!env->Exists(path)) return;
  Status s = env->RemoveTree(path);
  if (!s.ok() && s.code() != Code::kNotFound)
    said->push_back(what + " not wholly removed (" + s.message() + "); the next start tries again");
}

// The mission directory DIR goes by way of purged/.trash/ID.
Status RemoveMissionDir(Env* env, const Layout& l, const std::string& id, const std::string& dir,
                        std::vector<std::string>* said) {
  if (!env->Exists(dir)) return Status::Ok();
  const std::string trash = l.PurgeTrash() + "/" + id;
  RemoveIfThere(env, trash, "purged/.trash/" + id, said);
  if (Status s = env->Rename(dir, trash); !s.ok()) return s;
  RemoveIfThere(env, trash, "purged/.trash/" + id, said);
  return Status::Ok();
}

// The rest of a purge, once its tombstone is in place.
Status Finish(Env* env, const Layout& l, const std::string& id, Phase from,
              std::vector<std::string>* said) {
  if (Status s = RemoveMissionDir(env, l, id, l.MissionDir(from, id), said); !s.ok()) return s;
  RemoveIfThere(env, l.Room(id), "the room of " + id, said);
  const std::string notify = l.Notify() + "/" + id + ".json";
  if (env->Exists(notify)) {
    said->push_back(id + ": its return was never delivered to its notify dir; purged with it");
    if (Status s = env->Remove(notify); !s.ok() && s.code() != Code::kNotFound) return s;
  }
  return Status::Ok();
}

}  // namespace

Status PerformPurge(Env* env, const Layout& l, const Purge& p, std::vector<std::string>* said) {
  if (Status s = env->WriteFileAtomic(l.Purged(), p.id + ".json", p.tombstone); !s.ok()) return s;
  return Finish(env, l, p.id, p.from, said);
}

Result<std::vector<Recovered>> RecoverPurged(Env* env, const Layout& l, TimeMs now,
                                             std::vector<std::string>* log) {
  std::vector<Recovered> out;
  if (!env->Exists(l.Purged())) return out;
  Result<std::vector<std::string>> names = env->ListDir(l.Purged());
  if (!names.ok()) return names.status();
  for (const std::string& n : *names) {
    if (n[0] == '.') continue;
    const std::string id = n.size() > 5 && n.ends_with(".json") ? n.substr(0, n.size() - 5) : "";
    if (!ValidId(id)) {
      log->push_back("purged/" + n + " is no tombstone; left alone");
      continue;
    }
    Recovered& r = out.emplace_back();
    r.id = id;
    r.phase = Phase::kReturned;
    r.purged = true;
    r.now = now;
    Result<std::string> text = env->ReadFile(l.Purged() + "/" + n, 1 << 16);
    Result<json::Value> t = text.ok() ? json::Parse(*text) : Result<json::Value>(text.status());
    if (t.ok() && t->is_object()) {
      const json::Value* state = t->find("state");
      const json::Value* accepted = t->find("accepted");
      const json::Value* attempts = t->find("attempts");
      const json::Value* owner = t->find("owner");
      if (state && state->is_string())
        if (std::optional<Phase> p = PhaseFromName(state->as_string()); p && Terminal(*p))
          r.phase = *p;
      if (accepted && accepted->is_string())
        r.accepted = ParseTime(accepted->as_string()).value_or(0);
      if (attempts && attempts->is_int()) r.attempt = int(attempts->as_int());
      if (owner && owner->is_object()) {
        const json::Value* uid = owner->find("uid");
        const json::Value* user = owner->find("user");
        if (uid && uid->is_int()) r.by.uid = uid->as_int();
        if (user && user->is_string()) r.by.user = user->as_string();
      }
    } else {
      log->push_back("purged/" + n + " cannot be read (" +
                     (t.ok() ? std::string("not a JSON object") : t.status().message()) +
                     "); its id stays taken");
    }
    if (Status s = Finish(env, l, id, r.phase, log); !s.ok()) return s;
  }
  if (env->Exists(l.PurgeTrash())) {
    Result<std::vector<std::string>> trash = env->ListDir(l.PurgeTrash());
    if (!trash.ok()) return trash.status();
    for (const std::string& n : *trash)
      RemoveIfThere(env, l.PurgeTrash() + "/" + n, "purged/.trash/" + n, log);
  }
  return out;
}

}  // namespace hangar
