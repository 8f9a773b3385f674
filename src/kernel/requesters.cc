#include "kernel/requesters.h"

#include "base/sha256.h"

namespace hangar {

namespace {

Status Malformed(const GrantRecord& e, const char* what) {
  return Status::Invalid("ledger entry " + std::to_string(e.seq) + " (" + e.kind + "): " + what);
}

}  // namespace

bool RequesterBook::Folds(std::string_view kind, std::string_view body) {
  if (kind == "memory.stored") return true;
  // Canonical text has no whitespace: a body marked owner holds exactly this (a string that
  // happens to hold it too is parsed for nothing, and Apply finds no mark).
  return (kind == "mission.accepted" || kind == "mission.held") &&
         body.find("\"owner\":true") != std::string_view::npos;
}

Status RequesterBook::Apply(const GrantRecord& e) {
  if (e.kind != "memory.stored" && e.kind != "mission.accepted" && e.kind != "mission.held")
    return Status::Ok();
  if (!e.body.is_object()) return Malformed(e, "its body is not an object");
  const json::Value* requester = e.body.find("requester");
  if (e.kind == "memory.stored") {
    const json::Value* version = e.body.find("version");
    const json::Value* name = e.body.find("name");
    const json::Value* sha = e.body.find("sha256");
    if (!requester || !requester->is_string() || !version || !version->is_int() || !name ||
        !name->is_string() || !sha || !sha->is_string())
      return Malformed(e, "expected requester, version, name and sha256");
    Stored(requester->as_string(), version->as_int(), name->as_string(), sha->as_string(), e.seq);
    return Status::Ok();
  }
  // Only the entry the kernel marked binds (a held-again after a change, a stage-2 verdict, a
  // denial or an approver's mission says nothing of it).
  const json::Value* owner = e.body.find("owner");
  if (!owner || !owner->is_bool() || !owner->as_bool()) return Status::Ok();
  const json::Value* uid = e.body.find("uid");
  const json::Value* user = e.body.find("user");
  if (!requester || !requester->is_string() || !uid || !uid->is_int())
    return Malformed(e, "an owner entry names a requester and a uid");
  Bind(requester->as_string(), uid->as_int(),
       user && user->is_string() ? user->as_string() : std::string(), e.seq);
  return Status::Ok();
}

void RequesterBook::Bind(const std::string& requester, int64_t uid, const std::string& user,
                         int64_t seq) {
  if (uid < 0) return;
  RequesterRec& r = recs_[requester];
  if (r.owner >= 0) return;  // the first mission's uid stands
  r.owner = uid;
  r.owner_user = user;
  r.bound_seq = seq;
  Chain("bind " + std::to_string(seq) + " " + std::to_string(uid) + " " + requester);
}

void RequesterBook::Stored(const std::string& requester, int64_t version, const std::string& name,
                           const std::string& sha256, int64_t seq) {
  RequesterRec& r = recs_[requester];
  r.versions = version;
  r.by_name[name] = {version, sha256};
  Chain("store " + std::to_string(seq) + " " + std::to_string(version) + " " + sha256 + " " +
        requester + "\n" + name);
}

void RequesterBook::Chain(const std::string& change) {
  digest_ = Sha256Hex(digest_ + "\n" + change);
}

const RequesterRec* RequesterBook::Find(const std::string& requester) const {
  auto it = recs_.find(requester);
  return it == recs_.end() ? nullptr : &it->second;
}

std::string RequesterTakenReason(const RequesterBook& book, const std::set<int64_t>& approvers,
                                 const std::string& requester, int64_t uid) {
  const RequesterRec* owner = book.Find(requester);
  if (!owner || owner->owner < 0 || uid < 0 || owner->owner == uid || approvers.count(uid))
    return "";
  return "requester \"" + requester + "\" is uid " + std::to_string(owner->owner) + "'s (" +
         owner->owner_user + ", since ledger seq " + std::to_string(owner->bound_seq) + "): uid " +
         std::to_string(uid) + " may not submit as it";
}

}  // namespace hangar
