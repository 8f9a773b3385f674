// Recovery: what hangard finds in the spool at start becomes the kernel's state again; Ready lets
// launches begin; a ledger that failed verification closes the kernel.
#include "base/sha256.h"
#include "kernel/decision.h"

namespace hangar::decide {

void On(Decision& d, const Recovered& r) {
  // [RecoveredTwice] Renames are atomic, so only a copy of a live spool (rsync of a running
  // hangard's) holds a mission in two state directories. The one found first stands (recovery hands
  // them over terminal first, then running, hold, queued: the furthest it got); the other is left
  // alone.
  if (auto known = d.st.missions.find(r.id); known != d.st.missions.end()) {
    d.Log(r.id + " is also in " + std::string(PhaseName(r.phase)) +
          "/ (a copied spool?): left "
          "alone; the mission is the one in " +
          std::string(PhaseName(known->second.phase)) + "/");
    return;
  }
  if (r.purged) {  // [RecoveredPurged] a tombstone: the id stays taken, nothing else of it lives
    d.st.missions[r.id] = PurgedRec(r.phase, r.accepted, r.attempt, r.by);
    return;
  }
  // [RecoveredAsFound]
  MissionRec rec = NewRec(r.phase, r.accepted);
  rec.attempt = r.attempt;
  if (!r.held_plan_sha256.empty() || !r.approved_sha256.empty() || !r.approved_plan_sha256.empty())
    rec.approval = Approval{r.held_plan_sha256, r.approved_sha256, r.approved_plan_sha256};
  rec.owner = r.by;
  rec.unproven = d.st.rolled_back && (r.phase == Phase::kHold || r.phase == Phase::kQueued);
  if (r.phase == Phase::kHold || r.phase == Phase::kQueued || r.phase == Phase::kRunning) {
    rec.sha256 = Sha256Hex(r.mission_bytes);
    d.TakeMission(r.id, rec, r.phase, r.mission_bytes, r.resolved, "at recovery");
  }
  // [RecoveredChanged] A mission file changed in the spool after intake is not what was judged or
  // approved: it waits for a person again, and no earlier approval carries over to it.
  if ((r.phase == Phase::kQueued || r.phase == Phase::kHold) && rec.mission &&
      !r.intake_sha256.empty() && rec.sha256 != r.intake_sha256)
    d.HoldChanged(r.id, rec, r.phase, rec.sha256, r.intake_sha256, r.now);
  const bool queue = rec.phase == Phase::kQueued && rec.mission;
  d.st.missions[r.id] = std::move(rec);
  if (queue) d.st.queue.push_back(r.id);
  if (r.phase == Phase::kRunning) {
    d.st.running++;
    if (r.exit) {
      On(d, DroneExited{r.id, *r.exit, r.now});
      return;
    }
    if (!r.supervisor_alive) {
      On(d, SupervisorGone{r.id, r.now});
      return;
    }
    d.Log(r.id + " running: supervisor alive, re-attached");
  }
  d.Pump(r.now);
}

// [RecoveredEnded] Each as the Recovered it stands for, in the order found.
void On(Decision& d, const RecoveredEnded& e) {
  for (const EndedFound& m : e.missions) {
    Recovered r;
    r.id = m.id;
    r.phase = m.phase;
    r.accepted = m.accepted;
    r.attempt = m.attempt;
    r.by = m.by;
    r.purged = m.purged;
    r.now = e.now;
    On(d, r);
  }
}

// [LedgerFailed]
void On(Decision& d, const LedgerFailed& f) {
  if (f.rolled_back) d.st.rolled_back = true;
  d.st.unvouched_grants.insert(d.st.unvouched_grants.end(), f.unvouched_grants.begin(),
                               f.unvouched_grants.end());
  if (!d.st.fail_closed.empty()) return;  // already closed: the first reason stands
  d.st.fail_closed = f.reason;
  d.Ledger("ledger.fail-closed", {{"reason", f.reason}, {"rolled_back", f.rolled_back}}, f.now);
  d.Log("FAIL-CLOSED: " + f.reason + "; no launch or grant until `hangar ledger reanchor`");
}

// [Ready]
void On(Decision& d, const Ready& r) {
  d.st.ready = true;
  d.Pump(r.now);
}

}  // namespace hangar::decide
