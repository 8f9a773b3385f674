#include "shell/unbacked_keys.h"

#include <set>

#include "base/id.h"
#include "base/json.h"
#include "kernel/plan.h"
#include "shell/json_file.h"

namespace hangar {

namespace {

constexpr size_t kMaxKeyBytes = 64 << 10;  // a key or launch.json

}  // namespace

Result<std::vector<std::string>> DropUnbackedKeys(Env* env, const Layout& l,
                                                  const KeysBacked& backed) {
  // The queued missions first (one readdir): keys/ holds every launch's key a spool ever took,
  // and only a queued mission's is judged. Nothing queued, nothing to judge.
  std::vector<std::string> said;
  Result<std::vector<Env::DirEntry>> queued_ids = env->ListEntries(l.StateDir(Phase::kQueued));
  if (!queued_ids.ok()) return queued_ids.status();
  std::set<std::string> waiting;
  for (const Env::DirEntry& e : *queued_ids)
    if (e.dir) waiting.insert(e.name);
  if (waiting.empty()) return said;
  Result<std::vector<Env::DirEntry>> keys = env->ListEntries(l.Keys());
  if (!keys.ok()) return keys.status();
  struct Judged {
    std::string id;
    int64_t attempt = 0;
  };
  std::vector<KeySeq> judge;
  std::vector<Judged> of;  // at JUDGE's indexes
  for (const Env::DirEntry& e : *keys) {
    // launch.ID.ATTEMPT: the attempt after the last dot (an id may hold dots).
    const std::string& name = e.name;
    const size_t dot = name.rfind('.');
    if (e.dir || !name.starts_with("launch.") || dot <= 7) continue;
    const std::string id = name.substr(7, dot - 7);
    if (!ValidId(id) || !waiting.count(id)) continue;
    // A key that cannot say which entry backs it stands: its launch ends lost, as ever.
    auto stands = [&](const std::string& why) {
      said.push_back("launch key keys/" + name + " of queued " + id + " left (" + why +
                     "): its launch returns the mission lost");
    };
    Result<json::Value> key = ReadObject(env, l.Keys() + "/" + name, kMaxKeyBytes);
    if (!key.ok()) {
      // Empty after a power loss before its data was fsynced, or written by another hand.
      if (key.status().code() != Code::kInvalid) return key.status();
      stands(key.status().message());
      continue;
    }
    const json::Value* seq = key->find("ledger_seq");
    const json::Value* attempt = key->find("attempt");
    if (!seq) continue;  // written after its entry
    if (!seq->is_int() || !attempt || !attempt->is_int() ||
        LaunchKeyName(id, int(attempt->as_int())) != name) {
      stands("its ledger_seq and attempt are not a launch key's");
      continue;
    }
    judge.push_back({name, seq->as_int()});
    of.push_back({id, attempt->as_int()});
  }
  if (judge.empty()) return said;
  Result<std::vector<bool>> held = backed(judge);
  if (!held.ok()) return held.status();
  if (held->size() != judge.size())  // no key is taken back on an answer that misses one
    return Status::Invalid("the ledger answered for " + std::to_string(held->size()) + " of " +
                           std::to_string(judge.size()) + " launch keys");
  for (size_t i = 0; i < judge.size(); ++i) {
    if ((*held)[i]) continue;
    // launch.json first: none stands without its key. Only the one of this attempt.
    const std::string launch = l.MissionDir(Phase::kQueued, of[i].id) + "/launch.json";
    if (env->Exists(launch)) {
      Result<json::Value> rec = ReadObject(env, launch, kMaxKeyBytes);
      const json::Value* a = rec.ok() ? rec->find("attempt") : nullptr;
      if (!rec.ok() || (a && a->is_int() && a->as_int() == of[i].attempt))
        if (Status s = env->Remove(launch); !s.ok()) return s;
    }
    if (Status s = env->Remove(l.Keys() + "/" + judge[i].key); !s.ok()) return s;
    said.push_back("launch key keys/" + judge[i].key +
                   " taken back: no launch anchored before this start is at seq " +
                   std::to_string(judge[i].seq) + " (a stop before its entry's anchor line); " +
                   of[i].id + " launches anew");
  }
  return said;
}

}  // namespace hangar
