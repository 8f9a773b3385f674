// The systemd launcher's pure parts: the exact systemd-run command line for a plan, the systemctl
// command lines that observe and stop its unit, and the parsers of what they print. The unit name
// is the identity, matched by the full name, never a prefix. No systemd is needed to test these:
// systemd_unit_test.cc asserts the argv for representative plans and parses recorded outputs.
//
// The unit runs `hangar-shim --exec PLAN_FILE SHA256` (launch/exec_plan.h): the shim checks the
// plan's bytes against the hash the gate passed and execs the sandboxed drone in its place, so the
// unit's main process is the drone. systemd enforces the deadline (RuntimeMaxSec; Result=timeout).
// The drone's environment comes from plan.json, never from --setenv: unit properties are readable
// by every local user (`systemctl show`), a profile's credentials must not be.
// As --collect lets systemd forget the unit once it ended, the unit's ExecStopPost runs
// `hangar-shim --unit-ended RUN_DIR`, which keeps what systemd says of the end ($SERVICE_RESULT,
// $EXIT_CODE, $EXIT_STATUS) in RUN_DIR/unit-ended.json.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "base/timefmt.h"
#include "kernel/plan.h"
#include "launch/engine_report.h"

namespace hangar {

struct SystemdOptions {
  bool user = false;  // the user's manager (--user) rather than the system's
  std::string systemd_run = "systemd-run";
  std::string systemctl = "systemctl";
};

// "hangar-ID-ATTEMPT.service".
std::string UnitName(const std::string& id, int attempt);

// systemd-run [--user] --unit=hangar-ID-N --description=... --property=Type=exec
//   --property=RuntimeMaxSec=<plan deadline in whole seconds, rounded up> --collect
//   --working-directory=ROOM --property=ExecStopPost=SHIM --unit-ended RUN --quiet
//   -- SHIM --exec PLAN_FILE SHA256
// (whatever the final order, the test pins it). Arguments are escaped so systemd takes them
// literally ($ and %, quoting in property values).
std::vector<std::string> SystemdRunArgv(const Plan& plan, const std::string& shim,
                                        const std::string& plan_file, const std::string& sha256,
                                        const SystemdOptions& o);

// systemctl [--user] show -p Id,LoadState,ActiveState,SubState,Result,ExecMainStatus,ExecMainCode,
//   ExecMainStartTimestamp,ExecMainExitTimestamp -- UNIT...
std::vector<std::string> SystemctlShowArgv(const std::vector<std::string>& units,
                                           const SystemdOptions& o);
// systemctl [--user] stop -- UNIT   (blocks until the unit is stopped; its ExecStopPost runs)
std::vector<std::string> SystemctlStopArgv(const std::string& unit, const SystemdOptions& o);

// What `systemctl show` printed for UNITS (blocks of KEY=VALUE lines, one per unit in order,
// separated by a blank line): one report per unit, in the same order. LoadState=not-found is
// kUnknown; activating is kPending; active/deactivating is kRunning; inactive or failed with an
// ExecMainExitTimestamp is kEnded (ExecMainCode 1 = exited: ExecMainStatus is the rc; 2 killed /
// 3 dumped: ExecMainStatus is the signal; Result=timeout is timed_out). Invalid when the text does
// not have one block per unit or a block names another unit (Id=): never matched by prefix.
Result<std::vector<EngineReport>> ParseSystemctlShow(std::string_view text,
                                                     const std::vector<std::string>& units);

// The record `hangar-shim --unit-ended` writes from its environment (SERVICE_RESULT, EXIT_CODE,
// EXIT_STATUS, as systemd.exec(5) gives them to ExecStopPost) at NOW:
// {"hangar":1,"unit":...,"service_result":...,"exit_code":...,"exit_status":...,"time":"..."}.
json::Value UnitEndedRecord(const std::map<std::string, std::string>& env, TimeMs now);
// An ended report from that record (EXIT_CODE exited: rc = EXIT_STATUS; killed/dumped: signal by
// name, e.g. TERM -> 15; SERVICE_RESULT timeout: timed_out). Invalid names the field.
Result<EngineReport> ReportFromUnitEnded(const json::Value& record);

}  // namespace hangar
