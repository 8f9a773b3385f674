// Decide: every signal's clock is checked against the ledger's, then the signal goes to the part
// that decides it (kernel/decision.h).
#include "kernel/kernel.h"

#include "kernel/decision.h"

namespace hangar {

namespace {

// A clock well behind the ledger's latest time (set back, or a restore onto a machine whose
// clock is wrong) holds launches until it catches up: recorded once, then said when over.
void CheckClock(decide::Decision& d, TimeMs now) {
  const bool behind = d.st.ledger_time > 0 && now + kClockSlackMs < d.st.ledger_time;
  if (behind && !d.st.clock_behind) {
    d.st.clock_behind = true;
    d.Ledger("clock.behind",
             {{"now", FormatTime(now)}, {"ledger_time", FormatTime(d.st.ledger_time)}}, now);
    d.Log("the clock (" + FormatTime(now) + ") is behind the ledger's latest time (" +
          FormatTime(d.st.ledger_time) + "): launches are held until it catches up");
  } else if (!behind && d.st.clock_behind && now >= d.st.ledger_time) {
    d.st.clock_behind = false;
    d.Log("the clock has caught up with the ledger's latest time: launches resume");
  }
}

}  // namespace

GateSite KernelSetup::Site() const {
  GateSite site{rooms, home, {spool}, bwrap, bindir, root, config.limits, drone_uid, drone_gid};
  site.socat = socat;
  site.landlock_abi = landlock_abi;
  if (!anchor.empty()) site.hangar_dirs.push_back(anchor);
  // The checkpoint signing key, when it lives elsewhere than the anchor directory.
  if (!config.checkpoint_key.empty()) site.hangar_dirs.push_back(config.checkpoint_key);
  for (const std::string* file : {&config.file, &config.policy, &config.allowed_signers})
    if (!file->empty() && (*file)[0] == '/') site.hangar_dirs.push_back(*file);
  return site;
}

std::vector<std::string> KernelSetup::Hidden() const {
  const GateSite site = Site();
  std::vector<std::string> hide;
  for (const std::string& d : policy.deny_read)
    if (!d.empty() && d[0] == '/') hide.push_back(d);  // a home pattern stands for its paths
  hide.insert(hide.end(), site.hangar_dirs.begin(), site.hangar_dirs.end());
  hide.push_back(rooms);  // every room: a drone's own is bound over it
  return hide;
}

std::vector<Action> Decide(const KernelSetup& setup, State* state, const Signal& signal) {
  decide::Decision d{setup, *state, {}};
  const TimeMs now = std::visit([](const auto& x) { return x.now; }, signal);
  const bool was_behind = state->clock_behind;
  CheckClock(d, now);
  std::visit([&d](const auto& x) { decide::On(d, x); }, signal);
  if (was_behind && !state->clock_behind) d.Pump(now);
  for (auto& [id, gate] : d.gates)
    if (auto it = state->missions.find(id); it != state->missions.end())
      it->second.gate = std::move(gate);
  return std::move(d.out);
}

bool MayLaunch(const KernelSetup& setup, const State& state) {
  return state.ready && state.fail_closed.empty() && !state.clock_behind &&
         state.running < setup.config.slots;
}

}  // namespace hangar
