// hangar ls: one line per mission (ID STATE AGE DRONE OUTCOME), sorted by id; for a held or
// denied mission OUTCOME gives the gate's rule ids instead.
#include <algorithm>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/spool_view.h"

namespace hangar::cli {

namespace {

json::Value OrNull(const std::string& s) {
  return s.empty() ? json::Value() : json::Value(s);
}

json::Value RowJson(const MissionRow& r) {
  json::Object o;
  o["id"] = r.ref.id;
  o["state"] = r.ref.state;
  o["drone"] = OrNull(r.drone);
  o["requester"] = OrNull(r.requester);
  o["outcome"] = OrNull(r.outcome);
  o["time"] = r.time ? json::Value(FormatTime(*r.time)) : json::Value();
  o["rules"] = r.ref.state == "hold" || r.ref.state == "denied"
                   ? json::Value(json::Array(r.rules.begin(), r.rules.end()))
                   : json::Value();
  return o;
}

std::string Dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

}  // namespace

int RunList(const Context& ctx, const std::string& state) {
  const auto& names = StateNames();
  if (!state.empty() && std::find(names.begin(), names.end(), state) == names.end()) {
    std::string all;
    for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
    return FailTo(ctx.err, kExitUsage, "list " + state, "no such state (states: " + all + ")");
  }
  SpoolView view(ctx.env, ctx.layout);
  if (Status s = view.CheckReadable(); !s.ok()) return Fail(ctx.err, kExitNoInput, s.message());
  const std::vector<MissionRow> rows = view.List(state);

  if (ctx.json) {
    json::Array a;
    for (const MissionRow& r : rows) a.push_back(RowJson(r));
    PrintJson(ctx.out, a);
    return kExitOk;
  }
  const TimeMs now = ctx.env->Now();
  const Row header = {"ID", "STATE", "AGE", "DRONE", "OUTCOME"};
  ctx.out << FormatTable(rows.size() + 1, [&](size_t i, Row& cells) -> const Row& {
    if (i == 0) return header;
    const MissionRow& r = rows[i - 1];
    std::string outcome = r.outcome;
    for (const std::string& rule : r.rules) outcome += (outcome.empty() ? "" : ",") + rule;
    cells = {r.ref.id, r.ref.state, r.time ? FormatAge(now - *r.time) : "-", Dash(r.drone),
             Dash(outcome)};
    return cells;
  });
  return kExitOk;
}

}  // namespace hangar::cli
