// hangar purge: asks the kernel to remove ended missions' directories and rooms (man/hangar.1,
// PURGE). The CLI only chooses the ids (those named, or those older than a span) and drops
// control requests of at most kMaxPurgeIds each; the kernel checks who asks, records
// mission.purged on the ledger, then leaves a tombstone per id and removes the rest.
#include <algorithm>

#include "base/id.h"
#include "cli/answer.h"
#include "cli/commands.h"
#include "cli/drop.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "kernel/control.h"
#include "shell/retention.h"

namespace hangar::cli {

namespace {

// The states --state names (returned, denied, rejected by default), or why not.
Result<std::vector<Phase>> PurgeStates(const std::vector<std::string>& names) {
  if (names.empty()) return std::vector<Phase>{Phase::kReturned, Phase::kDenied, Phase::kRejected};
  std::vector<Phase> out;
  for (const std::string& n : names) {
    std::optional<Phase> p = PhaseFromName(n);
    if (!p || !Terminal(*p))
      return Status::Invalid("--state " + n +
                             ": expected returned, denied or rejected (only an ended mission is "
                             "purged)");
    if (std::find(out.begin(), out.end(), *p) == out.end()) out.push_back(*p);
  }
  return out;
}

}  // namespace

int RunPurge(const Context& ctx, const PurgeArgs& a) {
  const std::string what = "purge";
  if (a.ids.empty() && a.older_than.empty())
    return FailTo(ctx.err, kExitUsage, what,
                  "name the missions (hangar purge ID...) or an age (--older-than 30d)");
  Result<std::vector<Phase>> states = PurgeStates(a.states);
  if (!states.ok()) return FailTo(ctx.err, kExitUsage, what, states.status().message());
  for (const std::string& id : a.ids)
    if (!ValidId(id)) return FailTo(ctx.err, kExitUsage, what, "not a mission id: " + id);
  const TimeMs now = ctx.env->Now();
  std::optional<TimeMs> before;
  if (!a.older_than.empty() && !(before = SinceTime(a.older_than, now)))
    return FailTo(ctx.err, kExitUsage, "purge --older-than " + a.older_than,
                  "expected a time (2026-12-01T09:00:00Z) or a span back from now (90s, 10m, 2h, "
                  "30d)");

  Result<std::vector<EndedMission>> ended = EndedMissions(ctx.env, ctx.layout, *states);
  if (!ended.ok()) return FailTo(ctx.err, kExitNoInput, what, ended.status().message());
  // The chosen: ended missions of the states, named (when ids are given) and old enough (when an
  // age is); oldest first. A named id that is not an ended mission goes to the kernel as named,
  // which says why it is skipped.
  std::vector<EndedMission> chosen;
  for (const EndedMission& m : *ended)
    if ((a.ids.empty() || std::count(a.ids.begin(), a.ids.end(), m.id)) &&
        (!before || m.ended < *before))
      chosen.push_back(m);
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](const EndedMission& x, const EndedMission& y) { return x.ended < y.ended; });
  std::vector<std::string> ids;
  for (const EndedMission& m : chosen) ids.push_back(m.id);
  if (before == std::nullopt)
    for (const std::string& id : a.ids)
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);

  if (a.dry_run) {
    if (ctx.json) {
      json::Array rows;
      for (const EndedMission& m : chosen)
        rows.emplace_back(json::Object{{"id", m.id},
                                       {"state", std::string(PhaseName(m.phase))},
                                       {"ended", FormatTime(m.ended)}});
      PrintJson(ctx.out, json::Object{{"dry_run", true}, {"missions", std::move(rows)}});
      return kExitOk;
    }
    for (const EndedMission& m : chosen)
      ctx.out << Printable(m.id) << " " << PhaseName(m.phase) << " " << FormatTime(m.ended) << "\n";
    ctx.out << "would purge " << chosen.size() << " mission" << (chosen.size() == 1 ? "" : "s")
            << "; nothing was changed\n";
    return kExitOk;
  }
  if (ids.empty()) {
    if (ctx.json)
      PrintJson(ctx.out, json::Object{{"purged", json::Array{}}});
    else
      ctx.out << "nothing to purge\n";
    return kExitOk;
  }
  int rc = kExitOk;
  for (size_t at = 0; at < ids.size(); at += kMaxPurgeIds) {
    const size_t n = std::min(kMaxPurgeIds, ids.size() - at);
    json::Array chunk(ids.begin() + long(at), ids.begin() + long(at + n));
    json::Object r{{"request", "purge"}, {"ids", std::move(chunk)}};
    if (!a.why.empty()) r["why"] = a.why;
    const std::string subject = n == 1 ? ids[at] : "";
    const int one = DropControlRequest(ctx, std::move(r), what, subject, "purge taken");
    if (rc == kExitOk) rc = one;
  }
  return rc;
}

}  // namespace hangar::cli
