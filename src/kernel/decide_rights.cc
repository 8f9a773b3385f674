// Who may decide: which uid may cancel, retry, approve, deny, grant, revoke, reanchor or store a
// requester's work state, judged on the uid the OS says dropped the request (man/hangar.conf.5,
// approvers, four_eyes and allowed_signers; man/hangar-memory.5). A refusal here is the state
// table's ControlRefused row, with rule control.not-owner, control.not-approver,
// control.self-approval, control.bad-signature or memory.not-requester.
#include "kernel/decision.h"

namespace hangar::decide {

namespace {

const std::string kNoId;

// An approve under allowed_signers (or signed at all): the signer decides, not the uid that
// dropped it. Refused unless it is signed, the signature verified, it signed the mission (and
// plan) as held now, and, with four_eyes, the signer is not the mission's owner by name.
std::optional<std::pair<std::string, std::string>> SignedRefusal(const Decision& d,
                                                                 const ControlRequest& r,
                                                                 const ControlDropped& c) {
  auto no = [](const std::string& why) {
    return std::make_optional(std::make_pair(std::string("control.bad-signature"), why));
  };
  auto it = d.st.missions.find(r.id);
  if (it == d.st.missions.end() || it->second.phase != Phase::kHold)
    return std::nullopt;  // ApproveOrDeny says why: no such mission, or not held
  const MissionRec& rec = it->second;
  if (d.setup.config.allowed_signers.empty())
    return no("a signed approve, but the config names no allowed_signers to check it against");
  if (r.signature.empty())
    return no(
        "approvals must be signed (hangar approve --sign KEY): the config names "
        "allowed_signers " +
        d.setup.config.allowed_signers);
  if (!c.signature || !c.signature->verified)
    return no("the signature of principal " + r.principal + " does not verify against " +
              d.setup.config.allowed_signers +
              (c.signature && !c.signature->error.empty() ? ": " + c.signature->error : ""));
  if (c.signature->mission_sha256 != rec.sha256 ||
      c.signature->plan_sha256 != rec.approval.get().held_plan_sha256)
    return no("the signature is of mission " + r.id + " as it was (sha256 " +
              c.signature->mission_sha256 + "), not as it is held now (sha256 " + rec.sha256 + ")");
  if (d.setup.config.four_eyes && !rec.owner.user.empty() && rec.owner.user == r.principal)
    return std::make_pair(std::string("control.self-approval"),
                          "principal " + r.principal + " dropped mission " + r.id +
                              ", so may not approve it: four_eyes wants another signer");
  return std::nullopt;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> Refusal(const Decision& d,
                                                           const ControlRequest& r,
                                                           const ControlDropped& c) {
  const bool approver = c.by.uid >= 0 && d.setup.approvers.count(c.by.uid);
  const std::string who = c.by.uid < 0 ? std::string("a request of unknown owner")
                                       : "uid " + std::to_string(c.by.uid) + " (" + c.by.user + ")";
  auto owner_of = [&](const std::string& id) -> int64_t {
    auto it = d.st.missions.find(id);
    if (it != d.st.missions.end() && it->second.owner.uid >= 0) return it->second.owner.uid;
    return r.kind == ControlKind::kRetry && c.retry ? c.retry->owner_uid : -1;
  };
  const char* verb = ControlKindName(r.kind);
  if (r.kind == ControlKind::kApprove &&
      (!d.setup.config.allowed_signers.empty() || !r.signature.empty()))
    return SignedRefusal(d, r, c);
  if (r.kind == ControlKind::kCancel || r.kind == ControlKind::kRetry) {
    const int64_t owner = owner_of(r.id);
    if (approver || (owner >= 0 && owner == c.by.uid)) return std::nullopt;
    return std::make_pair(std::string("control.not-owner"),
                          who + " may not " + verb + " mission " + r.id +
                              ": it neither dropped it nor is an approver (hangar.conf approvers)");
  }
  if (r.kind == ControlKind::kMemory) {  // a requester's work state: its owner's, or an approver's
    const std::string& name = r.memory->requester;
    const RequesterRec* owner = d.st.requesters.Find(name);
    if (approver || (owner && owner->owner >= 0 && owner->owner == c.by.uid)) return std::nullopt;
    return std::make_pair(
        std::string("memory.not-requester"),
        who + " may not store the work state of requester " + name + ": " +
            (owner && owner->owner >= 0
                 ? "its missions are dropped by uid " + std::to_string(owner->owner) + " (" +
                       owner->owner_user + "), since ledger seq " + std::to_string(owner->bound_seq)
                 : "no mission of it has been dropped yet, and a work state is written by the "
                   "uid that drops the requester's missions") +
            " (or an approver, hangar.conf approvers)");
  }
  if (!approver)
    return std::make_pair(std::string("control.not-approver"),
                          who + " may not " + verb + ": not an approver (hangar.conf approvers)");
  const std::string& id = r.kind == ControlKind::kApprove ? r.id
                          : r.kind == ControlKind::kGrant ? r.mission
                                                          : kNoId;
  if (d.setup.config.four_eyes && !id.empty() && owner_of(id) == c.by.uid)
    return std::make_pair(std::string("control.self-approval"),
                          who + " dropped mission " + id + ", so may not " + verb +
                              " for it: four_eyes wants another approver");
  return std::nullopt;
}

}  // namespace hangar::decide
