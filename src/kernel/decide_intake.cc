// Intake: a file dropped in incoming/new becomes a mission (queued, held or denied by gate 1) or
// is rejected; an intake that could not be done for lack of space is forgotten.
#include <algorithm>

#include "base/id.h"
#include "base/pretty_writer.h"
#include "base/sha256.h"
#include "kernel/decision.h"

namespace hangar::decide {

namespace {

// The drop's sha256, null when it could not be read: what intake.json and the entry say.
json::Value DropSha256(const Dropped& drop) {
  return drop.read_error.empty() ? json::Value(Sha256Hex(drop.bytes)) : json::Value(nullptr);
}

// intake.json (man/hangar-spool.5), written straight (json::PrettyWriter). m: the mission as taken
// in, when it parsed; its drone and requester go into the record, so a reader listing thousands of
// missions (hangar ls) needs no second file of each. sha256: DropSha256(drop); seq: the entry's.
std::string IntakeText(const std::string& id, const Dropped& drop, const json::Value& sha256,
                       int64_t seq, const Mission* m = nullptr) {
  json::PrettyWriter w;
  w.Open().Key("bytes");
  drop.read_error.empty() ? w.Int(int64_t(drop.bytes.size())) : w.Null();
  if (m) w.Key("drone").Str(m->drone);
  w.Key("hangar").Int(1).Key("id").Str(id).Key("ledger_seq").Int(seq);
  w.Key("name").Str(Shown(drop.name));
  if (m) w.Key("requester").Str(m->requester);
  w.Key("sha256").Val(sha256).Key("time").Time(drop.now);
  w.Key("uid");
  drop.by.uid >= 0 ? w.Int(drop.by.uid) : w.Null();  // as PutDropper
  w.Key("user");
  drop.by.uid >= 0 ? w.Str(drop.by.user) : w.Null();
  // The commit is fixed here, once: a recovery or a retry reads it back (shell/workspace.h).
  if (m)
    if (std::optional<PlanWorkspace> ws = WorkspaceOf(*m, drop.resolved))
      w.Key("workspace").Val(ws->ToJson());
  w.Close();
  return w.Take();
}

void Reject(Decision& d, const Dropped& drop, const std::string& id, const std::string& field,
            const std::string& reason) {
  const json::Value sha256 = DropSha256(drop);
  json::Object body{{"id", id}, {"sha256", sha256}, {"field", field}, {"reason", reason}};
  PutDropper(body, drop.by);
  const int64_t seq = d.Ledger("mission.rejected", std::move(body), drop.now);
  Intake in;
  in.name = drop.name;
  in.id = id;
  in.to = Phase::kRejected;
  in.files["intake.json"] = d.FileText([&] { return IntakeText(id, drop, sha256, seq); });
  in.files["why.json"] = d.FileText([&] {
    json::Value why = Why(id, field, reason, drop.now);
    why["ledger_seq"] = seq;
    return Text(why);
  });
  d.out.push_back(std::move(in));
  d.st.missions[id] = NewRec(Phase::kRejected, drop.now);
  d.Log(id + " rejected: " + (field.empty() ? reason : field + ": " + reason));
}

// An id for a mission that could not be parsed: its own "id" when readable, valid and unused.
std::string RejectedId(Decision& d, const Dropped& drop) {
  if (drop.read_error.empty()) {
    Result<json::Value> v = json::Parse(drop.bytes);
    if (v.ok() && v->is_object())
      if (const json::Value* id = v->find("id");
          id && id->is_string() && ValidId(id->as_string()) && !d.Used(id->as_string()))
        return id->as_string();
  }
  std::string n = d.IdFromName(drop.name);
  return n.empty() ? d.FreshId(drop.now) : n;
}

}  // namespace

void On(Decision& d, const Dropped& drop) {
  // [DroppedInvalid]: unreadable, not a mission, or naming no profile of the config
  if (!drop.read_error.empty()) return Reject(d, drop, RejectedId(d, drop), "", drop.read_error);
  MissionOrError own;
  if (!drop.parsed) own = ParseMission(drop.bytes);
  const MissionOrError& parsed = drop.parsed ? *drop.parsed : own;
  if (auto* e = std::get_if<ParseError>(&parsed))
    return Reject(d, drop, RejectedId(d, drop), e->field, e->reason);
  Mission m = std::get<Mission>(parsed);
  ApplyProfileDefaults(&m, d.setup.config);
  if (!m.id.empty() && d.Used(m.id)) {  // [DroppedDuplicateId]
    const MissionRec& used = d.st.missions[m.id];
    std::string where(PhaseName(used.phase));
    return Reject(d, drop, d.FreshId(drop.now), "id",
                  used.purged
                      ? "duplicate: id " + m.id + " was used by a mission purged from " + where +
                            " (purged/" + m.id + ".json); ids are never reused"
                      : "duplicate: id " + m.id + " is already in the spool (" + where + ")");
  }
  if (!d.setup.config.profiles.count(m.drone)) {
    std::string known;
    for (const auto& [name, p] : d.setup.config.profiles)
      known += (known.empty() ? "" : ", ") + name;
    std::string id = m.id.empty() ? RejectedId(d, drop) : m.id;
    return Reject(d, drop, id, "drone",
                  "no drone profile named \"" + m.drone + "\" in " + d.setup.config.file +
                      " (known: " + known + ")");
  }
  if (m.id.empty()) {
    m.id = d.IdFromName(drop.name);
    if (m.id.empty()) m.id = d.FreshId(drop.now);
  }
  // [DroppedWorkspaceUnresolved]: no repository at workspace.git, or no commit named by its ref
  if (m.workspace) {
    auto r = drop.resolved.find(m.workspace->git);
    if (r == drop.resolved.end() || !r->second.git)
      return Reject(d, drop, m.id, "workspace", "the shell did not examine the repository");
    if (!r->second.git->error.empty())
      return Reject(d, drop, m.id, r->second.git->field, r->second.git->error);
  }
  // [DroppedAllowed] [DroppedHeldOrDenied]
  const GateSite site = d.setup.Site();
  GateResult g = GateStage1(m, d.setup.policy, d.setup.text_rules, site, drop.resolved);
  // [DroppedRequesterTaken]: a requester name is its first mission's uid's; grants to it and its
  // work states are that uid's, so another uid may not submit under it (an approver may).
  if (std::string why =
          RequesterTakenReason(d.st.requesters, d.setup.approvers, m.requester, drop.by.uid);
      !why.empty())
    g.Fire(Verdict::kDeny, "requester.owner", std::move(why));
  Phase to = g.verdict == Verdict::kAllow  ? Phase::kQueued
             : g.verdict == Verdict::kHold ? Phase::kHold
                                           : Phase::kDenied;
  const json::Value sha256 = DropSha256(drop);  // the drop was read: a string
  json::Object body = d.GateBody(m.id, 1, g);
  body["sha256"] = sha256;
  body["requester"] = m.requester;
  body["drone"] = m.drone;
  PutDropper(body, drop.by);
  // The first mission taken in under a name from a uid that is no approver makes it that uid's
  // (kernel/requesters.h); the entry says so, and a start folds it from there.
  const RequesterRec* named = d.st.requesters.Find(m.requester);
  // Not while failed closed: the book folded at that start may stop short of the ledger's end.
  const bool binds = to != Phase::kDenied && drop.by.uid >= 0 && d.st.fail_closed.empty() &&
                     !d.setup.approvers.count(drop.by.uid) && (!named || named->owner < 0);
  if (binds) body["owner"] = true;
  const int64_t seq = d.Ledger(to == Phase::kQueued ? "mission.accepted"
                               : to == Phase::kHold ? "mission.held"
                                                    : "mission.denied",
                               std::move(body), drop.now);
  if (binds) d.st.requesters.Bind(m.requester, drop.by.uid, drop.by.user, seq);
  Intake in;
  in.name = drop.name;
  in.id = m.id;
  in.to = to;
  in.files["intake.json"] = d.FileText([&] { return IntakeText(m.id, drop, sha256, seq, &m); });
  in.files["gate1.json"] = d.FileText([&] {
    const std::vector<std::string> writable = WritablePaths(m, site, drop.resolved);
    return g.Text(1, drop.now, seq, {}, m.writes.empty() ? nullptr : &writable);
  });
  if (to == Phase::kHold) in.notify_dir = m.notify_dir;
  if (to == Phase::kDenied)
    in.files["why.json"] = d.FileText([&] {
      json::Value why = Why(m.id, "", "gate stage 1: " + g.reason, drop.now);
      why["ledger_seq"] = seq;
      return Text(why);
    });
  d.out.push_back(std::move(in));
  MissionRec rec = NewRec(to, drop.now);
  if (to != Phase::kDenied) rec.mission = std::make_shared<const Mission>(m);
  rec.sha256 = sha256.as_string();
  rec.resolved = drop.resolved;
  rec.owner = drop.by;
  rec.unproven = d.st.rolled_back && drop.found_at_start && to != Phase::kDenied;
  const std::string id = m.id;
  MissionRec& kept = d.st.missions[id] = std::move(rec);
  if (to == Phase::kQueued) d.st.queue.push_back(id);
  d.Log(id + " accepted -> " + std::string(PhaseName(to)));
  d.Pump(drop.now);
  // [IntakeCold] Still at the queue's back, beyond its first queue_warm, once it has moved.
  if (kept.phase == Phase::kQueued && !d.st.queue.empty() && d.st.queue.back() == id &&
      d.st.queue.size() > size_t(d.setup.config.queue_warm))
    d.Cool(kept);
}

// [IntakeFailed] The intake decided for id was not done (no space): forget the mission, and the
// launch the same decision made of it (no supervisor started). Its drop waits in incoming/new.
void On(Decision& d, const IntakeFailed& f) {
  auto it = d.st.missions.find(f.id);
  if (it == d.st.missions.end() || it->second.phase == Phase::kReturned ||
      (it->second.phase == Phase::kRunning && (it->second.attempt != 1 || it->second.exited)))
    return;  // not a mission this intake made
  if (it->second.phase == Phase::kRunning) d.st.running--;
  d.Unqueue(f.id);
  // A canary forgotten tries nothing: what waited on it is judged again (one becomes the canary).
  if (const auto& m = it->second.mission)
    if (const ProfileCanary* c = d.st.canaries.Find(m->drone); c && c->id == f.id)
      d.Rejudge(m->drone, "its canary " + f.id + " is forgotten");
  d.st.missions.erase(it);
  const std::string shown = Shown(f.name);
  d.Ledger("mission.intake-failed", {{"id", f.id}, {"name", shown}, {"reason", f.reason}}, f.now);
  d.Log(f.id + " not taken in: " + f.reason + "; " + shown + " waits in incoming/new");
  d.Pump(f.now);
}

}  // namespace hangar::decide
