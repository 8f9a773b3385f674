// The systemd launcher's pure parts: the exact systemd-run command line for a plan, the systemctl
// command lines that observe and stop its unit, and the parsers of what they print. The unit name
// is the identity, matched by the full name, never a prefix. No systemd is needed to test these:
// systemd_unit_test.cc asserts the argv for representative plans and parses recorded outputs.
//
// The unit runs `hangar-shim --exec PLAN_FILE SHA256` (launch/exec_plan.h): the shim checks the
// plan's bytes against the hash the gate passed and execs the sandboxed drone in its place, so the
// unit's main process is the drone. systemd enforces the deadline (RuntimeMaxSec; Result=timeout).
// The drone's environment comes from plan.json, never from --setenv: unit properties are readable
// by every local user (`systemctl show`), a profile's credentials must not be. The unit's one
// variable is HANGAR_UNIT, its own name: no secret, and not the drone's (the shim gives the drone
// plan.json's environment only).
// As --collect lets systemd forget the unit once it ended, the unit's ExecStopPost runs
// `hangar-shim --unit-ended RUN_DIR`, which keeps what systemd says of the end ($HANGAR_UNIT,
// $SERVICE_RESULT, $EXIT_CODE, $EXIT_STATUS) in RUN_DIR/unit-ended.json.
//
// Taken literally (systemd 252, Debian 12; checked against the real systemd-run and systemctl):
// systemd resolves no % specifier in what systemd-run sends over D-Bus, so % is never escaped.
// It does expand $VAR and ${VAR} in ExecStart's arguments (systemd-run gained
// --expand-environment=no only in 254), so $ in PLAN_FILE and SHA256 is written $$. ExecStopPost
// is prefixed ':' (no expansion at all) and its words are double-quoted for systemd-run's own
// splitting. WorkingDirectory= is taken as it is. What cannot be escaped is the shim's own path:
// systemd-run looks it up on disk before sending it, and systemd expands $ in the argv[0] it
// gives it, so the launcher refuses such a shim (CheckSystemdShim) rather than run it.
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

// OK when systemd-run can run SHIM by its path as it is: absolute, no '$', no control character.
// Invalid ("cannot run SHIM under systemd-run: why") otherwise; the launcher refuses the launch.
Status CheckSystemdShim(const std::string& shim);

// systemd-run [--user] --unit=hangar-ID-N.service "--description=hangar ID attempt N" --quiet
//   --collect --property=Type=exec --property=RuntimeMaxSec=S --property=TimeoutStopSec=G
//   --setenv=HANGAR_UNIT=UNIT
//   --working-directory=ROOM [--property=MemoryMax=MB M] [--property=TasksMax=PROCESSES]
//   '--property=ExecStopPost=:"SHIM" --unit-ended "RUN"'
//   -- SHIM --exec PLAN_FILE SHA256
// S is the plan's enforced_deadline_ms in whole seconds rounded up, at least 1; G its grace_ms
// likewise. In "..." words
// \ and " are backslashed and control characters written \xNN; $ in PLAN_FILE and SHA256 is written
// $$ (see above). SHIM must pass CheckSystemdShim. systemd-run fails (exit 1) when the unit exists
// already.
std::vector<std::string> SystemdRunArgv(const Plan& plan, const std::string& shim,
                                        const std::string& plan_file, const std::string& sha256,
                                        const SystemdOptions& o);

// systemctl [--user] show --timestamp=us+utc -p Id,LoadState,ActiveState,SubState,Result,
//   ExecMainStatus,ExecMainCode,ExecMainStartTimestamp,ExecMainExitTimestamp -- UNIT...
// (--timestamp=us+utc: times in UTC with microseconds, whatever hangard's time zone.)
std::vector<std::string> SystemctlShowArgv(const std::vector<std::string>& units,
                                           const SystemdOptions& o);
// systemctl [--user] stop --no-block -- UNIT   (queues the stop; the end is observed, and its
// ExecStopPost runs)
std::vector<std::string> SystemctlStopArgv(const std::string& unit, const SystemdOptions& o);

// What `systemctl show` printed for UNITS (blocks of KEY=VALUE lines, one per unit in order,
// separated by a blank line; within a block the manager's order, Id= not first): one report per
// unit, in the same order. LoadState=not-found is kUnknown (never started, or collected);
// another LoadState than loaded is kEnded with an error. ActiveState activating is kPending;
// active, reloading, deactivating are kRunning; inactive, failed, maintenance are kEnded once the
// main process ended (ExecMainCode 1 = exited: ExecMainStatus is the rc; 2 killed / 3 dumped:
// ExecMainStatus is the signal; Result=timeout is timed_out, e.g. after RuntimeMaxSec with
// killed/15), kEnded with an error when failed without one (Result=resources), else kPending
// (loaded, its start job not run). exit.started is filled whenever systemd gives it, exit.ended
// when kEnded; a time not in the us+utc form is left 0. Invalid when the text does not have one
// block per unit, a block names another unit (Id=: never matched by prefix), lacks a property or
// has one twice.
Result<std::vector<EngineReport>> ParseSystemctlShow(std::string_view text,
                                                     const std::vector<std::string>& units);

// The record `hangar-shim --unit-ended` writes from its environment (HANGAR_UNIT; SERVICE_RESULT,
// EXIT_CODE, EXIT_STATUS, as systemd.exec(5) gives them to ExecStopPost) at NOW:
// {"hangar":1,"unit":...,"service_result":...,"exit_code":...,"exit_status":...,"time":"..."}.
// A variable that is unset (systemd sets no EXIT_* when it started no main process) or not UTF-8
// is null: the record keeps what was there, ReportFromUnitEnded judges it.
json::Value UnitEndedRecord(const std::map<std::string, std::string>& env, TimeMs now);
// An ended report from that record (EXIT_CODE exited: rc = EXIT_STATUS; killed/dumped: signal by
// systemd's name, e.g. TERM -> 15, RTMIN+2, or number; SERVICE_RESULT timeout: timed_out; ended =
// time; no EXIT_CODE nor EXIT_STATUS: an error, no main process). Invalid names the field:
// "unit-ended.json: FIELD: expected ...".
Result<EngineReport> ReportFromUnitEnded(const json::Value& record);

}  // namespace hangar
