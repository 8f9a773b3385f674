// hangar: the command line of the spool (man/hangar.1). Parses the arguments, builds the Context
// and hands over to one command; the commands live in their own files.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/output.h"

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
  bool json = false;
  app.add_option("--spool", spool,
                 "the spool directory (default: $HANGAR_SPOOL, else /var/spool/hangar)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--config", config, "the config file (default: SPOOL/hangar.conf)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--json", json, "print one JSON document on stdout");
  app.require_subcommand(1);

  std::string file, state, id;
  std::optional<double> timeout;
  auto command = [&app](const char* name, const char* what) {
    CLI::App* c = app.add_subcommand(name, what);
    c->fallthrough();  // global options may follow the command
    return c;
  };
  CLI::App* submit =
      command("submit", "validate a mission and drop it into the spool; prints its id");
  submit->add_option("file", file, "the mission file, or - for stdin")->required();
  CLI::App* ls = command("ls", "list missions: ID STATE AGE DRONE OUTCOME");
  ls->add_option("state", state,
                 "only this state: incoming hold queued running returned denied rejected");
  CLI::App* show = command("show", "show one mission: state, fields, verdicts, return");
  show->add_option("id", id, "the mission id")->required();
  CLI::App* wait = command("wait", "wait until a mission ends; exit 0 when done, 1 otherwise");
  wait->add_option("id", id, "the mission id")->required();
  wait->add_option("--timeout", timeout, "give up after this many seconds (exit 75)");
  CLI::App* cancel = command("cancel", "ask the kernel to stop a held, queued or running mission");
  cancel->add_option("id", id, "the mission id")->required();
  CLI::App* status =
      command("status", "kernel presence, counts per state, oldest waiting, notify backlog");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "hangar: cannot parse arguments: " << e.what() << " (hangar --help lists them)\n";
    return kExitUsage;
  }
  if (timeout && !(*timeout >= 0 && *timeout <= 1e9))
    return FailTo(std::cerr, kExitUsage, "wait", "--timeout: expected seconds, 0 or more");

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
              std::cerr};

  if (submit->parsed()) return RunSubmit(ctx, file);
  if (ls->parsed()) return RunList(ctx, state);
  if (show->parsed()) return RunShow(ctx, id);
  if (wait->parsed()) return RunWait(ctx, id, timeout);
  if (cancel->parsed()) return RunCancel(ctx, id);
  if (status->parsed()) return RunStatus(ctx);
  return kExitUsage;
}

}  // namespace
}  // namespace hangar::cli

int main(int argc, char** argv) {
  return hangar::cli::Main(argc, argv);
}
