#!/usr/bin/env bash
# blackbox-timeout: 300
# Drones as transient systemd units (profile "launcher": "systemd"), on a machine whose PID 1 is
# systemd and with root: a mission that completes, one that fails with rc 3, one stopped by
# RuntimeMaxSec (max_minutes 0.05 -> 3 s; Result=timeout), one cancelled while it runs (systemctl
# stop), one across a SIGKILL and restart of hangard; each unit is named hangar-ID-1.service, and
# is gone once it ended (--collect): its end came from ExecStopPost's record. Without a live
# systemd here it prints "skipped: no systemd" — never a pass.
. "$(dirname "$0")/lib.sh"
[[ -d /run/systemd/system ]] || skip "skipped: no systemd (PID 1 is $(cat /proc/1/comm 2>/dev/null))"
command -v systemd-run >/dev/null && command -v systemctl >/dev/null ||
  skip "skipped: no systemd (systemd-run or systemctl missing)"
[[ "$(id -u)" == 0 ]] || skip "skipped: no systemd system manager for this user (not root)"
setup 8
engine_profile unit systemd
teardown_extra() {
  local u
  for u in u-done u-fail u-slow u-cancel u-restart; do
    systemctl stop "hangar-$u-1.service" >/dev/null 2>&1 || true
  done
}
start_hangard
started() { [[ -f "$T/starts" ]] && grep -c "^start $1 " "$T/starts" || true; }
running_once() { [[ "$(started "$1")" == 1 ]]; }
unit_gone() { [[ "$(systemctl show -p LoadState --value "hangar-$1-1.service")" == not-found ]]; }

mission u-slow unit 0.05 '' "count $T/starts" 'sleep 60' 'write REPORT.md too late' | drop u-slow.json
mission u-done unit 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md done' | drop u-done.json
mission u-fail unit 1 '' "count $T/starts" 'exit 3' | drop u-fail.json
wait_returned u-done 30
check done [ "$(outcome u-done)" == done ]
check done_unit jq_ok "$S/returned/u-done/run/engine.json" "d['name'] == 'hangar-u-done-1.service'"
check done_unit_collected wait_until 10 unit_gone u-done
wait_returned u-fail 30
check failed_rc3 jq_ok "$S/returned/u-fail/return.json" "d['outcome'] == 'failed' and d['exit']['rc'] == 3"
wait_returned u-slow 30
check timed_out [ "$(outcome u-slow)" == timed_out ]
check slow_not_late [ ! -e "$S/rooms/u-slow/REPORT.md" ]

mission u-cancel unit 1 '' "count $T/starts" 'sleep 60' | drop u-cancel.json
wait_until 30 running_once u-cancel || fail "u-cancel did not start (state: $(state_of u-cancel))"
hangar cancel u-cancel >/dev/null 2>&1 || fail "hangar cancel failed"
wait_returned u-cancel 30
check cancelled [ "$(outcome u-cancel)" == cancelled ]

mission u-restart unit 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'sleep 8' 'write REPORT.md after' | drop u-restart.json
wait_until 30 running_once u-restart || fail "u-restart did not start (state: $(state_of u-restart))"
stop_hangard KILL
start_hangard
wait_returned u-restart 60
check restart_done [ "$(outcome u-restart)" == done ]
for id in u-done u-fail u-slow u-cancel u-restart; do
  check "${id}_started_once" [ "$(started "$id")" == 1 ]
done
alive || fail "hangard is not alive"
((FAILED == 0)) || exit 1
pass
