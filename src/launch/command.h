// Running an engine's command-line tool (systemctl, systemd-run, sbatch, squeue, scontrol, scancel,
// sacct) and keeping what it printed. The launchers take a CommandRunner, so unit tests assert the
// exact argv they would run and feed them recorded outputs, with no engine on the machine.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hangar {

struct CommandResult {
  bool started = false;   // false: it could not be run at all (error says why)
  std::optional<int> rc;  // its exit status; nullopt when killed (timeout) or not started
  std::string out, err;   // what it printed (each kept up to 1 MiB)
  std::string error;      // why it could not be run, or "timed out after N ms"
  bool ok() const { return started && rc && *rc == 0; }
  // "PROGRAM: exit 1: first line of stderr" and the like, for messages.
  std::string Describe(const std::string& program) const;
};

using CommandRunner = std::function<CommandResult(const std::vector<std::string>& argv)>;

// Runs ARGV (argv[0] looked up on PATH) with hangard's own environment plus EXTRA (NAME=VALUE
// entries, replacing a variable of the same name), stdin /dev/null (or INPUT's bytes, when
// given), for at most TIMEOUT (then its process group is killed).
CommandResult RunCommand(const std::vector<std::string>& argv,
                         std::chrono::milliseconds timeout = std::chrono::seconds(30),
                         const std::vector<std::string>& extra_env = {},
                         const std::optional<std::string>& input = std::nullopt);

}  // namespace hangar
