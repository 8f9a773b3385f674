#!/usr/bin/env bash
# blackbox-timeout: 420
# Drones as Slurm batch jobs (profile "launcher": "slurm") on a real one-node cluster that
# scripts/slurm-test-cluster brings up in the scratch directory: a mission that completes, one
# that fails with rc 3, one killed by Slurm at its time limit (max_minutes 1 -> --time=1; Slurm
# looks every 30 s, so it dies 60-90 s after it starts), one cancelled while it runs, and one that
# runs across a SIGKILL and restart of hangard (re-attached by its job, returned once, started
# once). Each end comes from what Slurm reports (squeue, scontrol, sacct -c), not from a shim.
# Where the cluster cannot start here: "skipped: slurm unavailable" with the reason.
. "$(dirname "$0")/lib.sh"
setup 8
start_slurm

# Profile "slurm": the fake drone, as profile "script", run as a Slurm job; asked every second.
engine_profile slurm slurm
start_hangard
started() { [[ -f "$T/starts" ]] && grep -c "^start $1 " "$T/starts" || true; }
running_once() { [[ "$(started "$1")" == 1 ]]; }
job_of() { jget "$S/running/$1/run/engine.json" "d['id']" 2>/dev/null || true; }

mission sl-slow slurm 1 '' "count $T/starts" 'sleep 300' 'write REPORT.md too late' | drop sl-slow.json
t_slow=$SECONDS
mission sl-done slurm 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md done' | drop sl-done.json
mission sl-fail slurm 1 '' "count $T/starts" 'fail on purpose' 'exit 3' | drop sl-fail.json

wait_returned sl-done 90
check done [ "$(outcome sl-done)" == done ]
check done_report [ "$(cat "$S/rooms/sl-done/REPORT.md" 2>/dev/null)" == done ]
check done_job_named jq_ok "$S/returned/sl-done/run/engine.json" \
  "d['launcher'] == 'slurm' and d['name'] == 'hangar-sl-done-1' and d['id'].isdigit()"
wait_returned sl-fail 90
check failed [ "$(outcome sl-fail)" == failed ]
check failed_rc3 jq_ok "$S/returned/sl-fail/return.json" "d['exit']['rc'] == 3"

# Cancelled while it runs: scancel, and the end Slurm reports is a cancel.
mission sl-cancel slurm 1 '' "count $T/starts" 'sleep 300' | drop sl-cancel.json
wait_until 60 running_once sl-cancel || fail "sl-cancel did not start within 60 s (state: $(state_of sl-cancel))"
hangar cancel sl-cancel >"$T/cancel.out" 2>&1 || fail "hangar cancel failed: $(cat "$T/cancel.out")"
wait_returned sl-cancel 60
check cancelled [ "$(outcome sl-cancel)" == cancelled ]

# hangard SIGKILLed and restarted while a Slurm drone runs: re-attached, returned once.
mission sl-restart slurm 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'sleep 15' 'write REPORT.md after the restart' | drop sl-restart.json
wait_until 60 running_once sl-restart || fail "sl-restart did not start within 60 s (state: $(state_of sl-restart))"
job=$(job_of sl-restart)
stop_hangard KILL
check restart_still_running [ "$(state_of sl-restart)" == running ]
start_hangard
wait_returned sl-restart 90
check restart_done [ "$(outcome sl-restart)" == done ]
check restart_started_once [ "$(started sl-restart)" == 1 ]
check restart_same_job jq_ok "$S/returned/sl-restart/run/engine.json" "d['id'] == '$job'"

# Killed by Slurm at its time limit: --time=1, checked every 30 s.
wait_returned sl-slow 200
check timed_out [ "$(outcome sl-slow)" == timed_out ]
check slow_time_limit jq_ok "$S/returned/sl-slow/plan.json" "d['enforced_deadline_ms'] == 60000"
note "sl-slow returned $((SECONDS - t_slow)) s after it was dropped"
check slow_not_late [ ! -e "$S/rooms/sl-slow/REPORT.md" ]
for id in sl-done sl-fail sl-cancel sl-slow; do
  check "${id}_started_once" [ "$(started "$id")" == 1 ]
done
"$BIN/hangar" --spool "$S" ledger verify >/dev/null 2>&1 || fail "hangar ledger verify failed"
alive || fail "hangard is not alive"
((FAILED == 0)) || exit 1
pass
