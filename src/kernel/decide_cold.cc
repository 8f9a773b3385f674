// The cold queue: a queued mission beyond the first config.queue_warm of the queue is held as a
// small record (its id, intake time, the sha256 of the bytes taken in, who dropped it, its
// attempt and approval), not as a parsed mission. When it nears the head the shell reads its
// mission.json again (Warm, then Warmed) and the kernel takes it back only if those are the bytes
// taken in. A deep queue then costs hangard a few hundred bytes a mission, and its start reads one
// small file of each (man/hangar.conf.5, queue_warm).
#include "base/sha256.h"
#include "kernel/decision.h"

namespace hangar::decide {

namespace {
constexpr char kReadAgain[] = "when read again near the head of the queue";
}  // namespace

void Decision::WarmAhead() {
  Warm w;
  size_t seen = 0;
  for (const std::string& id : st.queue) {
    if (seen++ >= size_t(setup.config.queue_warm)) break;
    auto it = st.missions.find(id);
    if (it == st.missions.end() || !it->second.cold || it->second.warming) continue;
    it->second.warming = true;  // [WarmAhead]
    w.ids.push_back(id);
  }
  if (w.ids.empty()) return;
  Log("reading again the mission" + std::string(w.ids.size() == 1 ? " " : "s ") + w.ids.front() +
      (w.ids.size() == 1 ? "" : " and " + std::to_string(w.ids.size() - 1) + " more") +
      ", near the head of the queue");
  out.push_back(std::move(w));
}

void Decision::Cool(MissionRec& rec) {
  rec.mission.reset();
  rec.resolved.clear();
  rec.cold = true;
  rec.warming = false;
}

void Decision::TakeMission(const std::string& id, MissionRec& rec, Phase from,
                           const std::string& bytes, const ResolvedWrites& resolved,
                           const char* when) {
  MissionOrError parsed = ParseMission(bytes);
  if (auto* m = std::get_if<Mission>(&parsed)) {
    ApplyProfileDefaults(m, setup.config);
    m->id = id;
    rec.mission = std::make_shared<const Mission>(std::move(*m));
    rec.resolved = resolved;
    return;
  }
  rec.error =
      "mission.json unreadable " + std::string(when) + ": " + std::get<ParseError>(parsed).Text();
  Log(id + " in " + std::string(PhaseName(from)) + ": " + rec.error);
}

void Decision::HoldChanged(const std::string& id, MissionRec& rec, Phase from,
                           const std::string& found, const std::string& taken, TimeMs now) {
  const std::string reason = "mission.json changed after intake (sha256 " + found +
                             ", taken in as " + taken + "); a person must look again";
  GateResult g;
  g.Fire(Verdict::kHold, "mission.changed", reason);
  json::Object body = GateBody(id, 1, g);
  body["sha256"] = found;
  body["intake_sha256"] = taken;
  const int64_t seq = Ledger("mission.held", std::move(body), now);
  Move mv{id, from, Phase::kHold, {}, rec.mission ? rec.mission->notify_dir : std::nullopt};
  mv.files["gate1.json"] = g.Text(1, now, seq);
  out.push_back(std::move(mv));
  Log(id + " " + std::string(PhaseName(from)) + " -> hold (" + reason + ")");
  rec.phase = Phase::kHold;
  rec.approval.reset();
}

// [RecoveredCold] Each known id stands as found first ([RecoveredTwice]); the others join the
// queue's back in the order given, cold.
void On(Decision& d, const RecoveredCold& c) {
  for (const ColdFound& f : c.missions) {
    if (auto known = d.st.missions.find(f.id); known != d.st.missions.end()) {
      d.Log(f.id + " is also in queued/ (a copied spool?): left alone; the mission is the one in " +
            std::string(PhaseName(known->second.phase)) + "/");
      continue;
    }
    MissionRec rec = NewRec(Phase::kQueued, f.accepted);
    rec.attempt = f.attempt;
    rec.owner = f.by;
    rec.sha256 = f.intake_sha256;
    if (!f.approved_sha256.empty() || !f.approved_plan_sha256.empty())
      rec.approval = Approval{"", f.approved_sha256, f.approved_plan_sha256};
    rec.unproven = d.st.rolled_back;
    rec.cold = true;
    d.st.missions[f.id] = std::move(rec);
    d.st.queue.push_back(f.id);
  }
  d.Pump(c.now);
}

void On(Decision& d, const Warmed& w) {
  auto it = d.st.missions.find(w.id);
  if (it == d.st.missions.end() || it->second.phase != Phase::kQueued || !it->second.cold) {
    d.Log(w.id + ": read again, but no longer a cold mission of the queue; nothing to do");
    d.Pump(w.now);
    return;
  }
  MissionRec& rec = it->second;
  rec.cold = false;
  rec.warming = false;
  if (w.read_error.empty())
    d.TakeMission(w.id, rec, Phase::kQueued, w.bytes, w.resolved, kReadAgain);
  if (!rec.mission) {  // [WarmedUnreadable]
    if (!w.read_error.empty()) {
      rec.error = "mission.json unreadable " + std::string(kReadAgain) + ": " + w.read_error;
      d.Log(w.id + " in queued: " + rec.error);
    }
    d.Unqueue(w.id);
    d.Pump(w.now);
    return;
  }
  if (const std::string found = Sha256Hex(w.bytes); found != rec.sha256) {  // [WarmedChanged]
    d.Unqueue(w.id);
    const std::string taken = rec.sha256;
    rec.sha256 = found;
    d.HoldChanged(w.id, rec, Phase::kQueued, found, taken, w.now);
  } else {  // [Warmed]
    d.Log(w.id + " read again: the bytes taken in");
  }
  d.Pump(w.now);
}

}  // namespace hangar::decide
