// Requesters: whose a requester name is, and how many work states it has stored, folded from the
// ledger's records (as grants are, kernel/grants.h). Folding rules:
//   - a name belongs to the uid that dropped the first mission naming it as its "requester" (the
//     stage-1 entry mission.accepted, mission.held or mission.denied, whose body names the
//     requester and the dropper's uid); an entry whose uid is unknown binds nothing;
//   - memory.stored counts a version of that requester's work state (man/hangar-memory.5), and
//     keeps the last one's name, sha256 and seq.
// Only that uid (or an approver) may store the requester's work states (decide_memory.cc): a
// name is not proof of who is behind it, the uid the OS says dropped its first mission is.
// Pure: it reads the records handed to it (the kernel's own as it decides; at start, the
// ledger's entries).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/status.h"
#include "kernel/grants.h"

namespace hangar {

struct RequesterRec {
  int64_t owner = -1;       // the uid it belongs to; -1: no mission has named it yet
  std::string owner_user;   // that uid's login name as recorded
  int64_t bound_seq = 0;    // the entry that bound it
  int64_t versions = 0;     // work states stored: the last is vVERSIONS
  std::string last_name;    // the control request that stored the last one
  std::string last_sha256;  // of the last one's stored text
  int64_t last_seq = 0;     // its memory.stored entry
};

class RequesterBook {
 public:
  // Whether records of this kind may change the book (the ledger readers fold only these).
  static bool Folds(std::string_view kind);
  // Folds one record in (other kinds are ignored). Invalid, naming the seq, for such a record
  // whose body is malformed.
  Status Apply(const GrantRecord& e);
  // The kernel's own decisions, as they are recorded.
  void Bind(const std::string& requester, int64_t uid, const std::string& user, int64_t seq);
  void Stored(const std::string& requester, int64_t version, const std::string& name,
              const std::string& sha256, int64_t seq);

  const RequesterRec* Find(const std::string& requester) const;
  const std::map<std::string, RequesterRec>& all() const { return recs_; }
  bool operator==(const RequesterBook& o) const;

 private:
  std::map<std::string, RequesterRec> recs_;
};

}  // namespace hangar
