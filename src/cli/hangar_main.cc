// hangar: the command line of the spool (man/hangar.1). Parses the arguments, builds the Context
// and hands over to one command; the commands live in their own files.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "kernel/version.h"

namespace hangar::cli {
namespace {

std::string DefaultSpool() {
  const char* s = std::getenv("HANGAR_SPOOL");
  return s && *s ? s : "/var/spool/hangar";
}

int Main(int argc, char** argv) {
  CLI::App app{"hangar: submit missions to a hangar spool and follow them (see hangar(1))",
               "hangar"};
  std::string spool, config;
  bool json = false, no_wait = false;
  double answer_wait_s = 10;
  app.add_option("--spool", spool,
                 "the spool directory (default: $HANGAR_SPOOL, else /var/spool/hangar)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--config", config, "the config file (default: SPOOL/hangar.conf)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--json", json, "print one JSON document on stdout");
  app.add_option("--answer-wait", answer_wait_s,
                 "control requests: seconds to wait for hangard's answer (default 10)");
  app.add_flag("--no-wait", no_wait, "control requests: drop the request and leave");
  app.set_version_flag("--version", VersionLine("hangar"));
  app.require_subcommand(1);

  std::string file, state, id;
  std::optional<double> timeout;
  // Every command's --help ends with the global options, which it takes before or after its name.
  std::string globals = "\nGlobal options (before or after the command):\n";
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_name() == "--help") continue;
    std::string name = o->get_name() + (o->get_expected_min() > 0 ? " " + o->get_type_name() : "");
    name.resize(std::max<size_t>(name.size() + 2, 28), ' ');
    globals += "  " + name + o->get_description() + "\n";
  }
  auto command = [&app, &globals](const char* name, const char* what) {
    CLI::App* c = app.add_subcommand(name, what);
    c->footer(globals);
    c->fallthrough();  // global options may follow the command
    return c;
  };
  CLI::App* submit =
      command("submit", "validate a mission and drop it into the spool; prints its id");
  submit->add_option("file", file, "the mission file, or - for stdin")->required();
  CLI::App* check =
      command("check",
              "judge a mission at stage 1 as intake would, without submitting it; exit 0 allow, "
              "1 hold, 2 deny, 65 invalid");
  check->add_option("file", file, "the mission file, or - for stdin")->required();
  ListArgs list_args;
  CLI::App* ls =
      command("ls", "list missions, oldest first: ID STATE AGE ELAPSED DRONE OUTCOME WHY");
  ls->add_option("state", list_args.states,
                 "only these states: incoming hold queued running returned denied rejected");
  ls->add_option("--requester", list_args.requester, "only this requester's missions");
  ls->add_option("--since", list_args.since,
                 "only missions taken in since TIME (RFC 3339, or 90s, 10m, 2h, 3d ago)");
  ls->add_flag("--json-lines", list_args.json_lines, "one JSON object per mission and line");
  ls->add_option("--watch", list_args.watch,
                 "one screen of the running, queued and held missions, again every S seconds")
      ->expected(0, 1)
      ->default_str("2")
      ->check(CLI::Range(0.1, 3600.0));
  CLI::App* show = command("show", "show one mission: state, fields, verdicts, return");
  show->add_option("id", id, "the mission id")->required();
  CLI::App* wait = command("wait", "wait until a mission ends; exit 0 when done, 1 otherwise");
  wait->add_option("id", id, "the mission id")->required();
  wait->add_option("--timeout", timeout, "give up after this many seconds (exit 75)");
  LogsArgs logs_args;
  CLI::App* logs = command("logs", "print a drone's output; -f follows it until the mission ends");
  logs->add_option("id", logs_args.id, "the mission id")->required();
  logs->add_flag("-f,--follow", logs_args.follow,
                 "follow the output until the mission ends; exit as hangar wait");
  logs->add_flag("--stderr", logs_args.stderr_only, "the drone's standard error instead");
  logs->add_flag("--events", logs_args.events,
                 "a codex or claude drone's events, one line each (command, file, message)");
  logs->add_option("--tail", logs_args.tail, "start with the last N lines")
      ->check(CLI::NonNegativeNumber);
  CLI::App* cancel = command("cancel", "ask the kernel to stop a held, queued or running mission");
  cancel->add_option("id", id, "the mission id")->required();
  CLI::App* retry =
      command("retry", "launch a returned mission again as its next attempt (lost, failed, ...)");
  retry->add_option("id", id, "the mission id")->required();
  PurgeArgs purge_args;
  CLI::App* purge = command(
      "purge", "remove ended missions' directories and rooms; each id stays taken (ledgered)");
  purge->add_option("id", purge_args.ids, "the missions to purge");
  purge->add_option("--older-than", purge_args.older_than,
                    "those that ended before TIME (RFC 3339) or longer ago than 90s, 10m, 2h, 30d");
  purge
      ->add_option("--state", purge_args.states,
                   "only this state: returned, denied or rejected (again for more; default: all "
                   "three)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  purge->add_flag("--dry-run", purge_args.dry_run, "list what would be purged; change nothing");
  purge->add_option("--why", purge_args.why, "the reason, for the ledger");
  std::string canary_profile, release_why;
  CLI::App* release =
      command("release-canary",
              "let a profile's missions that wait on its canary launch (an approver; ledgered)");
  release->add_option("profile", canary_profile, "the drone profile")->required();
  release->add_option("--why", release_why, "the reason, for the ledger");
  CLI::App* patch = command("patch", "print the change a workspace mission returned (its patch)");
  patch->add_option("id", id, "the mission id")->required();
  std::string apply_to;
  bool three_way = false;
  CLI::App* apply =
      command("apply", "apply a workspace mission's change to a clean checkout of its base");
  apply->add_option("id", id, "the mission id")->required();
  apply->add_option("--to", apply_to, "the checkout (default: the mission's repository)");
  apply->add_flag("--3way", three_way, "merge when the checkout has moved past the base");
  CLI::App* config_cmd = command("config", "the config file");
  config_cmd->require_subcommand(1);
  std::string config_file;
  CLI::App* config_check = config_cmd->add_subcommand(
      "check", "check a config as hangard reads it, and its programs, templates and policy");
  config_check->add_option("file", config_file, "the config (default: the one hangard reads)");
  config_check->fallthrough();
  CLI::App* status =
      command("status", "kernel presence, counts per state, oldest waiting, notify backlog");
  bool status_check = false;
  status->add_flag("--check", status_check,
                   "a liveness probe: exit 0 when hangard takes work, 1 when its work or ledger "
                   "stopped, 69 when it is down");
  std::string why;
  CLI::App* approve = command("approve", "approve a held mission (recorded in the ledger)");
  approve->add_option("id", id, "the mission id")->required();
  approve->add_option("--why", why, "why it may run, for the ledger");
  std::string sign_key, principal;
  approve->add_option("--sign", sign_key,
                      "sign the approval with this SSH private key (ssh-keygen -Y sign)");
  approve->add_option("--principal", principal,
                      "the signer's name in hangard's allowed_signers (default: $USER)");
  CLI::App* deny = command("deny", "deny a held mission (recorded in the ledger)");
  deny->add_option("id", id, "the mission id")->required();
  deny->add_option("--why", why, "the reason, for the requester and the ledger")->required();
  GrantArgs grant_args;
  auto grant_like = [&](const char* name, const char* what) {
    CLI::App* c = command(name, what);
    c->add_option("op", grant_args.op, "the op, e.g. git.push")->required();
    auto* m = c->add_option("--mission", grant_args.mission, "for this mission id");
    auto* r =
        c->add_option("--requester", grant_args.requester, "for every mission of this requester");
    m->excludes(r);
    r->excludes(m);
    c->require_option(1, 0);
    return c;
  };
  CLI::App* grant = grant_like("grant", "grant an op to a mission or requester (in the ledger)");
  grant->add_option("--until", grant_args.until, "RFC 3339 time the grant ends (else: revoked)");
  CLI::App* revoke = grant_like("revoke", "revoke an op from a mission or requester");
  bool all_grants = false;
  CLI::App* grants = command("grants", "the grants in force, folded from the ledger");
  grants->add_flag("--all", all_grants, "every grant and revocation, in ledger order");
  CLI::App* ledger = command("ledger", "verify, show or reanchor the ledger");
  ledger->require_subcommand(1);
  std::string anchor_dir, checkpoint, kind;
  int64_t from = 1;
  CLI::App* lverify = ledger->add_subcommand("verify", "check the ledger against its anchor");
  lverify->fallthrough();
  lverify->add_option("--anchor", anchor_dir, "the anchor directory (default: as hangard says)");
  lverify->add_option("--checkpoint", checkpoint,
                      "also prove the ledger extends this signed checkpoint");
  CLI::App* lshow = ledger->add_subcommand("show", "print ledger entries");
  lshow->fallthrough();
  lshow->add_option("--from", from, "from this seq");
  lshow->add_option("--kind", kind, "only entries of this kind, e.g. grant");
  CLI::App* lreanchor =
      ledger->add_subcommand("reanchor", "ask a failed-closed kernel to start a new epoch");
  lreanchor->fallthrough();
  lreanchor->add_option("--why", why, "why the failure is understood and accepted")->required();

  CLI::App* policy = command("policy", "check a policy file (hangar-policy(5))");
  policy->require_subcommand(1);
  CLI::App* pcheck = policy->add_subcommand(
      "check", "validate a policy file with the kernel's reader; print its rule count and sha256");
  pcheck->fallthrough();
  pcheck->add_option("file", file, "the policy file")->required();

  CLI::App* ptry = policy->add_subcommand(
      "try", "replay the recorded signals under FILE: which missions it would decide otherwise");
  ptry->fallthrough();
  ptry->add_option("file", file, "the candidate policy file")->required();
  std::string since;
  ptry->add_option("--since", since, "only signals from this time (RFC 3339)");

  ReplayArgs replay_args;
  int64_t replay_to = 0;
  CLI::App* replay = command(
      "replay", "feed the recorded signals to this kernel again; print what it decides otherwise");
  replay->add_option("--from", replay_args.from, "report the steps from this ledger seq on");
  CLI::Option* to_opt = replay->add_option("--to", replay_to, "stop after this ledger seq");
  replay->add_option("--policy", replay_args.policy, "this policy in place of the recorded one");
  replay->add_option("--config", replay_args.config, "this config in place of the recorded one");
  replay->add_option("--into", replay_args.into,
                     "write the replay's ledger and anchor here (default: a fresh temporary "
                     "directory)");

  std::string requester;
  int64_t mem_version = 0, mem_from = 0, mem_to = 0;
  size_t max_bytes = 6000;
  CLI::App* memory = command("memory", "a requester's work states: put, log, show, diff");
  memory->require_subcommand(1);
  auto memory_cmd = [&](const char* name, const char* what) {
    CLI::App* c = memory->add_subcommand(name, what);
    c->fallthrough();
    c->add_option("--requester", requester, "the requester")->required();
    return c;
  };
  CLI::App* mput = memory_cmd("put", "hand a work state to the kernel as the next version");
  mput->add_option("file", file, "the work state file, or - for stdin")->required();
  CLI::App* mlog = memory_cmd("log", "the stored versions, from the ledger");
  CLI::App* mshow = memory_cmd("show", "one version's sections (default: the latest)");
  mshow->add_option("--version", mem_version, "this version");
  CLI::App* mdiff = memory_cmd("diff", "diff two versions (default: the last two)");
  mdiff->add_option("--from", mem_from, "the older version");
  mdiff->add_option("--to", mem_to, "the newer version");
  CLI::App* resume = command(
      "resume", "the resume pack: what hangar observes apart from what the last session claimed");
  resume->add_option("--requester", requester, "the requester")->required();
  resume->add_option("--max-bytes", max_bytes, "at most this many bytes of text (default 6000)");

  std::string shell;
  CLI::App* completion = app.add_subcommand(
      "completion", "print a completion script generated from these definitions (bash)");
  completion->add_option("shell", shell, "the shell: bash")
      ->required()
      ->check(CLI::IsMember({"bash"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "hangar: cannot parse arguments: " << Printable(e.what())
              << " (hangar --help lists them)\n";
    return kExitUsage;
  }
  if (!(answer_wait_s >= 0 && answer_wait_s <= 86400))
    return FailTo(std::cerr, kExitUsage, "--answer-wait", "expected seconds, 0 to 86400");
  if (timeout && !(*timeout >= 0 && *timeout <= 1e9))
    return FailTo(std::cerr, kExitUsage, "wait", "--timeout: expected seconds, 0 or more");

  if (completion->parsed()) {
    std::cout << BashCompletion(app);
    return kExitOk;
  }
  std::error_code ec;
  if (spool.empty()) spool = DefaultSpool();
  std::filesystem::path abs = std::filesystem::absolute(spool, ec);
  if (!ec) spool = abs.lexically_normal().string();
  while (spool.size() > 1 && spool.back() == '/') spool.pop_back();
  Context ctx{RealEnv(),
              Layout::Make(spool, ""),
              config.empty() ? DefaultConfigPath(spool) : config,
              !config.empty(),
              json,
              std::cout,
              std::cerr,
              no_wait ? 0.0 : answer_wait_s};

  if (submit->parsed()) return RunSubmit(ctx, file);
  if (check->parsed()) return RunCheck(ctx, file);
  if (ls->parsed()) return RunList(ctx, list_args);
  if (show->parsed()) return RunShow(ctx, id);
  if (wait->parsed()) return RunWait(ctx, id, timeout);
  if (logs->parsed()) return RunLogs(ctx, logs_args);
  if (cancel->parsed()) return RunCancel(ctx, id);
  if (retry->parsed()) return RunRetry(ctx, id);
  if (purge->parsed()) return RunPurge(ctx, purge_args);
  if (release->parsed()) return RunReleaseCanary(ctx, canary_profile, release_why);
  if (status->parsed()) return RunStatus(ctx, status_check);
  if (config_check->parsed()) return RunConfigCheck(ctx, config_file);
  if (patch->parsed()) return RunPatch(ctx, id);
  if (apply->parsed()) return RunApply(ctx, id, apply_to, three_way);
  if (approve->parsed()) return RunApprove(ctx, id, why, sign_key, principal);
  if (deny->parsed()) return RunDeny(ctx, id, why);
  if (grant->parsed()) return RunGrant(ctx, grant_args, false);
  if (revoke->parsed()) return RunGrant(ctx, grant_args, true);
  if (grants->parsed()) return RunGrants(ctx, all_grants);
  if (lverify->parsed()) return RunLedgerVerify(ctx, anchor_dir, checkpoint);
  if (lshow->parsed()) return RunLedgerShow(ctx, from, kind);
  if (lreanchor->parsed()) return RunReanchor(ctx, why);
  if (pcheck->parsed()) return RunPolicyCheck(ctx, file);
  if (ptry->parsed()) return RunPolicyTry(ctx, file, since);
  if (mput->parsed()) return RunMemoryPut(ctx, requester, file);
  if (mlog->parsed()) return RunMemoryLog(ctx, requester);
  if (mshow->parsed()) return RunMemoryShow(ctx, requester, mem_version);
  if (mdiff->parsed()) return RunMemoryDiff(ctx, requester, mem_from, mem_to);
  if (resume->parsed()) return RunResume(ctx, requester, max_bytes);
  if (replay->parsed()) {
    if (to_opt->count()) replay_args.to = replay_to;
    return RunReplay(ctx, replay_args);
  }
  return kExitUsage;
}

}  // namespace
}  // namespace hangar::cli

int main(int argc, char** argv) {
  return hangar::cli::Main(argc, argv);
}
