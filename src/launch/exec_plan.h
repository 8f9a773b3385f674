// hangar-shim's modes inside an engine's unit or job (the systemd and Slurm launchers): the engine
// is the supervisor and enforces the deadline, so nothing forks and nothing waits here.
//
//   hangar-shim --exec PLAN_FILE SHA256   reads the plan, checks its bytes hash to SHA256 (the plan
//                                         the gate passed), connects the drone's stdio to its run
//                                         directory, enters the room and execs the sandboxed drone
//                                         with exactly the plan's environment: the unit's or job's
//                                         main process becomes the drone.
//   hangar-shim --unit-ended RUN_DIR      systemd's ExecStopPost: keeps what the manager says of
//                                         the end ($SERVICE_RESULT, $EXIT_CODE, $EXIT_STATUS) in
//                                         RUN_DIR/unit-ended.json (launch/systemd_unit.h).
#pragma once

#include <string>

namespace hangar {

// Exit statuses when the drone could not be exec'd (the engine reports them as the drone's rc; the
// reason is on the engine's stderr: the journal, or run/slurm.err).
inline constexpr int kExecBadPlan = 78;     // EX_CONFIG: unreadable, changed after the gate, or not
                                            // a plan of an engine launcher
inline constexpr int kExecCannotRun = 127;  // the room, stdio, sandbox or program failed

// Never returns when the drone was exec'd.
int ExecPlan(const std::string& plan_file, const std::string& plan_sha256);

// 0 when the record was written, 74 (EX_IOERR) when not (systemd logs the failure).
int RecordUnitEnded(const std::string& run_dir);

}  // namespace hangar
