// Control requests, format v1 (man/hangar-spool.5 "CONTROL REQUESTS"): what a person or script
// asks of the kernel by dropping a file into control/new. Parsing is pure and strict: an unknown
// field, a wrong type or a missing field is an error naming the field; the kernel then files the
// request under control/bad with that reason. A request is data, never a proof: "approve" grants
// nothing until the kernel has recorded it in the ledger.
//
//   {"hangar":1,"request":"cancel","id":ID}
//   {"hangar":1,"request":"retry","id":ID}
//   {"hangar":1,"request":"approve","id":ID[,"why":TEXT][,"principal":NAME,"signature":SSHSIG]}
//   {"hangar":1,"request":"deny","id":ID,"why":TEXT}
//   {"hangar":1,"request":"grant","op":OP,"mission":ID | "requester":NAME[,"until":RFC3339]}
//   {"hangar":1,"request":"revoke","op":OP,"mission":ID | "requester":NAME}
//   {"hangar":1,"request":"reanchor","why":TEXT}
//   {"hangar":1,"request":"memory","memory":WORK_STATE}  (kernel/requester_memory.h)
//   {"hangar":1,"request":"purge","ids":[ID...][,"why":TEXT]}  (1 to kMaxPurgeIds ids, no repeat)
//   {"hangar":1,"request":"release-canary","profile":NAME[,"why":TEXT]}  (kernel/canary.h)
// Every request may carry "by": the name of whoever asked, recorded as claimed (the CLI puts the
// login name there), and "time": when it was asked (informational).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/parse_error.h"
#include "base/timefmt.h"
#include "kernel/requester_memory.h"

namespace hangar {

enum class ControlKind {
  kCancel,
  kApprove,
  kDeny,
  kGrant,
  kRevoke,
  kReanchor,
  kRetry,
  kMemory,
  kPurge,
  kReleaseCanary
};

// A purge request names at most this many missions (the CLI sends larger selections in parts).
inline constexpr size_t kMaxPurgeIds = 500;

const char* ControlKindName(ControlKind k);  // "cancel", "approve", ...

struct ControlRequest {
  ControlKind kind = ControlKind::kCancel;
  std::string id;   // cancel, approve, deny, retry
  std::string why;  // deny, reanchor (1..1000 bytes); approve, purge, release-canary (optional)
  std::vector<std::string> ids;  // purge: the missions whose directories and rooms go
  std::string profile;           // release-canary: the drone profile whose missions may go
  std::string op;                // grant, revoke: [a-z][a-z0-9._-]{0,63}
  // grant, revoke: exactly one subject.
  std::string mission, requester;
  std::optional<TimeMs> until;  // grant: none = until revoked
  std::string by;
  // approve, signed: the signer's principal as allowed_signers names it, and the armored SSH
  // signature (ssh-keygen -Y sign -n hangar) of ApprovalMessage for the mission as held.
  std::string principal, signature;
  // memory: a requester's work state to store as its next version.
  std::optional<RequesterMemory> memory;
};

// The bytes a signed approval signs: the mission's id, the sha256 of its bytes as held and, when
// it is held at stage 2, of the plan ("" otherwise), so a signature approves that mission as it
// stands and nothing else. "hangar approve v1\nid ID\nmission_sha256 HEX\nplan_sha256 HEX\n".
std::string ApprovalMessage(const std::string& id, const std::string& mission_sha256,
                            const std::string& plan_sha256);
// The namespace every hangar signature is made in (ssh-keygen -n), so a signature made for
// anything else (a git commit, a file) never approves a mission.
inline constexpr char kSignatureNamespace[] = "hangar";

// Invalid: the ParseError names the field ("" for the whole request) and what was expected.
std::variant<ControlRequest, ParseError> ParseControl(std::string_view bytes);

// [a-z][a-z0-9._-]{0,63}: an op verb as grants and policies name it.
bool ValidOpName(std::string_view op);

}  // namespace hangar
