#include "shell/notify_outbox.h"

#include "base/json.h"
#include "shell/notify.h"
#include "shell/scan.h"

namespace hangar {

int64_t NotifyOutbox::DropperOf(const std::string& id) {
  for (Phase p : {Phase::kReturned, Phase::kHold, Phase::kRunning, Phase::kQueued}) {
    Result<std::string> t = env_->ReadFile(layout_.MissionDir(p, id) + "/intake.json", 1 << 20);
    if (!t.ok()) continue;
    Result<json::Value> v = json::Parse(*t);
    const json::Value* uid = v.ok() && v->is_object() ? v->find("uid") : nullptr;
    return uid && uid->is_int() ? uid->as_int() : -1;
  }
  return -1;
}

Status NotifyOutbox::Record(const std::string& id, const std::string& dir,
                            const std::string& reason) {
  json::Object rec;
  rec["hangar"] = 1;
  rec["id"] = id;
  rec["dir"] = dir;
  rec["reason"] = reason;
  rec["time"] = FormatTime(env_->Now());
  return env_->WriteFileAtomic(layout_.Notify(), id + ".json", json::WritePretty(rec));
}

Status NotifyOutbox::Deliver(const std::string& id, const std::string& dir,
                             const std::string& text) {
  const std::string checkpoint = checkpoint_ ? checkpoint_() : "";
  const int64_t owner = DropperOf(id);
  Status s = checkpoint.empty() ? Status::Ok()
                                : DeliverMaildir(env_, dir, id + ".checkpoint", checkpoint, owner);
  if (s.ok()) s = DeliverMaildir(env_, dir, id + ".json", text, owner);
  if (s.ok()) {
    say_(id + " return delivered to " + dir);
    return env_->Remove(layout_.Notify() + "/" + id + ".json");
  }
  say_(id + " return not delivered: " + s.message() + "; waiting in notify/ for a retry");
  return Record(id, dir, s.message());
}

void NotifyOutbox::DeliverHold(const std::string& id, const std::string& dir,
                               const std::string& verdict) {
  Status s = DeliverMaildir(env_, dir, id + ".hold.json", verdict, DropperOf(id));
  say_(id + (s.ok() ? " hold notice delivered to " + dir
                    : " hold notice not delivered: " + s.message() + " (not retried)"));
}

Status NotifyOutbox::Retry() {
  Result<std::vector<std::string>> names = Waiting(env_, layout_.Notify());
  if (!names.ok()) return names.status();
  for (const std::string& n : *names) {
    if (n.size() < 6 || n.compare(n.size() - 5, 5, ".json") != 0) continue;
    const std::string id = n.substr(0, n.size() - 5);
    Result<std::string> rec = env_->ReadFile(layout_.Notify() + "/" + n, 1 << 20);
    Result<json::Value> v = rec.ok() ? json::Parse(*rec) : Result<json::Value>(rec.status());
    const json::Value* dir = v.ok() && v->is_object() ? v->find("dir") : nullptr;
    Result<std::string> text =
        env_->ReadFile(layout_.MissionDir(Phase::kReturned, id) + "/return.json", 256 << 20);
    if (!dir || !dir->is_string() || !text.ok()) continue;
    Status s = Deliver(id, dir->as_string(), *text);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace hangar
