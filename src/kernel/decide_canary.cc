// A profile's canary (kernel/canary.h, man/hangard.8 CANARY): a definition not the one proven
// launches one mission alone; the others of its profile wait out of the queue until the canary has
// run canary_s seconds or returned done, and keep waiting when it ended otherwise first, until an
// approver's release-canary. Every step is on the ledger, and the book folds back from it at start.
#include "kernel/decision.h"

namespace hangar::decide {

namespace {

using Stage = ProfileCanary::Stage;

std::string Seconds(int s) {
  return std::to_string(s) + " s";
}

// canary.passed's reason for a canary that ran its span.
std::string RanSpan(TimeMs until) {
  return "it ran until " + FormatTime(until) + " unfailed";
}

}  // namespace

Decision::CanaryTurn Decision::CanaryTurnOf(const std::string& id, const Profile& profile) const {
  if (setup.config.canary_s <= 0) return CanaryTurn::kGo;
  const ProfileCanary* c = st.canaries.Find(profile.name);
  if (!c || !c->Unproven(profile.sha256)) return CanaryTurn::kGo;
  if (c->Tries(profile.sha256) && c->id != id) {
    if (c->stage == Stage::kFailed) return CanaryTurn::kWait;
    if (c->stage == Stage::kRunning) {
      // A canary the book names but that does not run (a spool restored under it) tries nothing:
      // this mission becomes the canary instead.
      auto it = st.missions.find(c->id);
      if (it != st.missions.end() && it->second.phase == Phase::kRunning) return CanaryTurn::kWait;
    }
  }
  return CanaryTurn::kCanary;
}

void Decision::CanaryLaunched(const std::string& id, const Profile& profile, TimeMs now) {
  const TimeMs until = now + TimeMs(setup.config.canary_s) * 1000;
  const ProfileCanary* c = st.canaries.Find(profile.name);
  const int64_t seq = Ledger("canary.launched",
                             {{"profile", profile.name},
                              {"profile_sha256", profile.sha256},
                              {"proven_sha256", c ? c->proven : std::string()},
                              {"id", id},
                              {"until", FormatTime(until)}},
                             now);
  st.canaries.Launched(profile.name, profile.sha256, id, until, seq);
  Log(id + " is the canary of profile " + profile.name +
      " (its definition is not the one proven): the profile's other missions wait until it has "
      "run " +
      Seconds(setup.config.canary_s) + " or returned done");
}

void Decision::CanarySpans(TimeMs now) {
  if (!st.ready) return;
  std::vector<std::pair<std::string, ProfileCanary>> due;
  for (const auto& [profile, c] : st.canaries.all())
    if (c.stage == Stage::kRunning && now >= c.until) due.emplace_back(profile, c);
  for (const auto& [profile, c] : due)  // [CanaryPassed]
    CanaryProven("canary.passed", profile, c.sha256, {{"id", c.id}, {"reason", RanSpan(c.until)}},
                 now);
}

void Decision::CanaryEnded(const std::string& id, const MissionRec& rec, const std::string& outcome,
                           TimeMs now) {
  if (!rec.mission) return;
  const std::string& profile = rec.mission->drone;
  const ProfileCanary* c = st.canaries.Find(profile);
  if (c && c->stage == Stage::kRunning && c->id == id) {
    const std::string sha = c->sha256;
    if (outcome == "done" || now >= c->until) {  // [CanaryPassed]
      CanaryProven(
          "canary.passed", profile, sha,
          {{"id", id},
           {"reason", outcome == "done" ? std::string("it returned done") : RanSpan(c->until)}},
          now);
      return;
    }
    // [CanaryFailed]
    const std::string reason = "it returned " + outcome + " before " + FormatTime(c->until) +
                               (rec.error.empty() ? std::string() : " (" + rec.error + ")");
    const int64_t seq = Ledger("canary.failed",
                               {{"profile", profile},
                                {"profile_sha256", sha},
                                {"id", id},
                                {"outcome", outcome},
                                {"reason", reason}},
                               now);
    st.canaries.Failed(profile, sha, id, reason, seq);
    Log("profile " + profile + ": its canary " + id + " failed: " + reason +
        "; its other missions wait (hangar release-canary " + profile + " lets them go)");
    return;
  }
  // [ProfileProven] The first done with a definition proves it: a change to it gets a canary.
  if (outcome == "done" && !rec.profile_sha256.empty() && (!c || c->proven != rec.profile_sha256))
    CanaryProven("profile.proven", profile, rec.profile_sha256, {{"id", id}}, now);
}

void Decision::CanaryProven(const std::string& kind, const std::string& profile,
                            const std::string& sha256, json::Object body, TimeMs now) {
  body["profile"] = profile;
  body["profile_sha256"] = sha256;
  const int64_t seq = Ledger(kind, std::move(body), now);
  st.canaries.Proven(profile, sha256, seq);
  Rejudge(profile, kind);
}

void Decision::Rejudge(const std::string& profile, const std::string& why) {
  auto held = st.canary_held.find(profile);
  if (held == st.canary_held.end()) return;
  // Back at the queue's head, in their order: they were taken in before what waits behind them.
  // Each is judged again as it comes up (a definition changed again waits for another canary).
  Log("profile " + profile + ": " + why + "; " + std::to_string(held->second.size()) +
      " waiting mission" + (held->second.size() == 1 ? "" : "s") + " back in the queue");
  st.queue.insert(st.queue.begin(), held->second.begin(), held->second.end());
  st.canary_held.erase(held);
}

void Decision::Unqueue(const std::string& id) {
  std::erase(st.queue, id);
  for (auto& [profile, held] : st.canary_held) std::erase(held, id);
}

// [CanaryReleased]
std::string ReleaseCanary(Decision& d, const ControlRequest& r, TimeMs now) {
  const std::string& name = r.profile;
  auto p = d.setup.config.profiles.find(name);
  if (p == d.setup.config.profiles.end())
    return "release-canary: no drone profile named \"" + name + "\" in " + d.setup.config.file;
  const ProfileCanary* c = d.st.canaries.Find(name);
  if (d.setup.config.canary_s <= 0)
    return "release-canary: the config has canary_s 0; no canary holds missions";
  if (!c || c->proven.empty())
    return "release-canary: no mission of profile " + name +
           " has returned done yet, so no canary holds its missions";
  const std::string& sha = p->second.sha256;
  if (!c->Unproven(sha))
    return "release-canary: profile " + name +
           "'s definition is proven already; no canary holds its missions";
  json::Object body =
      d.Asked({{"by", d.asker.user},
               {"why", r.why.empty() ? json::Value(nullptr) : json::Value(r.why)},
               {"canary", c->Tries(sha) ? json::Value(c->id) : json::Value(nullptr)},
               {"stage", c->StageOf(sha)}});
  d.CanaryProven("canary.released", name, sha, std::move(body), now);
  d.effect = "released";
  d.Log("profile " + name + " released by " + d.asker.user +
        (r.why.empty() ? std::string() : " (" + r.why + ")") + ": its missions launch as usual");
  d.Pump(now);
  return "";
}

// A canary's span is over: passed by Pump, and what waited on it launches.
void On(Decision& d, const Tick& t) {
  d.Pump(t.now);
}

}  // namespace hangar::decide

namespace hangar {

std::optional<TimeMs> CanaryDue(const State& state) {
  std::optional<TimeMs> due;
  for (const auto& [profile, c] : state.canaries.all())
    if (c.stage == ProfileCanary::Stage::kRunning && (!due || c.until < *due)) due = c.until;
  return due;
}

}  // namespace hangar
