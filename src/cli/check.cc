// hangar check FILE|-: a mission parsed and judged at stage 1 as hangard's intake would judge it
// now — the kernel's parser, the config's profiles and defaults, the policy's rules, the requester
// book folded from the ledger, the writes and workspace resolved as the shell resolves them (the
// workspace's git run as the user who checks, as intake runs it as the dropper) — without a drop:
// nothing is created in the spool. Exit 0 allow, 1 hold, 2 deny, 65 invalid (man/hangar.1).
// Stage 2 judges the launch plan hangard builds at launch; check cannot, and says so.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <thread>
#include <variant>

#include "base/sha256.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/ledger_place.h"
#include "cli/output.h"
#include "cli/spool_view.h"
#include "cli/user_file.h"
#include "kernel/config.h"
#include "kernel/mission.h"
#include "kernel/setup_record.h"
#include "ledger/fold_books.h"
#include "shell/landlock.h"
#include "shell/path_resolve.h"
#include "shell/users.h"
#include "shell/workspace.h"

namespace hangar::cli {

namespace {

constexpr size_t kMaxConfigBytes = size_t(1) << 20;
constexpr int kExitHold = 1, kExitDeny = 2;

// What the check judged by, for its output: the config and policy files, the policy's sha256 and
// the one the running hangard judges by (empty when no hangard.json says).
struct JudgedBy {
  std::string config, policy, policy_sha256, running_policy_sha256;
};

// The setup hangard would judge intake by, built by the kernel's own BuildSetup from the config
// and policy on disk and what hangard.json says of the running hangard (its home, its anchor, its
// uid: the owner of hangard.json). The spool is the one hangar was pointed at.
std::variant<KernelSetup, Failure> Setup(const Context& ctx, const json::Value& presence,
                                         const LedgerPlace& place, JudgedBy* by) {
  std::string config_path = ctx.config_path;
  if (!ctx.config_given)
    if (std::string c = StringField(presence, "config"); !c.empty()) config_path = c;
  Result<std::string> text = ctx.env->ReadFile(config_path, kMaxConfigBytes);
  if (!text.ok())
    return Failure{kExitConfig, "check: cannot read config " + text.status().message()};
  Result<Config> config = ParseConfig(*text, config_path);
  if (!config.ok())
    return Failure{kExitConfig, "check: cannot read config " + config.status().message()};
  SetupFacts f;
  f.config_file = config_path;
  f.config_text = *text;
  if (!config->policy.empty()) {
    Result<std::string> p = ctx.env->ReadFile(config->policy, kMaxConfigBytes);
    if (!p.ok())
      return Failure{kExitConfig, "check: cannot read the policy " + config_path +
                                      " names: " + p.status().message()};
    f.policy_file = config->policy;
    f.policy_text = *p;
  }
  f.spool = ctx.layout.spool;
  f.bindir = std::filesystem::read_symlink("/proc/self/exe").parent_path().string();
  f.anchor = place.AnchorDir();
  f.home = StringField(presence, "home");
  if (f.home.empty()) {
    const char* home = getenv("HOME");
    f.home = home && home[0] == '/' ? home : "/";
  }
  f.homes = HomeDirectories();
  f.landlock_abi = LandlockAbi();
  struct stat st {};
  const int64_t hangard_uid =
      stat(ctx.layout.StatusFile().c_str(), &st) == 0 ? int64_t(st.st_uid) : int64_t(geteuid());
  f.root = hangard_uid == 0;
  Result<std::set<int64_t>> approvers = ResolveApprovers(config->approvers, hangard_uid);
  if (!approvers.ok())
    return Failure{kExitConfig, "check: " + config_path + ": " + approvers.status().message()};
  f.approvers = std::move(approvers).value();
  f.cpus = int(std::max(1u, std::thread::hardware_concurrency()));
  Result<KernelSetup> setup = BuildSetup(f);
  if (!setup.ok()) return Failure{kExitConfig, "check: " + setup.status().message()};
  by->config = config_path;
  by->policy = f.policy_file;
  by->policy_sha256 = setup->policy_sha256;
  if (const json::Value* p = presence.is_object() ? presence.find("policy") : nullptr)
    by->running_policy_sha256 = StringField(*p, "sha256");
  return std::move(setup).value();
}

// The invalid mission's answer: 65 with the field and reason, as intake would reject it.
int Invalid(const Context& ctx, const std::string& label, const std::string& field,
            const std::string& reason) {
  if (ctx.json) {
    PrintJson(ctx.out, json::Object{{"file", label},
                                    {"verdict", "invalid"},
                                    {"field", field.empty() ? json::Value() : json::Value(field)},
                                    {"reason", reason}});
    return kExitData;
  }
  return Fail(ctx.err, kExitData,
              "check " + label + ": invalid: " + (field.empty() ? reason : field + ": " + reason));
}

}  // namespace

int RunCheck(const Context& ctx, const std::string& file) {
  const std::string label = file == "-" ? "stdin" : file;
  auto input = file == "-" ? ReadStdin("check stdin", kMaxMissionBytes)
                           : ReadUserFile(ctx.env, file, "check " + file, kMaxMissionBytes);
  if (auto* f = std::get_if<Failure>(&input)) return Fail(ctx.err, f->exit_code, f->message);
  const std::string& bytes = std::get<std::string>(input);
  MissionOrError parsed = ParseMission(bytes);
  if (auto* e = std::get_if<ParseError>(&parsed)) return Invalid(ctx, label, e->field, e->reason);
  Mission m = std::get<Mission>(std::move(parsed));

  SpoolView view(ctx.env, ctx.layout);
  json::Value presence;
  if (auto st = view.ReadJson(ctx.layout.StatusFile()); st.ok() && st->is_object()) presence = *st;
  JudgedBy by;
  const LedgerPlace place = FindLedger(ctx, "");
  auto built = Setup(ctx, presence, place, &by);
  if (auto* f = std::get_if<Failure>(&built)) return Fail(ctx.err, f->exit_code, f->message);
  const KernelSetup& setup = std::get<KernelSetup>(built);

  // What intake rejects before the gate, in the order it checks.
  ApplyProfileDefaults(&m, setup.config);
  if (!m.id.empty())
    if (auto where = view.Locate(m.id))
      return Invalid(ctx, label, "id",
                     "id " + m.id + " is already in the spool (" + where->state + ")");
  if (!m.id.empty())
    if (std::string purged = view.PurgedText(m.id); !purged.empty())
      return Invalid(ctx, label, "id", purged);
  if (!setup.config.profiles.count(m.drone)) {
    std::string known;
    for (const auto& [name, p] : setup.config.profiles) known += (known.empty() ? "" : ", ") + name;
    return Invalid(
        ctx, label, "drone",
        "no drone profile named \"" + m.drone + "\" in " + by.config + " (known: " + known + ")");
  }
  ResolvedWrites resolved = ResolveWrites(m, setup.home);
  if (m.workspace) {
    ResolveWorkspace(m, -1, -1, &resolved);
    const auto r = resolved.find(m.workspace->git);
    if (r != resolved.end() && r->second.git && !r->second.git->error.empty())
      return Invalid(ctx, label, r->second.git->field, r->second.git->error);
  }

  GateResult g = GateStage1(m, setup.policy, setup.text_rules, setup.Site(), resolved);
  // The requester book as hangard folded it from the ledger; one that cannot be read is said.
  std::string requester_note;
  GrantBook grants;
  RequesterBook requesters;
  ledger::LedgerStore store(ctx.env, ctx.layout.spool, place.name);
  if (Status s = store.OpenForReading(); !s.ok())
    requester_note = "requester ownership not judged: " + s.message();
  else if (Status f = ledger::FoldBooks(store, &grants, &requesters, nullptr); !f.ok())
    requester_note = "requester ownership not judged: " + f.message();
  else if (std::string why =
               RequesterTakenReason(requesters, setup.approvers, m.requester, int64_t(getuid()));
           !why.empty())
    g.Fire(Verdict::kDeny, "requester.owner", std::move(why));

  const bool policy_differs =
      !by.running_policy_sha256.empty() && by.running_policy_sha256 != by.policy_sha256;
  const std::string policy_note =
      policy_differs
          ? "the policy on disk (sha256 " + by.policy_sha256.substr(0, 12) +
                ") is not the one hangard runs with (" + by.running_policy_sha256.substr(0, 12) +
                "): judged by the file on disk, which hangard reads at its next start"
          : "";
  const int code = g.verdict == Verdict::kAllow  ? kExitOk
                   : g.verdict == Verdict::kHold ? kExitHold
                                                 : kExitDeny;
  const std::string verdict(VerdictName(g.verdict));
  if (ctx.json) {
    json::Array fired;
    for (const GateResult::Fired& r : g.fired)
      fired.emplace_back(json::Object{
          {"rule", r.rule}, {"verdict", std::string(VerdictName(r.verdict))}, {"reason", r.why}});
    json::Object doc{{"file", label},
                     {"id", m.id.empty() ? json::Value() : json::Value(m.id)},
                     {"drone", m.drone},
                     {"requester", m.requester},
                     {"stage", 1},
                     {"verdict", verdict},
                     {"reason", g.reason.empty() ? json::Value() : json::Value(g.reason)},
                     {"rules", std::move(fired)},
                     {"config", by.config},
                     {"policy", json::Object{{"file", by.policy.empty() ? json::Value()
                                                                        : json::Value(by.policy)},
                                             {"sha256", by.policy_sha256},
                                             {"running", !policy_differs}}},
                     {"notes", json::Array{}}};
    for (const std::string& n : {requester_note, policy_note})
      if (!n.empty()) doc["notes"].as_array().emplace_back(n);
    PrintJson(ctx.out, std::move(doc));
    return code;
  }
  for (const GateResult::Fired& r : g.fired)
    ctx.out << VerdictName(r.verdict) << "\t" << Printable(r.rule) << "\t" << Printable(r.why)
            << "\n";
  ctx.out << "stage 1: " << verdict
          << (g.verdict == Verdict::kAllow ? " (it would be queued; stage 2 judges its launch plan)"
              : g.verdict == Verdict::kHold ? " (it would wait for a person to approve it)"
                                            : " (it would be denied at intake)")
          << "\n";
  for (const std::string& n : {requester_note, policy_note})
    if (!n.empty()) ctx.err << "hangar: check " << Printable(label) << ": note: " << n << "\n";
  return code;
}

}  // namespace hangar::cli
