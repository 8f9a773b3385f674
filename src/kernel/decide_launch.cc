// The launch queue and a mission's end: queued missions launch through gate 2 while a slot is
// free; a failed launch, the drone's end, a vanished supervisor and the observation of the room
// each move the mission on, until it is returned.
#include <algorithm>

#include "base/sha256.h"
#include "kernel/decision.h"
#include "kernel/path_norm.h"
#include "kernel/prompt.h"
#include "kernel/return_record.h"

namespace hangar::decide {

void Decision::Pump(TimeMs now) {
  CanarySpans(now);
  while (st.ready && st.fail_closed.empty() && !st.clock_behind &&
         st.running < setup.config.slots && !st.queue.empty()) {
    const std::string id = st.queue.front();
    MissionRec& rec = st.missions[id];
    if (rec.phase == Phase::kQueued && rec.cold) break;  // launches wait for its Warmed
    st.queue.pop_front();
    if (rec.phase != Phase::kQueued || !rec.mission) continue;
    const Mission& m = *rec.mission;
    auto p = setup.config.profiles.find(m.drone);
    if (p == setup.config.profiles.end()) {  // [QueuedProfileGone]
      const std::string reason =
          "no drone profile named \"" + m.drone + "\" in " + setup.config.file;
      const int64_t seq = Ledger("mission.denied",
                                 {{"id", id},
                                  {"stage", 2},
                                  {"verdict", "deny"},
                                  {"rules", json::Array{}},
                                  {"reason", reason}},
                                 now);
      Move mv{id, Phase::kQueued, Phase::kDenied, {}, std::nullopt};
      mv.files["why.json"] = FileText([&] {
        json::Value why = Why(id, "drone", reason, now);
        why["ledger_seq"] = seq;
        return Text(why);
      });
      out.push_back(std::move(mv));
      Log(id + " queued -> denied (profile " + m.drone + " gone from the config)");
      rec.phase = Phase::kDenied;
      rec.mission.reset();
      continue;
    }
    const CanaryTurn turn = CanaryTurnOf(id, p->second);
    if (turn == CanaryTurn::kWait) {  // [CanaryWaits]
      st.canary_held[m.drone].push_back(id);
      Log(id + " waits for the canary of profile " + m.drone);
      continue;
    }
    const int attempt = rec.attempt + 1;
    const GateSite site = setup.Site();
    const Layout at = setup.Places();
    PlanPlaces where{at.Room(id),
                     at.RunDir(id),
                     setup.bindir,
                     setup.config.kill_grace_s,
                     site.bwrap,
                     setup.Hidden(),
                     WritablePaths(m, site, rec.resolved),
                     setup.config.launchers,
                     setup.config.limits,
                     setup.drone_uid,
                     setup.drone_gid,
                     setup.socat,
                     WorkspaceOf(m, rec.resolved),
                     setup.landlock_abi};
    Plan plan = BuildPlan(m, p->second, where, attempt);
    std::string plan_text = plan.Text();
    GateResult g = GateStage2(m, plan, setup.policy, site, rec.resolved, &p->second);
    const std::string plan_sha = Sha256Hex(plan_text);
    // [QueuedApprovedPlan] A hold a person approved for exactly this mission and plan is passed.
    if (const Approval& a = rec.approval.get();
        g.verdict == Verdict::kHold && !a.approved_plan_sha256.empty() &&
        a.approved_plan_sha256 == plan_sha && a.approved_sha256 == rec.sha256) {
      g.verdict = Verdict::kAllow;
      g.rules.push_back("approved");
      g.reason = "held, and approved by a person for this mission and plan";
    }
    json::Object body = GateBody(id, 2, g);
    body["plan_sha256"] = plan_sha;
    if (g.verdict == Verdict::kAllow) {
      body["attempt"] = attempt;
      body["key"] = LaunchKeyName(id, attempt);
      body["profile_sha256"] = p->second.sha256;
    }
    if (plan.workspace) body["commit"] = plan.workspace->commit;
    const int64_t seq = Ledger(g.verdict == Verdict::kAllow  ? "mission.launched"
                               : g.verdict == Verdict::kHold ? "mission.held"
                                                             : "mission.denied",
                               std::move(body), now);
    std::string g2 = FileText([&] { return g.Text(2, now, seq, plan_sha); });
    if (g.verdict == Verdict::kAllow) {                                     // [QueuedLaunched]
      if (turn == CanaryTurn::kCanary) CanaryLaunched(id, p->second, now);  // [CanaryLaunched]
      rec.attempt = attempt;
      rec.profile_sha256 = p->second.sha256;
      rec.phase = Phase::kRunning;
      st.running++;
      out.push_back(Launch{id, attempt, std::move(plan), std::move(plan_text), std::move(g2),
                           FileText([&] { return RenderPrompt(m); }), plan_sha, seq});
      Log(id + " queued -> running");
      continue;
    }
    // [QueuedHeldOrDenied]
    Phase to = g.verdict == Verdict::kHold ? Phase::kHold : Phase::kDenied;
    Move mv{id, Phase::kQueued, to, {}, std::nullopt};
    mv.files["gate2.json"] = std::move(g2);
    if (to == Phase::kHold) mv.notify_dir = m.notify_dir;
    if (to == Phase::kDenied)
      mv.files["why.json"] = FileText([&] {
        json::Value why = Why(id, "", "gate stage 2: " + g.reason, now);
        why["ledger_seq"] = seq;
        return Text(why);
      });
    out.push_back(std::move(mv));
    Log(id + " queued -> " + std::string(PhaseName(to)) + " (gate stage 2: " + g.reason + ")");
    rec.phase = to;
    if (to == Phase::kDenied) rec.mission.reset();
    if (to == Phase::kHold) rec.approval.mut().held_plan_sha256 = plan_sha;
  }
  WarmAhead();
}

void Decision::Finish(const std::string& id, MissionRec& rec, Phase from, Returned ret,
                      TimeMs now) {
  const std::string& outcome = ret.outcome;
  Ledger("mission.returned", {{"id", id}, {"outcome", outcome}, {"sha256", Sha256Hex(ret.text)}},
         now);
  CanaryEnded(id, rec, outcome, now);
  Move mv{id, from, Phase::kReturned, {}, std::nullopt};
  mv.files["return.json"] = std::move(ret.text);
  if (rec.mission) mv.notify_dir = rec.mission->notify_dir;
  out.push_back(std::move(mv));
  Log(id + " " + std::string(PhaseName(from)) + " -> returned (" + outcome + ")");
  rec.phase = Phase::kReturned;
  rec.mission.reset();
  rec.cold = rec.warming = false;  // out of the queue for good
}

void Decision::EndDrone(const std::string& id, MissionRec& rec, TimeMs now) {
  rec.exited = true;
  st.running--;
  if (rec.ops.get().running.empty()) {
    EmitObserve(id, rec);
  } else {
    rec.observe_waits = true;  // its room is looked at once the acts it asked for are over
    Log(id + " observed once its " + std::to_string(rec.ops.get().running.size()) + " running op" +
        (rec.ops.get().running.size() == 1 ? "" : "s") + " end");
  }
  Pump(now);
}

void Decision::EmitObserve(const std::string& id, const MissionRec& rec) {
  Observe ob;
  ob.id = id;
  const Layout at = setup.Places();
  ob.room = at.Room(id);
  ob.run = at.RunDir(id);
  ob.mission_ops = at.MissionOps(id);
  ob.check_sandbox = {setup.bwrap,     setup.bindir + "/hangar-confine",
                      setup.Hidden(),  setup.config.limits,
                      setup.drone_uid, setup.drone_gid};
  if (rec.mission) {
    ob.checks = rec.mission->done_when;
    ob.egress = rec.mission->network == "egress";
    auto p = setup.config.profiles.find(rec.mission->drone);
    if (p != setup.config.profiles.end() && !p->second.last_message.empty())
      ob.last_message =
          ExpandTemplate(p->second.last_message, TemplateVars(id, ob.room, ob.run, setup.bindir));
    if (p != setup.config.profiles.end()) {
      ob.harness = p->second.harness;
      ob.stdout_file = p->second.stdout_file;
      ob.check_sandbox.namespaces = p->second.sandbox == "namespaces";
    }
    ob.workspace = WorkspaceOf(*rec.mission, rec.resolved);
    if (ob.workspace && p != setup.config.profiles.end()) {
      // What hangar put in the room is no part of the change.
      ob.room_own = RoomOwn(
          ob.room, p->second.prompt == PromptVia::kFile || p->second.prompt == PromptVia::kBoth,
          p->second.room_dirs, ob.last_message);
    }
  }
  ob.check_env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                  {"HOME", ob.room},
                  {"LANG", "C.UTF-8"},
                  {"HANGAR_MISSION", id}};
  out.push_back(std::move(ob));
}

