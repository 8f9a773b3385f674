#include "kernel/canary.h"

#include "base/sha256.h"

namespace hangar {

namespace {

Status Malformed(const GrantRecord& e, const char* what) {
  return Status::Invalid("ledger entry " + std::to_string(e.seq) + " (" + e.kind + "): " + what);
}

// The string member NAME of the body; "" when absent or not a string.
std::string Member(const json::Value& body, const char* name) {
  const json::Value* v = body.find(name);
  return v && v->is_string() ? v->as_string() : std::string();
}

}  // namespace

bool CanaryBook::Folds(std::string_view kind) {
  return kind == "canary.launched" || kind == "canary.passed" || kind == "canary.failed" ||
         kind == "canary.released" || kind == "profile.proven";
}

Status CanaryBook::Apply(const GrantRecord& e) {
  if (!Folds(e.kind)) return Status::Ok();
  if (!e.body.is_object()) return Malformed(e, "its body is not an object");
  const std::string profile = Member(e.body, "profile"), sha = Member(e.body, "profile_sha256");
  if (profile.empty() || sha.empty()) return Malformed(e, "expected profile and profile_sha256");
  if (e.kind == "canary.launched") {
    const std::string id = Member(e.body, "id");
    const std::optional<TimeMs> until = ParseRfc3339(Member(e.body, "until"));
    if (id.empty() || !until) return Malformed(e, "expected id and until (RFC 3339)");
    Launched(profile, sha, id, *until, e.seq);
  } else if (e.kind == "canary.failed") {
    const std::string id = Member(e.body, "id");
    if (id.empty()) return Malformed(e, "expected id");
    Failed(profile, sha, id, Member(e.body, "reason"), e.seq);
  } else {
    Proven(profile, sha, e.seq);
  }
  return Status::Ok();
}

void CanaryBook::Launched(const std::string& profile, const std::string& sha256,
                          const std::string& id, TimeMs until, int64_t seq) {
  ProfileCanary& c = recs_[profile];
  c.stage = ProfileCanary::Stage::kRunning;
  c.sha256 = sha256;
  c.id = id;
  c.seq = seq;
  c.until = until;
  c.reason.clear();
  Chain("launched " + profile + " " + sha256 + " " + id + " " + std::to_string(until) + " " +
        std::to_string(seq));
}

void CanaryBook::Proven(const std::string& profile, const std::string& sha256, int64_t seq) {
  ProfileCanary& c = recs_[profile];
  c.proven = sha256;
  c.proven_seq = seq;
  if (c.stage != ProfileCanary::Stage::kNone && c.sha256 == sha256) {
    c.stage = ProfileCanary::Stage::kNone;
    c.id.clear();
    c.sha256.clear();
    c.until = 0;
    c.reason.clear();
  }
  Chain("proven " + profile + " " + sha256 + " " + std::to_string(seq));
}

void CanaryBook::Failed(const std::string& profile, const std::string& sha256,
                        const std::string& id, const std::string& reason, int64_t seq) {
  ProfileCanary& c = recs_[profile];
  c.stage = ProfileCanary::Stage::kFailed;
  c.sha256 = sha256;
  c.id = id;
  c.seq = seq;
  c.until = 0;
  c.reason = reason;
  Chain("failed " + profile + " " + sha256 + " " + id + " " + std::to_string(seq) + " " + reason);
}

const ProfileCanary* CanaryBook::Find(const std::string& profile) const {
  auto it = recs_.find(profile);
  return it == recs_.end() ? nullptr : &it->second;
}

void CanaryBook::Chain(const std::string& change) {
  digest_ = Sha256Hex(digest_ + "\n" + change);
}

}  // namespace hangar
