// Requesters: whose a requester name is, and how many work states it has stored, folded from the
// ledger's records (as grants are, kernel/grants.h). Folding rules:
//   - a name belongs to the uid of the stage-1 entry (mission.accepted or mission.held) whose body
//     says "owner": true with the requester and that uid: the kernel writes it on the first
//     mission naming the requester that it takes in from a uid that is no approver (a denied
//     mission binds nothing, nor does an approver's: approvers may use any name);
//   - memory.stored counts a version of that requester's work state (man/hangar-memory.5), and
//     keeps, by the control request's name, the version and sha256 it stored.
// Only that uid (or an approver) may store the requester's work states (decide_memory.cc): a
// name is not proof of who is behind it, the uid the OS says dropped its first mission is.
// Pure: it reads the records handed to it (the kernel's own as it decides; at start, the
// ledger's entries).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "base/status.h"
#include "kernel/grants.h"

namespace hangar {

struct RequesterRec {
  int64_t owner = -1;      // the uid it belongs to; -1: no mission has named it yet
  std::string owner_user;  // that uid's login name as recorded
  int64_t bound_seq = 0;   // the entry that bound it
  int64_t versions = 0;    // work states stored: the last is vVERSIONS
  // By the control request's name (as records show it): the version it stored and its sha256,
  // so that a request taken again after a stop is known, whatever was stored after it.
  std::map<std::string, std::pair<int64_t, std::string>> by_name;
};

class RequesterBook {
 public:
  // Whether a record of this kind with this body (its canonical text) may change the book: a
  // memory.stored, or a stage-1 entry whose text holds "owner":true. The ledger readers parse and
  // fold only these, so a start does not parse every mission's entry for the few that bind.
  static bool Folds(std::string_view kind, std::string_view body);
  // Folds one record in (other kinds are ignored). Invalid, naming the seq, for such a record
  // whose body is malformed.
  Status Apply(const GrantRecord& e);
  // The kernel's own decisions, as they are recorded.
  void Bind(const std::string& requester, int64_t uid, const std::string& user, int64_t seq);
  void Stored(const std::string& requester, int64_t version, const std::string& name,
              const std::string& sha256, int64_t seq);

  const RequesterRec* Find(const std::string& requester) const;
  const std::map<std::string, RequesterRec>& all() const { return recs_; }
  // A digest of every change in order (a chain: sha256 of the previous digest and the change),
  // for the replay's per-step comparison at no cost that grows with the book.
  const std::string& digest() const { return digest_; }

 private:
  void Chain(const std::string& change);
  std::map<std::string, RequesterRec> recs_;
  std::string digest_;
};

// Why uid UID may not submit as REQUESTER: the name is another uid's and UID is no approver
// (decide_intake.cc fires requester.owner with it; hangar check says it before a drop). Empty when
// it may, or when the uid is unknown (-1).
std::string RequesterTakenReason(const RequesterBook& book, const std::set<int64_t>& approvers,
                                 const std::string& requester, int64_t uid);

}  // namespace hangar
