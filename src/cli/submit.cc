// hangar submit: validate with the kernel's own parser, then drop the raw bytes into incoming/new
// (incoming/tmp first, then one rename). The bytes are never rewritten. Every drop is named with a
// fresh id, so two submits never overwrite each other; a mission without an "id" field takes that
// name as its id (docs/ARCHITECTURE.md, Ids and intake). submit then waits for hangard's intake
// and prints the id it took the mission under, or why it did not (--no-wait: the id at once).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>
#include <variant>

#include "cli/answer.h"
#include "cli/commands.h"
#include "cli/drop.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/spool_view.h"
#include "cli/user_file.h"
#include "kernel/config.h"
#include "kernel/mission.h"

namespace hangar::cli {

std::string FreshId(TimeMs now, uint32_t random24) {
  char hex[8];
  snprintf(hex, sizeof hex, "%06x", unsigned(random24 & 0xffffff));
  return CompactTime(now) + "-" + hex;
}

namespace {

// The drone must name a profile of the config; a missing default config skips the check.
std::optional<Failure> CheckDrone(const Context& ctx, const Mission& m, const std::string& label) {
  if (!ctx.config_given && !ctx.env->Exists(ctx.config_path)) return std::nullopt;
  auto text =
      ReadUserFile(ctx.env, ctx.config_path, "read config " + ctx.config_path, kMaxMissionBytes);
  if (auto* f = std::get_if<Failure>(&text)) return Failure{kExitConfig, f->message};
  auto config = ParseConfig(std::get<std::string>(text), ctx.config_path);
  if (!config.ok()) return Failure{kExitConfig, "cannot read config " + config.status().message()};
  if (config->profiles.count(m.drone)) return std::nullopt;
  std::string names;
  for (const auto& [name, profile] : config->profiles) names += (names.empty() ? "" : ", ") + name;
  return Failure{kExitData, "cannot submit " + label + ": drone: no profile \"" + m.drone +
                                "\" in " + ctx.config_path + " (profiles: " + names + ")"};
}

std::string NewDropName(const Context& ctx, const SpoolView& view) {
  std::random_device rd;
  for (;;) {
    std::string name = FreshId(ctx.env->Now(), uint32_t(rd()));
    if (!view.Locate(name) && view.PurgedText(name).empty() &&
        !ctx.env->Exists(ctx.layout.IncomingTmp() + "/" + name))
      return name;
  }
}

// The mission hangard took the drop NAME in as: its directory, once the drop has left
// incoming/new and a mission directory whose intake.json names NAME exists (under the mission's
// own id, or under NAME when it was rejected for an id already taken).
std::optional<MissionRef> TakenAs(const SpoolView& view, const std::string& id,
                                  const std::string& name) {
  for (const std::string& candidate : {id, name}) {
    std::optional<MissionRef> ref = view.Locate(candidate);
    if (!ref || !ref->phase) continue;
    Result<json::Value> intake = view.ReadJson(ref->path + "/intake.json");
    if (intake.ok() && StringField(*intake, "name") == name) return ref;
  }
  return std::nullopt;
}

// Waits for hangard's intake of the drop (Context::answer_wait_s) and says what it decided: the id
// it took the mission under and its state (exit 0), or the rejection's field and reason (65), or
// the gate's denial (77); 75 when hangard did not take it in time (it stays in incoming/new).
int AwaitIntake(const Context& ctx, const std::string& id, const std::string& name,
                const std::string& label) {
  SpoolView view(ctx.env, ctx.layout);
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(int64_t(ctx.answer_wait_s * 1000));
  std::optional<MissionRef> ref;
  while (!(ref = TakenAs(view, id, name))) {
    if (std::chrono::steady_clock::now() >= until)
      return FailTo(ctx.err, kExitTimeout, "submit " + label,
                    "hangard did not take it in within " + WaitedText(ctx.answer_wait_s) +
                        "; it waits in incoming/new/" + name + " (is hangard running?)");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const Phase p = *ref->phase;
  if (p == Phase::kRejected || p == Phase::kDenied) {
    Result<json::Value> why = view.ReadJson(ref->path + "/why.json");
    const std::string field = why.ok() ? StringField(*why, "field") : "";
    const std::string reason = why.ok() ? StringField(*why, "reason") : "(no why.json)";
    return FailTo(ctx.err, p == Phase::kRejected ? kExitData : kExitNoPerm, "submit " + label,
                  std::string(p == Phase::kRejected ? "rejected as " : "denied as ") + ref->id +
                      ": " + (field.empty() ? reason : field + ": " + reason));
  }
  if (ctx.json) {
    PrintJson(
        ctx.out,
        json::Object{{"id", ref->id}, {"file", "incoming/new/" + name}, {"state", ref->state}});
    return kExitOk;
  }
  ctx.out << Printable(ref->id) << (p == Phase::kHold ? " (held for a person)" : "") << "\n";
  return kExitOk;
}

}  // namespace

int RunSubmit(const Context& ctx, const std::string& file) {
  const std::string label = file == "-" ? "stdin" : file;
  auto input = file == "-" ? ReadStdin("submit stdin", kMaxMissionBytes)
                           : ReadUserFile(ctx.env, file, "submit " + file, kMaxMissionBytes);
  if (auto* f = std::get_if<Failure>(&input)) return Fail(ctx.err, f->exit_code, f->message);
  const std::string& bytes = std::get<std::string>(input);

  MissionOrError parsed = ParseMission(bytes);
  if (auto* e = std::get_if<ParseError>(&parsed))
    return FailTo(ctx.err, kExitData, "submit " + label, e->Text());
  const Mission& m = std::get<Mission>(parsed);
  if (auto f = CheckDrone(ctx, m, label)) return Fail(ctx.err, f->exit_code, f->message);

  SpoolView view(ctx.env, ctx.layout);
  if (!m.id.empty())
    if (auto where = view.Locate(m.id))
      return FailTo(ctx.err, kExitData, "submit " + label,
                    "id " + m.id + " is already in the spool (" + where->state + ")");
  if (!m.id.empty())
    if (std::string purged = view.PurgedText(m.id); !purged.empty())
      return FailTo(ctx.err, kExitData, "submit " + label, purged);

  const std::string name = NewDropName(ctx, view);
  Status s = Drop(ctx.env, ctx.layout.IncomingTmp(), ctx.layout.IncomingNew(), name, bytes);
  if (!s.ok()) return FailTo(ctx.err, kExitCantCreate, "submit " + label, s.message());
  const std::string id = m.id.empty() ? name : m.id;
  if (ctx.answer_wait_s <= 0) {
    PrintDropped(ctx, id, "incoming/new/" + name, id);
    return kExitOk;
  }
  return AwaitIntake(ctx, id, name, label);
}

}  // namespace hangar::cli
