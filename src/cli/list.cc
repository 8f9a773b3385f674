// hangar ls: one line per mission (ID STATE AGE ELAPSED DRONE OUTCOME WHY), oldest first by
// intake time (ties by id); for a held or denied mission OUTCOME gives the gate's rule ids, and
// WHY the reason of a denied or rejected one.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

#include "base/plural.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/spool_view.h"

namespace hangar::cli {

namespace {

json::Value OrNull(const std::string& s) {
  return s.empty() ? json::Value() : json::Value(s);
}

std::optional<int64_t> ElapsedMs(const MissionRow& r, TimeMs now) {
  if (!r.started) return std::nullopt;
  if (r.ref.state == "running") return now - *r.started;
  if (r.ended) return *r.ended - *r.started;
  return std::nullopt;
}

json::Value RowJson(const MissionRow& r, TimeMs now) {
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
  const std::optional<int64_t> e = ElapsedMs(r, now);
  o["elapsed_ms"] = e ? json::Value(*e) : json::Value();
  o["why"] = OrNull(r.why);
  return o;
}

std::string Dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

}  // namespace

std::optional<TimeMs> SinceTime(const std::string& text, TimeMs now) {
  if (std::optional<TimeMs> t = ParseRfc3339(text)) return t;
  if (std::optional<TimeMs> back = ParseDurationMs(text)) return now - *back;  // back from now
  return std::nullopt;
}

// One listing of the spool as ARGS select, at NOW; at most MAX_ROWS rows of the table (0: all),
// then a line saying how many more.
static int ListOnce(const Context& ctx, const ListArgs& a, TimeMs now, std::optional<TimeMs> since,
                    size_t max_rows = 0) {
  SpoolView view(ctx.env, ctx.layout);
  if (Status s = view.CheckReadable(); !s.ok()) return Fail(ctx.err, kExitNoInput, s.message());
  std::vector<MissionRow> rows;
  for (const std::string& state : a.states.empty() ? std::vector<std::string>{""} : a.states)
    for (MissionRow& r : view.List(state))
      if ((a.requester.empty() || r.requester == a.requester) &&
          (!since || (r.time && *r.time >= *since)))
        rows.push_back(std::move(r));
  // Oldest first, newest last, as a log reads; a mission with no time at the end, by id.
  std::stable_sort(rows.begin(), rows.end(), [](const MissionRow& x, const MissionRow& y) {
    if (x.time.has_value() != y.time.has_value()) return x.time.has_value();
    if (x.time && *x.time != *y.time) return *x.time < *y.time;
    return x.ref.id < y.ref.id;
  });

  if (a.json_lines) {
    for (const MissionRow& r : rows) ctx.out << json::Write(RowJson(r, now)) << "\n";
    return kExitOk;
  }
  if (ctx.json) {
    json::Array arr;
    for (const MissionRow& r : rows) arr.push_back(RowJson(r, now));
    PrintJson(ctx.out, arr);
    return kExitOk;
  }
  const size_t more = max_rows && rows.size() > max_rows ? rows.size() - max_rows : 0;
  if (more) rows.resize(max_rows);
  const Row header = {"ID", "STATE", "AGE", "ELAPSED", "DRONE", "OUTCOME", "WHY"};
  ctx.out << FormatTable(rows.size() + 1, [&](size_t i, Row& cells) -> const Row& {
    if (i == 0) return header;
    const MissionRow& r = rows[i - 1];
    std::string outcome = r.outcome;
    for (const std::string& rule : r.rules) outcome += (outcome.empty() ? "" : ",") + rule;
    const std::optional<int64_t> e = ElapsedMs(r, now);
    cells = {r.ref.id,
             r.ref.state,
             r.time ? FormatAge(now - *r.time) : "-",
             e ? FormatAge(*e) : "-",
             Dash(r.drone),
             Dash(outcome),
             Dash(r.why)};
    return cells;
  });
  if (more) ctx.out << "... " << Plural(more, "more mission") << "\n";
  return kExitOk;
}

int RunList(const Context& ctx, const ListArgs& a) {
  const auto& names = StateNames();
  for (const std::string& state : a.states)
    if (std::find(names.begin(), names.end(), state) == names.end()) {
      std::string all;
      for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
      return FailTo(ctx.err, kExitUsage, "list " + state, "no such state (states: " + all + ")");
    }
  const TimeMs now = ctx.env->Now();
  std::optional<TimeMs> since;
  if (!a.since.empty() && !(since = SinceTime(a.since, now)))
    return FailTo(ctx.err, kExitUsage, "list --since " + a.since,
                  "expected a time (2026-12-01T09:00:00Z) or a duration back from now (90s, "
                  "10m, 2h, 3d)");
  if (!a.watch) return ListOnce(ctx, a, now, since);
  // --watch: one screen, again every N seconds until interrupted; the live states by default.
  ListArgs live = a;
  if (live.states.empty()) live.states = {"running", "queued", "hold"};
  live.json_lines = false;
  const bool tty = isatty(STDOUT_FILENO);
  for (;;) {
    size_t max_rows = 0;
    if (struct winsize w{}; tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_row > 4)
      max_rows = w.ws_row - 4;
    if (tty) ctx.out << "\033[H\033[J";
    const TimeMs t = ctx.env->Now();
    ctx.out << "hangar ls --watch " << *a.watch << ": " << FormatTime(t) << "\n";
    if (int rc = ListOnce(ctx, live, t, since, max_rows); rc != kExitOk) return rc;
    ctx.out.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(int64_t(*a.watch * 1000)));
  }
}

}  // namespace hangar::cli
