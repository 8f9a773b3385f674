// hangard's answer to a control request the CLI dropped (man/hangar-spool.5, control/done): the
// CLI waits for control/done/NAME.json, prints what it says and exits by it, so a caller (a
// person, a script, a requesting AI) knows whether the request took effect and, if not, why.
#pragma once

#include <string>

#include "cli/context.h"

namespace hangar::cli {

// Waits up to ctx.answer_wait_s seconds for the answer to control/new/NAME (0: does not wait, and
// says the request was dropped), then prints it: SAID and the effect on stdout (with --json, one
// document {"id", "file", "answer"}), or the refusal on stderr as "hangar: WHAT: ...".
// Exit status: 0 when it took effect; 77 (EX_NOPERM) when refused for who asked, the rule named;
// 65 when invalid (no such mission, not held, an until in the past, ...); 75 when hangard did
// not answer in time (the request stays in control/new for hangard to take).
// "10 s", "0.3 s": how long a command waited, for its message.
std::string WaitedText(double seconds);

int AwaitAnswer(const Context& ctx, const std::string& id, const std::string& name,
                const std::string& what, const std::string& said);

}  // namespace hangar::cli
