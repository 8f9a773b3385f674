#!/usr/bin/env bash
# A drone that sleeps past max_minutes 0.05 (3 s) is stopped from outside: outcome "timed_out"
# within the deadline plus kill_grace_s (2 s) plus slack, and `hangar wait` exits non-zero.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
t0=$(date +%s%N)
mission m-slow script 0.05 '[{"file":"REPORT.md"}]' 'sleep 60' 'write REPORT.md too late' | drop m-slow.json
wait_returned m-slow 15
elapsed_ms=$((($(date +%s%N) - t0) / 1000000))
[[ "$(outcome m-slow)" == timed_out ]] || fail "outcome $(outcome m-slow), expected timed_out"
((elapsed_ms >= 2900)) || fail "returned after $elapsed_ms ms, before the 3 s deadline"
((elapsed_ms <= 9000)) || fail "returned after $elapsed_ms ms, expected within 3 s + 2 s grace (+4 s slack)"
[[ ! -e "$S/rooms/m-slow/REPORT.md" ]] || fail "the drone went on after its deadline"
group_gone "$S/returned/m-slow/run/shim.json" || fail "processes of the drone's group (its sleep) are still alive"
rc=0
timeout 10 "$BIN/hangar" --spool "$S" wait m-slow >/dev/null 2>&1 || rc=$?
((rc != 0 && rc != 124)) || fail "hangar wait on a timed-out mission exited $rc, expected non-zero"
pass
