// hangar replay / hangar policy try: the recorded signals fed again to this binary's kernel
// (replay/replayer.h), the differences printed. Reads the live spool and ledger only; writes only
// under the directory it is given (or a fresh temporary one): its own ledger replay-NAME and that
// ledger's anchor file, never the live anchor directory nor the spool.
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <map>

#include "base/plural.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/ledger_place.h"
#include "cli/output.h"
#include "kernel/config.h"
#include "kernel/path_norm.h"
#include "kernel/policy.h"
#include "ledger/anchor.h"
#include "ledger/verify.h"
#include "replay/replay_ledger.h"
#include "replay/replayer.h"
#include "shell/path_resolve.h"

namespace hangar::cli {

namespace {

namespace fs = std::filesystem;

// Absolute and with every symlink that exists resolved, as the gate resolves a mission's writes
// (shell/path_resolve.h); the path as given when it cannot be.
Result<std::string> ResolvedOrWhy(const std::string& p) {
  std::error_code ec;
  const fs::path abs = fs::absolute(p, ec);
  return ResolveExistingPath(ec ? p : abs.string());
}
std::string Resolved(const std::string& p) {
  Result<std::string> r = ResolvedOrWhy(p);
  return r.ok() ? *r : p;
}

// A candidate file (--policy, --config, policy try's FILE) into *FILE_OUT (resolved) and *TEXT,
// read and parsed before anything else, so one that does not parse is refused naming its field.
// PARSE gives the parser's status; NAME prefixes its message (empty: none). An exit status, or 0.
int ReadCandidate(const Context& ctx, const char* what, const std::string& file,
                  const std::string& name,
                  const std::function<Status(const std::string& text)>& parse,
                  std::string* file_out, std::string* text) {
  Result<std::string> t = ctx.env->ReadFile(file, 1 << 20);
  if (!t.ok()) return FailTo(ctx.err, ExitForRead(t.status()), what, t.status().message());
  if (Status p = parse(*t); !p.ok())
    return FailTo(ctx.err, kExitData, what, (name.empty() ? "" : name + ": ") + p.message());
  *file_out = Resolved(file);
  *text = std::move(t).value();
  return kExitOk;
}

Status PolicyParses(const std::string& file, const std::string& text) {
  return ParsePolicy(text, file).status();
}

struct Setup {
  replay::ReplayOptions options;
  std::string into;  // given, or empty: a fresh temporary directory
  bool keep_into = true;
};

struct Outcome {
  replay::Summary summary;
  std::vector<replay::Step> changed;
  std::string into, ledger_name, anchor_path, record_path;
  int64_t live_head = 0;
};

// Verifies, replays, and fills *out; returns an exit status (0 when it ran).
int Run(const Context& ctx, const Setup& setup, const char* what, Outcome* out) {
  LedgerPlace place = FindLedger(ctx, "");
  if (place.anchor_file.empty())
    return FailTo(ctx.err, kExitConfig, what,
                  "no anchor known (hangard.json and the config name none): the live ledger "
                  "cannot be verified, so it is not replayed");
  ledger::LedgerStore store(ctx.env, ctx.layout.spool, place.name);
  if (Status s = store.OpenForReading(); !s.ok())
    return FailTo(ctx.err, kExitData, what, "refused: " + s.message());
  Result<ledger::Anchor> anchor = ledger::Anchor::Bind(ctx.env, place.anchor_file, place.name);
  if (!anchor.ok()) return FailTo(ctx.err, kExitConfig, what, anchor.status().message());
  Result<ledger::VerifyReport> v = ledger::Verify(store, *anchor);
  if (!v.ok()) return FailTo(ctx.err, kExitData, what, "refused: " + v.status().message());
  if (!v->ok)
    return FailTo(ctx.err, kExitData, what,
                  "refused: the live ledger " + place.name + " does not verify against " +
                      place.anchor_file + " (" + v->reason +
                      "): a history that cannot be trusted is not replayed");

  // Where the replay writes: never the spool, never the live anchor's directory.
  const std::string spool = Resolved(ctx.layout.spool);
  const std::string anchor_dir = Resolved(fs::path(place.anchor_file).parent_path().string());
  std::string into = setup.into;
  if (!into.empty()) {
    // Where it would land must be known to be refused: a path that cannot be resolved is not
    // taken on trust.
    Result<std::string> where = ResolvedOrWhy(into);
    if (!where.ok())
      return FailTo(ctx.err, kExitUsage, what, "refused: --into: " + where.status().message());
    const std::string& r = *where;
    for (const auto& [dir, name] :
         {std::pair{spool, "the live spool"}, std::pair{anchor_dir, "the live anchor directory"}})
      if (PathInside(r, dir) || PathInside(dir, r))
        return FailTo(ctx.err, kExitUsage, what,
                      "refused: --into " + into + " is " +
                          (PathInside(r, dir) ? "inside" : "above") + " " + name + " " + dir +
                          "; a replay writes only where no live file is");
  }
  const std::string ledger_name = "replay-" + place.name;
  if (into.empty()) {
    std::string tmpl = (getenv("TMPDIR") && *getenv("TMPDIR") ? std::string(getenv("TMPDIR"))
                                                              : std::string("/tmp")) +
                       "/hangar-replay.XXXXXX";
    if (!mkdtemp(tmpl.data()))
      return FailTo(ctx.err, kExitCantCreate, what, "cannot make a directory " + tmpl);
    into = tmpl;
  } else {
    std::error_code ec;
    fs::create_directories(into, ec);
    if (ec)
      return FailTo(ctx.err, kExitCantCreate, what, "cannot make " + into + ": " + ec.message());
    if (fs::exists(fs::path(into) / "ledger" / ledger_name) ||
        fs::exists(fs::path(into) / (ledger_name + ".anchor")))
      return FailTo(ctx.err, kExitCantCreate, what,
                    into + " holds a replay already (ledger " + ledger_name +
                        "): give an empty or new directory");
  }
  replay::ReplayLedger own(ctx.env, into, ledger_name);
  if (Status s = own.Open(); !s.ok())
    return FailTo(ctx.err, kExitCantCreate, what,
                  "cannot start the replay's ledger: " + s.message());

  // The record's extent first, then the ledger (replay/replayer.h: hangard may run on).
  ledger::SignalReader reader(ctx.env, ctx.layout.spool + "/signals/" + place.name);
  if (Status s = reader.Open(); !s.ok()) return FailTo(ctx.err, ExitForRead(s), what, s.message());
  replay::LiveLedger live;
  if (Status s = live.Load(store); !s.ok())
    return FailTo(ctx.err, kExitData, what, "refused: " + s.message());
  Result<replay::Summary> sum = replay::Replay(
      reader, live, setup.options,
      [&](const replay::Step& s) {
        if (s.cls != replay::StepClass::kSame) out->changed.push_back(s);
      },
      [&](Record r, const replay::Step& s) { return own.Add(std::move(r), s); });
  if (!sum.ok()) return FailTo(ctx.err, kExitData, what, "refused: " + sum.status().message());
  if (Status s = own.Flush(); !s.ok())
    return FailTo(ctx.err, kExitCantCreate, what,
                  "cannot write the replay's ledger: " + s.message());
  out->summary = std::move(sum).value();
  out->into = into;
  out->ledger_name = ledger_name;
  out->anchor_path = own.anchor_path();
  out->record_path = reader.path();
  out->live_head = live.head();
  return kExitOk;
}

json::Value StepJson(const replay::Step& s) {
  return json::Object{{"line", s.n},
                      {"ledger_seq", s.ledger_seq},
                      {"time", FormatTime(s.time)},
                      {"signal", s.signal},
                      {"missions", json::Array(s.missions.begin(), s.missions.end())},
                      {"class", replay::StepClassName(s.cls)},
                      {"committed", s.committed},
                      {"was", s.was},
                      {"would", s.would},
                      {"rules_was", s.rules_was},
                      {"rules_would", s.rules_would},
                      {"widening", s.widening},
                      {"part", s.part}};
}

json::Value SummaryJson(const Outcome& o) {
  const replay::Summary& s = o.summary;
  return json::Object{
      {"fed", s.fed},
      {"signals", s.signals},
      {"same", s.same},
      {"differ", s.differ},
      {"state_only", s.state_only},
      {"widening", s.widening},
      {"uncommitted", s.uncommitted},
      {"starts", s.starts},
      {"builds", json::Array(s.builds.begin(), s.builds.end())},
      {"this_build", std::string(kKernelBuild)},
      {"first_divergence", s.first_divergence ? StepJson(*s.first_divergence) : json::Value()},
      {"into", o.into},
      {"ledger", o.ledger_name},
      {"anchor", o.anchor_path},
      {"record", o.record_path},
      {"live_head", o.live_head}};
}

std::string Missions(const replay::Step& s) {
  std::string m;
  for (const std::string& id : s.missions) m += (m.empty() ? "" : ",") + id;
  return m.empty() ? "-" : m;
}

std::string Change(const replay::Step& s) {
  return (s.was.empty() ? "(nothing)" : s.was) + " -> " + (s.would.empty() ? "(nothing)" : s.would);
}

std::string Rules(const replay::Step& s) {
  if (s.rules_was == s.rules_would) return s.rules_would.empty() ? "-" : s.rules_would;
  return (s.rules_was.empty() ? "-" : s.rules_was) + " -> " +
         (s.rules_would.empty() ? "-" : s.rules_would);
}

void PrintSteps(std::ostream& out, const std::vector<replay::Step>& steps) {
  std::vector<Row> rows{
      {"SEQ", "LINE", "MISSION", "SIGNAL", "WAS -> WOULD BE", "RULES", "CLASS", "WHAT DIFFERS"}};
  for (const replay::Step& s : steps)
    rows.push_back({std::to_string(s.ledger_seq + 1), std::to_string(s.n), Missions(s), s.signal,
                    Change(s), Rules(s), replay::StepClassName(s.cls), s.part});
  out << FormatTable(rows);
}

void PrintSummaryLine(std::ostream& out, const replay::Summary& s) {
  out << s.signals << " signals replayed, " << s.same << " same, " << s.differ << " differ";
  if (s.state_only) out << " (" << s.state_only << " in the state only)";
  if (s.fed != s.signals) out << "; " << s.fed - s.signals << " earlier signals fed, not reported";
  out << "\n";
}

}  // namespace

int RunReplay(const Context& ctx, const ReplayArgs& a) {
  const char* what = "replay the signal record";
  Setup setup;
  setup.into = a.into;
  setup.options.from = a.from;
  if (a.to) setup.options.to = *a.to;
  replay::ReplayOptions& opt = setup.options;
  if (!a.policy.empty())
    if (int rc = ReadCandidate(
            ctx, what, a.policy, "--policy",
            [&](const std::string& t) { return PolicyParses(a.policy, t); }, &opt.policy_file,
            &opt.policy_text);
        rc != kExitOk)
      return rc;
  if (!a.config.empty())
    if (int rc = ReadCandidate(
            ctx, what, a.config, "--config",
            [&](const std::string& t) { return ParseConfig(t, a.config).status(); },
            &opt.config_file, &opt.config_text);
        rc != kExitOk)
      return rc;
  Outcome o;
  if (int rc = Run(ctx, setup, what, &o); rc != kExitOk) return rc;
  if (ctx.json) {
    for (const replay::Step& s : o.changed)
      ctx.out << json::Write(json::Object{{"step", StepJson(s)}}) << "\n";
    ctx.out << json::Write(json::Object{{"summary", SummaryJson(o)}}) << "\n";
    return o.summary.differ ? kExitNotDone : kExitOk;
  }
  ctx.out << "replayed " << Printable(o.record_path) << " against ledger seqs 1.." << o.live_head
          << " (" << o.summary.starts << " starts of hangard)";
  if (!a.policy.empty())
    ctx.out << ", policy " << Printable(a.policy) << " in place of the recorded";
  if (!a.config.empty())
    ctx.out << ", config " << Printable(a.config) << " in place of the recorded";
  ctx.out << "\nwritten: ledger " << o.ledger_name << " in " << Printable(o.into) << ", anchor "
          << Printable(o.anchor_path) << "\n";
  for (const std::string& b : o.summary.builds)
    if (b != kKernelBuild)
      ctx.out << "note: part of the record was decided by kernel build " << Printable(b)
              << "; this is " << kKernelBuild << "\n";
  if (!o.changed.empty()) {
    ctx.out << "\nchanged steps:\n";
    PrintSteps(ctx.out, o.changed);
    std::vector<replay::Step> wider;
    for (const replay::Step& s : o.changed)
      if (s.widening) wider.push_back(s);
    if (!wider.empty()) {
      ctx.out << "\nwidening (more would be allowed than was):\n";
      PrintSteps(ctx.out, wider);
    }
    const replay::Step& f = *o.summary.first_divergence;
    ctx.out << "\nfirst divergence: line " << f.n << " (after ledger seq " << f.ledger_seq << "), "
            << f.signal << " of " << Printable(Missions(f)) << ": " << Printable(Change(f)) << " ("
            << replay::StepClassName(f.cls) << ")\n";
  }
  PrintSummaryLine(ctx.out, o.summary);
  return o.summary.differ ? kExitNotDone : kExitOk;
}

int RunPolicyTry(const Context& ctx, const std::string& file, const std::string& since) {
  const char* what = "try the policy";
  Setup setup;
  if (int rc = ReadCandidate(
          ctx, what, file, "", [&](const std::string& t) { return PolicyParses(file, t); },
          &setup.options.policy_file, &setup.options.policy_text);
      rc != kExitOk)
    return rc;
  if (!since.empty()) {
    std::optional<TimeMs> at = ParseRfc3339(since);
    if (!at)
      return FailTo(ctx.err, kExitUsage, what, "--since " + since + ": expected an RFC 3339 time");
    setup.options.since = *at;
  }
  Outcome o;
  if (int rc = Run(ctx, setup, what, &o); rc != kExitOk) return rc;
  std::error_code ec;
  fs::remove_all(o.into, ec);  // a temporary replay: only its verdicts are kept, printed
  // By mission: the first step that decided it otherwise, whether any of its changes widen, and
  // whether the policy judged it otherwise itself (a step of it names other rules) or it only
  // follows another mission's change (a slot freed or taken earlier). A step whose actions are
  // the same (another rule, the same verdict) decided nothing otherwise; the summary counts it.
  struct ByMission {
    replay::Step first;
    bool widening = false, judged = false;
  };
  std::map<std::string, ByMission> by;
  for (const replay::Step& s : o.changed)
    for (const std::string& id : s.missions) {
      if (s.cls == replay::StepClass::kStateDiffers) continue;
      auto [it, fresh] = by.try_emplace(id, ByMission{s});
      it->second.widening |= s.widening;
      it->second.judged |= s.rules_was != s.rules_would;
    }
  int64_t wider = 0, judged = 0;
  for (const auto& [id, m] : by) {
    wider += m.widening;
    judged += m.judged;
  }
  if (ctx.json) {
    json::Array missions;
    for (const auto& [id, m] : by)
      missions.push_back(json::Object{{"id", id},
                                      {"first", StepJson(m.first)},
                                      {"widening", m.widening},
                                      {"cause", m.judged ? "judged" : "follows"}});
    PrintJson(ctx.out, json::Object{{"policy", file},
                                    {"missions", std::move(missions)},
                                    {"judged", judged},
                                    {"summary", SummaryJson(o)}});
    return by.empty() ? kExitOk : kExitNotDone;
  }
  if (!by.empty()) {
    std::vector<Row> rows{
        {"MISSION", "SEQ", "WAS -> WOULD BE", "RULES", "CLASS", "WIDENING", "CAUSE"}};
    for (const auto& [id, m] : by)
      rows.push_back({id, std::to_string(m.first.ledger_seq + 1), Change(m.first), Rules(m.first),
                      replay::StepClassName(m.first.cls), m.widening ? "yes" : "no",
                      m.judged ? "judged otherwise" : "follows another's change"});
    ctx.out << FormatTable(rows);
  }
  ctx.out << Plural(int64_t(by.size()), "mission") << " would be decided differently under "
          << Printable(file) << " (" << judged << " judged otherwise by it, "
          << int64_t(by.size()) - judged << " following another's change";
  if (wider) ctx.out << ", " << wider << " widening";
  ctx.out << "); ";
  PrintSummaryLine(ctx.out, o.summary);
  return by.empty() ? kExitOk : kExitNotDone;
}

}  // namespace hangar::cli
