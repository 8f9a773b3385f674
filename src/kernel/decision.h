// One call of Decide (kernel/kernel.h): the setup it judges by, the state it changes, the actions
// it emits in order, and the helpers every part of a decision uses. Internal to the kernel.
//
// A signal is decided by one part, a free function over the Decision, one file per concern:
//   decide_intake.cc    Dropped, IntakeFailed
//   decide_recovery.cc  Recovered, Ready, LedgerFailed
//   decide_controls.cc  ControlDropped (cancel, approve, deny, retry, grant, revoke, reanchor)
//   decide_rights.cc    who may ask for which control request
//   decide_memory.cc    ControlDropped memory: a requester's work state stored
//   decide_purge.cc     ControlDropped purge: terminal missions' directories go, tombstones stay
//   decide_window.cc    OpRequested, OpFinished
//   decide_launch.cc    the launch queue with gate 2, LaunchDone, the drone's end, Observed
//   decide_canary.cc    a profile's canary: launched alone, passed, failed, released; Tick
//   decide_cold.cc      the cold queue: RecoveredCold, Warmed, Warm ahead of the launches
// kernel.cc dispatches a signal to its part. Each row of the state table in kernel.h is named in
// square brackets; the code that carries a row out is marked "// [Name]", and a test of the same
// name (TEST(KernelRow, Name)) covers it: kernel_table_test.cc holds the three together.
//
// Everything here is in namespace hangar::decide: internal to the kernel's parts.
//
// Thread: as Decide's; a Decision lives for one call.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernel/control.h"
#include "kernel/kernel.h"
#include "kernel/return_record.h"

namespace hangar::decide {

struct Decision {
  const KernelSetup& setup;
  State& st;
  std::vector<Action> out;
  // The control request being decided: who dropped it, the "by" it claimed, what it did.
  Dropper asker = {};
  std::string claimed = {};
  std::string effect = {};
  // The gate verdicts this decision reached, by mission (GateBody), kept in each MissionRec::gate
  // once the decision is over (the mission's record may be made after its verdict).
  std::map<std::string, std::string> gates = {};

  bool Used(const std::string& id) const { return st.missions.count(id) > 0; }
  // An id of the form COMPACT_TIME-NNNNNN that no mission has.
  std::string FreshId(TimeMs now);
  // NAME without a trailing ".json", when it is a valid unused id; else "".
  std::string IdFromName(const std::string& name) const;

  void Log(std::string line) { out.push_back(hangar::Log{std::move(line)}); }
  // TEXT(): a file's text, or "" when the setup leaves such texts out (KernelSetup::file_texts).
  template <class Text>
  std::string FileText(Text&& text) const {
    return setup.file_texts ? text() : std::string();
  }
  // Puts the ledger entry for a decision before the actions that carry it out; returns its seq.
  int64_t Ledger(std::string kind, json::Object body, TimeMs now, bool new_epoch = false);
  // A gate entry's body: id, stage, verdict, rules, reason and the policy's digest; the verdict
  // is noted in gates.
  json::Object GateBody(const std::string& id, int stage, const GateResult& g);
  // A control request's ledger body: BODY, who asked as the OS said, and the "by" the request
  // itself claimed (kept, never shown as who decided).
  json::Object Asked(json::Object body) const;

  // The launch queue and the end of a mission (decide_launch.cc).
  // Launches queued missions while a slot is free and nothing holds launches, through gate 2.
  void Pump(TimeMs now);
  // Records the return and moves the mission from FROM to returned with return.json RET, built
  // for the seq the return's ledger entry takes: NextSeq() just before (kernel/return_record.h).
  void Finish(const std::string& id, MissionRec& rec, Phase from, Returned ret, TimeMs now);
  int64_t NextSeq() const { return st.ledger_seq + 1; }
  // The drone is over (its exit known, or its supervisor gone): its slot frees, the kernel looks.
  void EndDrone(const std::string& id, MissionRec& rec, TimeMs now);
  // Observe the room, run and window of a mission whose drone ended.
  void EmitObserve(const std::string& id, const MissionRec& rec);
  // A running mission whose drone's end is (ended) or is not yet (!ended) known; else nullptr.
  MissionRec* Running(const std::string& id, bool ended);
  // Takes a queued mission out of the launch order (the queue, or its profile's canary wait).
  void Unqueue(const std::string& id);

