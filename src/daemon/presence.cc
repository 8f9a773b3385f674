#include "daemon/presence.h"

namespace hangar {

json::Value PresenceJson(const PresenceFacts& f) {
  const KernelSetup& setup = f.setup;
  json::Object o;
  o["hangar"] = 1;
  o["pid"] = f.pid;
  o["started"] = FormatTime(f.started);
  o["spool"] = f.layout.spool;
  o["rooms"] = f.layout.rooms;
  o["config"] = f.config_path;
  o["home"] = setup.home;  // what "~" in a mission's writes means (hangar check judges by it)
  o["slots"] = setup.config.slots;
  o["policy"] =
      json::Object{{"file", setup.config.policy.empty() ? json::Value(nullptr)
                                                        : json::Value(setup.config.policy)},
                   {"sha256", setup.policy_sha256}};
  json::Array bwrap_profiles, own_profiles;
  for (const auto& [name, profile] : setup.config.profiles) {
    if (profile.sandbox == "bwrap") bwrap_profiles.emplace_back(name);
    if (profile.sandbox == "namespaces") own_profiles.emplace_back(name);
  }
  json::Object sandbox;
  sandbox["bwrap"] = setup.bwrap.empty() ? json::Value(nullptr) : json::Value(setup.bwrap);
  sandbox["profiles"] = std::move(bwrap_profiles);
  sandbox["namespaces"] = std::move(own_profiles);  // engine "namespaces": hangar-confine's own
  // The limits in force (man hangard.8, SANDBOX): RLIMIT_NPROC binds no process of uid 0.
  const DroneLimits& lim = setup.config.limits;
  sandbox["limits"] = json::Object{
      {"processes", lim.processes},
      {"processes_enforced", !setup.root || setup.drone_uid >= 0},
      {"drone_uid", setup.drone_uid >= 0 ? json::Value(setup.drone_uid) : json::Value(nullptr)},
      {"file_mb", lim.file_mb},
      {"shm_mb", lim.shm_mb},
      {"memory_mb", lim.memory_mb},
      {"ops_per_minute", lim.ops_per_minute}};
  o["sandbox"] = std::move(sandbox);
  // The spool's filesystem: "full" while the work is stopped for want of space (it resumes by
  // itself); the rooms on it can fill it (man/hangar.conf.5, rooms).
  const bool full = f.work.storage_full();
  o["storage"] = json::Object{
      {"state", full ? "full" : "ok"},
      {"free_bytes", f.free_bytes ? json::Value(int64_t(*f.free_bytes)) : json::Value(nullptr)},
      {"since", full ? json::Value(FormatTime(f.work.stopped_at())) : json::Value(nullptr)},
      {"rooms_on_spool_filesystem", f.rooms_on_spool_filesystem}};
  json::Array approvers;
  approvers.resize(f.approvers.size(), json::Value(json::Object{}));
  for (size_t i = 0; i < f.approvers.size(); ++i) {
    approvers[i]["uid"] = f.approvers[i].first;
    approvers[i]["user"] = f.approvers[i].second;
  }
  o["decide"] =
      json::Object{{"approvers", std::move(approvers)}, {"four_eyes", setup.config.four_eyes}};
  o["clock"] = json::Object{
      {"behind", f.state.clock_behind},
      {"ledger_time",
       f.state.ledger_time ? json::Value(FormatTime(f.state.ledger_time)) : json::Value(nullptr)}};
  o["canaries"] = CanaryPresence(setup, f.state);
  o["status"] = f.status;
  o["time"] = FormatTime(f.now);
  o["ledger"] = json::Object{{"name", f.ledger_name},
                             {"anchor", f.anchor_path},
                             {"anchor_same_filesystem", f.anchor_same_filesystem},
                             {"state", f.state.fail_closed.empty() ? "ok" : "fail-closed"},
                             {"reason", f.state.fail_closed}};
  // The work: "ok", "intake-paused" (no space to take drops in) or "stopped" (a storage failure;
  // only a restart leaves it).
  o["work"] = f.work.ToJson();
  return o;
}

json::Value CanaryPresence(const KernelSetup& setup, const State& state) {
  json::Array out;
  if (setup.config.canary_s <= 0) return out;
  for (const auto& [name, profile] : setup.config.profiles) {
    const ProfileCanary* c = state.canaries.Find(name);
    if (!c || !c->Unproven(profile.sha256)) continue;
    const bool tried = c->Tries(profile.sha256);
    const bool failed = tried && c->stage == ProfileCanary::Stage::kFailed;
    auto held = state.canary_held.find(name);
    const json::Value none(nullptr);
    out.emplace_back(json::Object{
        {"profile", name},
        {"definition_sha256", profile.sha256},
        {"proven_sha256", c->proven},
        {"stage", !tried   ? "pending"
                  : failed ? "failed"
                           : "running"},
        {"canary", tried ? json::Value(c->id) : none},
        {"until", tried && !failed ? json::Value(FormatTime(c->until)) : none},
        {"reason", failed ? json::Value(c->reason) : none},
        {"ledger_seq", tried ? json::Value(c->seq) : none},
        {"waiting", int64_t(held == state.canary_held.end() ? 0 : held->second.size())}});
  }
  return out;
}

}  // namespace hangar
