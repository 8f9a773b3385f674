// Grants: who may ask for which op, folded from the ledger's records. Grants and revocations exist
// only as ledger entries (kinds "grant" and "revoke", recorded by the kernel from control
// requests); a file, a mission field or a drone's claim grants nothing. Folding rules:
//   - a grant names an op and one subject: a mission id or a requester name; "until" (RFC 3339)
//     ends it, null means until revoked;
//   - a revocation removes every earlier grant of the same op and subject: it wins over an older
//     grant, and only a later grant gives the op back;
//   - a reanchor does not forget grants: they are history of the same ledger; but the grants its
//     body lists in "void" (seqs: grants of a tail the anchor never vouched for, which the
//     person's reanchor does not vouch for either) are removed.
// Pure: it reads the records handed to it (the kernel's own as it writes them; at start, the
// ledger's entries, which the daemon hands over as records: the kernel knows no ledger type).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "base/timefmt.h"

namespace hangar {

// A ledger record that may carry grants: its seq, kind and body, as on the ledger.
struct GrantRecord {
  int64_t seq = 0;
  std::string kind;
  json::Value body;
};

struct Grant {
  std::string op;
  std::string mission, requester;  // exactly one is set
  std::optional<TimeMs> until;
  std::string by;
  int64_t seq = 0;  // the ledger entry that granted it
};

class GrantBook {
 public:
  // Whether records of this kind may change the book: grant, revoke, ledger.reanchor.
  static bool Folds(std::string_view kind) {
    return kind == "grant" || kind == "revoke" || kind == "ledger.reanchor";
  }
  // Folds one record in (grant, revoke, and a ledger.reanchor's "void"; other kinds are ignored).
  // Invalid, naming the seq, for such a record whose body is malformed: the ledger is then not to
  // be trusted for grants.
  Status Apply(const GrantRecord& e);
  // Grants in force at `now`, in ledger order.
  std::vector<Grant> Active(TimeMs now) const;
  // Whether `op` is granted at `now` to this mission or to this requester.
  bool Allows(const std::string& op, const std::string& mission, const std::string& requester,
              TimeMs now) const;

 private:
  std::vector<Grant> grants_;  // not revoked, in ledger order (expired ones included)
};

}  // namespace hangar
