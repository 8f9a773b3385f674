// Runs an allowed op's handler (the window's hand, man/hangar-ops.5): the handler's argv with its
// own environment only, the request's args as JSON on stdin (MISSION_OPS/NAME.args.json), stdout
// and stderr to MISSION_OPS/NAME.out, cwd MISSION_OPS, in a new process group killed at the
// handler's timeout. The caller has written the args file and taken the op key. Blocks for up to
// the timeout; safe to call from several worker threads at once (see shell/child_run.h).
#pragma once

#include <string>

#include "kernel/kernel.h"

namespace hangar {

OpFinished RunOpHandler(const RunOp& op, const std::string& mission_ops, TimeMs now);

}  // namespace hangar
