// hangar completion bash: a bash completion script generated from the command line's own
// definitions (the CLI11 app hangar_main builds), so a new command or option completes as soon as
// it exists; `make install` installs it (bash-completion's completions/hangar).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace hangar::cli {

// The script: completes command names at each level (ledger verify, config check, ...), each
// command's options and the global ones, mission ids (the spool's state directories, as ls
// shows them) where a command takes an ID, and file names elsewhere.
std::string BashCompletion(const CLI::App& app);

}  // namespace hangar::cli