  // The cold queue (decide_cold.cc).
  // Asks the shell (Warm) for the cold missions among the first config.queue_warm of the queue.
  void WarmAhead();
  // A queued mission beyond the first queue_warm of the queue is let go of its mission.
  void Cool(MissionRec& rec);
  // REC (in FROM) is given the mission in BYTES, as found in the spool: parsed with its
  // profile's defaults, or REC.error says why it could not be ("mission.json unreadable WHEN").
  void TakeMission(const std::string& id, MissionRec& rec, Phase from, const std::string& bytes,
                   const ResolvedWrites& resolved, const char* when);
  // [RecoveredChanged] [WarmedChanged] REC's mission.json (sha256 FOUND) is not the one taken in
  // (TAKEN): the mission moves from FROM to hold for a person, no earlier approval carrying over.
  void HoldChanged(const std::string& id, MissionRec& rec, Phase from, const std::string& found,
                   const std::string& taken, TimeMs now);

  // Canaries (decide_canary.cc, kernel/canary.h).
  enum class CanaryTurn { kGo, kCanary, kWait };
  // Whether queued mission ID of PROFILE launches as usual, as its profile's canary, or waits.
  CanaryTurn CanaryTurnOf(const std::string& id, const Profile& profile) const;
  // Records the canary's launch (after its mission.launched entry).
  void CanaryLaunched(const std::string& id, const Profile& profile, TimeMs now);
  // Passes every running canary that has run canary_s seconds by NOW.
  void CanarySpans(TimeMs now);
  // A mission of REC's profile returns with OUTCOME: a canary passes or fails by it; a done
  // mission proves a definition not proven before.
  void CanaryEnded(const std::string& id, const MissionRec& rec, const std::string& outcome,
                   TimeMs now);
  // SHA256 of PROFILE is proven: records KIND with BODY, and the missions that waited on the
  // profile's canary go back to the head of the queue.
  void CanaryProven(const std::string& kind, const std::string& profile, const std::string& sha256,
                    json::Object body, TimeMs now);
  // The missions that waited on PROFILE's canary go back to the head of the queue (WHY: the log's).
  void Rejudge(const std::string& profile, const std::string& why);
};

MissionRec NewRec(Phase p, TimeMs accepted);
// What the kernel keeps of a mission purged from terminal state P: its phase, intake time,
// attempts and owner, purged set; the same whether it was purged now or found as a tombstone.
MissionRec PurgedRec(Phase p, TimeMs accepted, int attempt, const Dropper& owner);
std::string Text(const json::Value& v);  // a mission file's text: pretty JSON
// why.json: what made the kernel reject, deny or refuse (FIELD empty when no one field did).
json::Value Why(const std::string& id, const std::string& field, const std::string& reason,
                TimeMs now);
// Who dropped a file, as the OS said: "uid" and "user" (null when unknown).
void PutDropper(json::Object& o, const Dropper& by);
// A dropped file's name as records show it: itself when UTF-8, else "(not UTF-8)".
std::string Shown(const std::string& name);

// The parts: each decides one signal.
void On(Decision& d, const Dropped& s);
void On(Decision& d, const IntakeFailed& s);
void On(Decision& d, const Recovered& s);
void On(Decision& d, const RecoveredEnded& s);
void On(Decision& d, const RecoveredCold& s);
void On(Decision& d, const Warmed& s);
void On(Decision& d, const Ready& s);
void On(Decision& d, const LedgerFailed& s);
void On(Decision& d, const ControlDropped& s);
void On(Decision& d, const OpRequested& s);
void On(Decision& d, const OpFinished& s);
void On(Decision& d, const LaunchDone& s);
void On(Decision& d, const DroneExited& s);
void On(Decision& d, const SupervisorGone& s);
void On(Decision& d, const Observed& s);
void On(Decision& d, const Tick& s);

// Stores a "memory" request's work state as its requester's next version; why not, or "".
std::string StoreMemory(Decision& d, const ControlRequest& r, const ControlDropped& c);

// Purges the missions a "purge" request names that may be purged; why not, when none may.
std::string PurgeMissions(Decision& d, const ControlRequest& r, TimeMs now);

// Lets a profile's missions go as its canary would (a "release-canary" request); why not, or "".
std::string ReleaseCanary(Decision& d, const ControlRequest& r, TimeMs now);

// Who may ask for what (man/hangar.conf.5, approvers and four_eyes), judged on the uid the OS says
// dropped the request: {rule, reason} of a refusal, or nothing when it may (decide_rights.cc).
std::optional<std::pair<std::string, std::string>> Refusal(const Decision& d,
                                                           const ControlRequest& r,
                                                           const ControlDropped& c);

}  // namespace hangar::decide
