#!/usr/bin/env bash
# SIGTERM stops hangard cleanly (hangard(8) SIGNALS): exit 0, "status": "stopped" in hangard.json,
# and a running drone is left to its supervisor (it still finishes and is returned after a restart).
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mission left script 1 '[{"file":"REPORT.md"}]' 'sleep 2' 'write REPORT.md fine' | drop left.json
wait_until 10 test -f "$S/running/left/run/shim.json" || fail "left did not start"
pid=$HPID
kill -TERM "$pid"
wait_until 10 dead "$pid" || fail "hangard did not stop within 10 s of SIGTERM"
rc=0
wait "$pid" || rc=$?
HPID=''
((rc == 0)) || fail "hangard exited $rc on SIGTERM, expected 0 (143 = killed by the signal, unhandled)"
jq_ok "$S/hangard.json" "d['status'] == 'stopped'" || fail "hangard.json does not say stopped: $(cat "$S/hangard.json")"
start_hangard
wait_returned left 15
[[ "$(outcome left)" == done ]] || fail "left outcome $(outcome left), expected done"
pass