MissionRec* Decision::Running(const std::string& id, bool ended) {
  auto it = st.missions.find(id);
  if (it == st.missions.end() || it->second.phase != Phase::kRunning || it->second.exited != ended)
    return nullptr;
  return &it->second;
}

void On(Decision& d, const LaunchDone& l) {
  auto it = d.st.missions.find(l.id);
  if (it == d.st.missions.end() || it->second.phase != Phase::kRunning) return;
  MissionRec& rec = it->second;
  if (l.ok) {
    d.Log(l.id + " launched (attempt " + std::to_string(rec.attempt) + ")");
    return;
  }
  if (rec.exited) {  // [LaunchFailedAfterEnd] the end was seen first (a launch off the loop)
    d.Log(l.id + " launch reported failed (" + l.error +
          ") after its drone's end was seen: the end stands");
    return;
  }
  d.st.running--;
  // [LaunchFailedRunning] [LaunchFailedBeforeKey]: from running/ or queued/, as in_running says
  const Phase from = l.in_running ? Phase::kRunning : Phase::kQueued;
  if (l.key_existed) {  // [LaunchKeyExisted]
    // The key says an attempt may have run: never launch it again by ourselves.
    rec.lost = true;
    rec.error = "launch key " + l.error + " already exists";
  } else {
    rec.error = "launch failed: " + l.error;
  }
  d.Finish(l.id, rec, from,
           BuildReturn(l.id, rec, nullptr, d.setup.config.limits, d.NextSeq(), l.now), l.now);
  d.Pump(l.now);
}

