// Control requests: a cancel, approve, deny, retry, grant, revoke, reanchor, memory, purge or
// release-canary
// dropped in control/new is parsed, checked against who may ask (decide_rights.cc), recorded,
// carried out and answered in control/done; a bad or refused one is kept in control/bad beside its
// why.
#include <algorithm>

#include "base/sha256.h"
#include "kernel/decision.h"
#include "kernel/retry.h"
#include "kernel/return_record.h"

namespace hangar::decide {

namespace {

// control/done/NAME.json must fit in a file name (255 bytes): longer names get no answer.
constexpr size_t kMaxAnsweredName = 200;

// The answer to control/new/NAME (man/hangar-spool.5, control/done): status done, refused (for
// who asked: RULE names why) or invalid; none for a name too long to answer under.
std::string Answer(const Decision& d, const ControlDropped& c, const ControlRequest* r,
                   const char* status, const std::string& rule, const std::string& reason,
                   TimeMs now) {
  if (c.name.size() > kMaxAnsweredName) return "";
  json::Object a{{"hangar", 1},
                 {"name", Shown(c.name)},
                 {"request", r ? json::Value(ControlKindName(r->kind)) : json::Value(nullptr)},
                 {"status", status},
                 {"rule", rule.empty() ? json::Value(nullptr) : json::Value(rule)},
                 {"reason", reason.empty() ? json::Value(nullptr) : json::Value(reason)},
                 {"effect", d.effect.empty() ? json::Value(nullptr) : json::Value(d.effect)},
                 {"ledger_seq", d.st.ledger_seq},
                 {"request_sha256", Sha256Hex(c.bytes)},
                 {"time", FormatTime(now)}};
  PutDropper(a, c.by);
  return Text(json::Value(std::move(a)));
}

// Each returns why the request is refused, or "" once it is recorded and carried out.
// A cold mission's return names its drone, requester and deadline and reaches its notify_dir as
// any other's: from the mission.json the shell read with the request, when those are the bytes
// taken in (else the return says what the kernel knows without them).
std::string Cancel(Decision& d, const ControlRequest& r, const std::optional<std::string>& bytes,
                   TimeMs now) {
  const std::string& id = r.id;
  auto it = d.st.missions.find(id);
  if (it == d.st.missions.end()) return "cancel: no mission " + id;
  MissionRec& rec = it->second;
  if (rec.cold && bytes && Sha256Hex(*bytes) == rec.sha256)
    d.TakeMission(id, rec, rec.phase, *bytes, {}, "with the cancel");
  const bool unrun = rec.phase == Phase::kHold || rec.phase == Phase::kQueued;
  const bool kill = rec.phase == Phase::kRunning && !rec.exited;
  d.effect = unrun ? "returned" : kill ? "kill" : "none";
  d.Ledger("mission.cancel", d.Asked({{"id", id}, {"effect", d.effect}}), now);
  if (unrun) {  // [CancelUnrun]
    const Phase from = rec.phase;
    if (from == Phase::kQueued) d.Unqueue(id);
    d.Finish(id, rec, from,
             BuildUnrunReturn(id, rec, "cancelled", "cancelled on request before it ran",
                              d.setup.config.limits, d.NextSeq(), now),
             now);
  } else if (kill) {  // [CancelRunning]
    d.out.push_back(Kill{id});
    d.Log(id + " running: cancel requested, stopping the drone");
  } else {
    d.Log(id + " already " + std::string(PhaseName(rec.phase)) +
          (rec.exited ? " (drone ended)" : "") + ": cancel has nothing to stop");
  }
  return "";
}

// approve or deny a held mission: a person's decision, recorded before it takes effect.
std::string ApproveOrDeny(Decision& d, const ControlRequest& r, TimeMs now) {
  const char* verb = ControlKindName(r.kind);
  auto it = d.st.missions.find(r.id);
  if (it == d.st.missions.end()) return std::string(verb) + ": no mission " + r.id;
  MissionRec& rec = it->second;
  if (rec.phase != Phase::kHold)
    return std::string(verb) + ": mission " + r.id + " is " + std::string(PhaseName(rec.phase)) +
           ", not held";
  if (r.kind == ControlKind::kApprove && !d.st.fail_closed.empty())
    return "approve: the ledger is failed closed (" + d.st.fail_closed +
           "); approvals wait for a reanchor";
  if (r.kind == ControlKind::kApprove) {  // [Approved]
    json::Object binds = d.Asked({{"id", r.id},
                                  {"by", r.principal.empty() ? d.asker.user : r.principal},
                                  {"why", r.why},
                                  {"mission_sha256", rec.sha256},
                                  {"plan_sha256", rec.approval.get().held_plan_sha256}});
    if (!r.principal.empty()) binds["signed_by"] = r.principal;
    const int64_t seq = d.Ledger("person.approved", binds, now);
    json::Object a = binds;
    a["hangar"] = 1;
    a["time"] = FormatTime(now);
    a["ledger_seq"] = seq;
    Approval& approval = rec.approval.mut();
    approval.approved_sha256 = rec.sha256;
    approval.approved_plan_sha256 = approval.held_plan_sha256;
    Move mv{r.id, Phase::kHold, Phase::kQueued, {}, std::nullopt};
    mv.files["approve.json"] = Text(json::Value(std::move(a)));
    d.out.push_back(std::move(mv));
    d.effect = "queued";
    d.Log(r.id + " hold -> queued (approved by " +
          (r.principal.empty() ? d.asker.user : r.principal + ", signed") + ")");
    rec.phase = Phase::kQueued;
    if (rec.mission) d.st.queue.push_back(r.id);
    d.Pump(now);
    return "";
  }
  // [Denied]
  const int64_t seq =
      d.Ledger("person.denied", d.Asked({{"id", r.id}, {"by", d.asker.user}, {"why", r.why}}), now);
  json::Value why = Why(r.id, "", "denied by a person: " + r.why, now);
  why["by"] = d.asker.user;
  if (!d.claimed.empty()) why["claimed_by"] = d.claimed;
  d.effect = "denied";
  why["ledger_seq"] = seq;
  Move mv{r.id, Phase::kHold, Phase::kDenied, {}, std::nullopt};
  mv.files["why.json"] = Text(why);
  d.out.push_back(std::move(mv));
  d.Log(r.id + " hold -> denied (" + r.why + ")");
  rec.phase = Phase::kDenied;
  rec.mission.reset();
  return "";
}

// retry a returned mission whose attempt did not end normally: attempt N+1 under a new key, once
// nothing of attempt N may still be alive (man/hangar-spool.5 "RETRY").
std::string RetryMission(Decision& d, const ControlRequest& r,
                         const std::optional<RetryFacts>& facts, TimeMs now) {
  const std::string& id = r.id;
  auto it = d.st.missions.find(id);
  if (it == d.st.missions.end()) return "retry: no mission " + id;
  MissionRec& rec = it->second;
  if (rec.purged)
    return "retry: mission " + id +
           " was purged (its files are gone; submit it again under a new id)";
  if (rec.phase != Phase::kReturned)
    return "retry: mission " + id + " is " + std::string(PhaseName(rec.phase)) + ", not returned" +
           (rec.phase == Phase::kRunning ? " (its attempt has not ended)" : "");
  if (!facts) return "retry: nothing was read of returned/" + id;
  const RetryFacts& f = *facts;
  if (!f.read_error.empty()) return "retry: " + f.read_error;
  const int previous = std::max(rec.attempt, f.attempt);
  // [RetryRefused]: done, cancelled before it ran, or attempt N may be alive
  if (std::string why = RetryOutcomeRefusal(f.outcome, f.ran, previous); !why.empty())
    return "retry: mission " + id + ": " + why;
  if (!f.alive.empty())
    return "retry: attempt " + std::to_string(previous) + " of " + id +
           " may still be alive: " + f.alive;
  if (!d.st.fail_closed.empty())
    return "retry: the ledger is failed closed (" + d.st.fail_closed +
           "); retries wait for a reanchor";
  MissionOrError parsed = ParseMission(f.mission_bytes);
  if (auto* e = std::get_if<ParseError>(&parsed))
    return "retry: returned/" + id + "/mission.json: " + e->Text();
  const std::string sha = Sha256Hex(f.mission_bytes);
  if (!f.intake_sha256.empty() && sha != f.intake_sha256)
    return "retry: returned/" + id + "/mission.json changed after intake (sha256 " + sha +
           ", taken in as " + f.intake_sha256 + "); submit it again to have it judged";
  // [RetryAllowed]
  const int64_t seq = d.Ledger("mission.retry",
                               d.Asked({{"id", id},
                                        {"by", d.asker.user},
                                        {"previous", previous},
                                        {"previous_outcome", f.outcome},
                                        {"attempt", previous + 1},
                                        {"key", LaunchKeyName(id, previous + 1)},
                                        {"mission_sha256", sha}}),
                               now);
  Retry rt{id, previous, {}};
  rt.files["retry.json"] = RetryRecordText({id, d.asker.user, f.outcome, previous, seq, now});
  d.effect = "queued (attempt " + std::to_string(previous + 1) + ")";
  d.out.push_back(std::move(rt));
  d.Log(id + " returned -> queued (retry by " + d.asker.user + ": attempt " +
        std::to_string(previous) + " " + f.outcome + ", attempt " + std::to_string(previous + 1) +
        " next)");
  // A fresh attempt: nothing of the last one's end carries over, nor an approval of its plan.
  MissionRec next = NewRec(Phase::kQueued, f.accepted ? f.accepted : rec.accepted);
  Mission m = std::get<Mission>(std::move(parsed));
  ApplyProfileDefaults(&m, d.setup.config);
  m.id = id;
  next.mission = std::make_shared<const Mission>(std::move(m));
  next.attempt = previous;
  next.sha256 = sha;
  next.resolved = f.resolved;
  next.owner = rec.owner.uid >= 0 ? rec.owner : Dropper{f.owner_uid, f.owner_user};
  rec = std::move(next);
  d.st.queue.push_back(id);
  d.Pump(now);
  return "";
}

// [GrantOrRevoke]
std::string GrantOrRevoke(Decision& d, const ControlRequest& r, TimeMs now) {
  const bool grant = r.kind == ControlKind::kGrant;
  if (grant && !d.st.fail_closed.empty())
    return "grant: the ledger is failed closed (" + d.st.fail_closed +
           "); grants wait for a reanchor";
  if (grant && r.until && *r.until <= std::max(now, d.st.ledger_time))
    return "until: " + FormatTime(*r.until) + " is past";
  json::Object body = d.Asked({{"op", r.op}, {"by", d.asker.user}});
  if (!r.mission.empty()) body["mission"] = r.mission;
  if (!r.requester.empty()) body["requester"] = r.requester;
  if (grant) body["until"] = r.until ? json::Value(FormatTime(*r.until)) : json::Value(nullptr);
  GrantRecord e{0, grant ? "grant" : "revoke", body};
  e.seq = d.Ledger(e.kind, std::move(body), now);
  (void)d.st.grants.Apply(e);  // the kernel's own well-formed body: it always applies
  d.effect = grant ? "granted" : "revoked";
  d.Log(std::string(grant ? "granted " : "revoked ") + r.op + " for " +
        (r.mission.empty() ? "requester " + r.requester : "mission " + r.mission));
  return "";
}

// [Reanchor]
std::string Reanchor(Decision& d, const ControlRequest& r, TimeMs now) {
  if (d.st.fail_closed.empty())
    return "reanchor: the ledger is not failed closed; there is nothing to reanchor";
  // After a rollback, what waited at the start on the restored spool may have launched after
  // the backup was taken: returned lost, never launched by the reanchor.
  std::vector<std::string> unproven;
  if (d.st.rolled_back)
    for (const auto& [id, rec] : d.st.missions)
      if (rec.unproven && (rec.phase == Phase::kHold || rec.phase == Phase::kQueued))
        unproven.push_back(id);
  json::Object body =
      d.Asked({{"why", r.why}, {"by", d.asker.user}, {"failure", d.st.fail_closed}});
  if (d.st.rolled_back) body["returned_lost"] = json::Array(unproven.begin(), unproven.end());
  if (!d.st.unvouched_grants.empty())
    body["void"] = json::Array(d.st.unvouched_grants.begin(), d.st.unvouched_grants.end());
  // The kernel's own well-formed body: it always applies.
  (void)d.st.grants.Apply(GrantRecord{0, "ledger.reanchor", body});
  d.st.unvouched_grants.clear();
  d.Ledger("ledger.reanchor", std::move(body), now, /*new_epoch=*/true);
  for (const std::string& id : unproven) {  // [ReanchorReturnsUnproven]
    MissionRec& rec = d.st.missions[id];
    const Phase from = rec.phase;
    if (from == Phase::kQueued) d.Unqueue(id);
    rec.lost = true;
    d.Finish(id, rec, from,
             BuildUnrunReturn(id, rec, "lost",
                              "the spool was restored from a backup older than its ledger's "
                              "anchor, and this mission waited in it: whether it was launched "
                              "after the backup cannot be ruled out, so it is not launched again "
                              "by itself (`hangar retry " +
                                  id + "` launches it, knowingly)",
                              d.setup.config.limits, d.NextSeq(), now),
             now);
  }
  d.effect = "reanchored";
  d.Log("ledger reanchored (" + r.why + "): a new epoch starts; launches resume" +
        (unproven.empty() ? std::string()
                          : "; " + std::to_string(unproven.size()) +
                                " missions found on the restored spool returned lost"));
  d.st.fail_closed.clear();
  d.st.rolled_back = false;
  d.Pump(now);
  return "";
}

}  // namespace

void On(Decision& d, const ControlDropped& c) {
  const std::string shown = Shown(c.name);
  d.asker = c.by;
  d.claimed.clear();
  d.effect.clear();
  const ControlRequest* req = nullptr;
  // [ControlRefused]
  auto bad = [&](const std::string& rule, const std::string& why) {
    const std::string bad_name = "request." + d.FreshId(c.now);
    json::Object body{{"name", shown}, {"kept_as", bad_name}, {"rule", rule}, {"reason", why}};
    if (req) body["request"] = ControlKindName(req->kind);
    const int64_t seq = d.Ledger("control.refused", d.Asked(std::move(body)), c.now);
    json::Value w = Why("", "", why, c.now);
    w["name"] = shown;
    w["rule"] = rule;
    w["ledger_seq"] = seq;
    const bool invalid = rule == "control.invalid";
    d.out.push_back(
        ConsumeControl{c.name, true, bad_name, Text(w),
                       Answer(d, c, req, invalid ? "invalid" : "refused", rule, why, c.now)});
    d.Log("control " + shown + " refused (" + rule + ", kept as control/bad/" + bad_name +
          "): " + why);
  };
  if (!c.read_error.empty()) return bad("control.invalid", c.read_error);
  auto parsed = ParseControl(c.bytes);
  if (auto* e = std::get_if<ParseError>(&parsed)) return bad("control.invalid", e->Text());
  const ControlRequest& r = std::get<ControlRequest>(parsed);
  req = &r;
  d.claimed = r.by;
  if (auto no = Refusal(d, r, c)) return bad(no->first, no->second);
  std::string refused;
  switch (r.kind) {
    case ControlKind::kCancel:
      refused = Cancel(d, r, c.cancel_mission, c.now);
      break;
    case ControlKind::kApprove:
    case ControlKind::kDeny:
      refused = ApproveOrDeny(d, r, c.now);
      break;
    case ControlKind::kGrant:
    case ControlKind::kRevoke:
      refused = GrantOrRevoke(d, r, c.now);
      break;
    case ControlKind::kReanchor:
      refused = Reanchor(d, r, c.now);
      break;
    case ControlKind::kRetry:
      refused = RetryMission(d, r, c.retry, c.now);
      break;
    case ControlKind::kMemory:
      refused = StoreMemory(d, r, c);
      break;
    case ControlKind::kPurge:
      refused = PurgeMissions(d, r, c.now);
      break;
    case ControlKind::kReleaseCanary:
      refused = ReleaseCanary(d, r, c.now);
      break;
  }
  if (!refused.empty()) return bad("control.invalid", refused);
  d.out.push_back(ConsumeControl{c.name, false, "", "", Answer(d, c, &r, "done", "", "", c.now)});
}

}  // namespace hangar::decide
