// Canaries (man/hangard.8, CANARY): which definition of each drone profile is proven, and the
// canary that tries one that is not. A profile's definition is proven once a mission launched with
// it returned done, a canary of it passed, or an approver released it. When a profile's definition
// (Profile::sha256) is not the one proven, the kernel launches one mission of it alone, the canary;
// the others of that profile wait queued until the canary has run canary_s seconds or returned
// done (it passed), and keep waiting when it ended otherwise first (it failed) until an approver's
// release-canary. A profile no mission has yet returned done with has nothing proven to differ
// from: its missions launch as before, and the first done proves its definition.
//
// Folded from the ledger's records as grants are (kernel/grants.h):
//   canary.launched  {profile, profile_sha256, id, until}  the canary runs until UNTIL
//   canary.passed    {profile, profile_sha256, id, reason}  proven; its others launch
//   canary.failed    {profile, profile_sha256, id, outcome, reason}  its others wait
//   canary.released  {profile, profile_sha256, why, ...}  proven by an approver's word
//   profile.proven   {profile, profile_sha256, id}  a mission returned done with a definition
//                    not proven before
// Pure: it reads the records handed to it (the kernel's own as it decides; at start, the ledger's).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/timefmt.h"
#include "kernel/grants.h"

namespace hangar {

struct ProfileCanary {
  std::string proven;  // sha256 of the definition proven last; "": none yet
  int64_t proven_seq = 0;
  enum class Stage { kNone, kRunning, kFailed };
  Stage stage = Stage::kNone;
  // kRunning, kFailed: the definition the canary tries, the canary mission, and the entry.
  std::string sha256, id;
  int64_t seq = 0;
  TimeMs until = 0;    // kRunning: when it has run canary_s seconds
  std::string reason;  // kFailed: how it ended

  // A definition is proven and SHA256 is another: missions of SHA256 go through a canary.
  bool Unproven(const std::string& sha256) const { return !proven.empty() && proven != sha256; }
  // A canary of SHA256 runs or has failed.
  bool Tries(const std::string& sha256) const {
    return stage != Stage::kNone && this->sha256 == sha256;
  }
  // "running", "failed", or "none" when no canary tries SHA256.
  const char* StageOf(const std::string& sha256) const {
    return !Tries(sha256) ? "none" : stage == Stage::kFailed ? "failed" : "running";
  }
};

class CanaryBook {
 public:
  // Whether a record of this kind may change the book (the ledger readers parse only these).
  static bool Folds(std::string_view kind);
  // Folds one record in (other kinds are ignored). Invalid, naming the seq, for such a record
  // whose body is malformed.
  Status Apply(const GrantRecord& e);
  // The kernel's own decisions, as they are recorded.
  void Launched(const std::string& profile, const std::string& sha256, const std::string& id,
                TimeMs until, int64_t seq);
  // passed, released, profile.proven: SHA256 is proven; a canary of it is over.
  void Proven(const std::string& profile, const std::string& sha256, int64_t seq);
  void Failed(const std::string& profile, const std::string& sha256, const std::string& id,
              const std::string& reason, int64_t seq);

  const ProfileCanary* Find(const std::string& profile) const;
  const std::map<std::string, ProfileCanary>& all() const { return recs_; }
  // A digest of every change in order (a chain, as RequesterBook's), for the replay's comparison.
  const std::string& digest() const { return digest_; }

 private:
  void Chain(const std::string& change);
  std::map<std::string, ProfileCanary> recs_;
  std::string digest_;
};

}  // namespace hangar