// [DroneExited]
void On(Decision& d, const DroneExited& e) {
  MissionRec* rec = d.Running(e.id, false);
  if (!rec) return;
  rec->exit = e.exit;
  d.Log(e.id + " drone ended (" +
        (e.exit.rc       ? "rc " + std::to_string(*e.exit.rc)
         : e.exit.signal ? "signal " + std::to_string(*e.exit.signal)
                         : "not started") +
        (e.exit.timed_out ? ", deadline fired" : "") + (e.exit.cancelled ? ", cancelled" : "") +
        ")");
  d.EndDrone(e.id, *rec, e.now);
}

// [SupervisorGone]
void On(Decision& d, const SupervisorGone& g) {
  MissionRec* rec = d.Running(g.id, false);
  if (!rec) return;
  rec->lost = true;
  d.Log(g.id + " lost: its supervisor is gone and left no exit record");
  d.EndDrone(g.id, *rec, g.now);
}

// [Observed]
void On(Decision& d, const Observed& o) {
  MissionRec* rec = d.Running(o.id, true);
  if (!rec) return;
  d.Finish(o.id, *rec, Phase::kRunning,
           BuildReturn(o.id, *rec, &o.obs, d.setup.config.limits, d.NextSeq(), o.now), o.now);
  d.Pump(o.now);  // a canary that returned done lets its profile's others go
}

}  // namespace hangar::decide
