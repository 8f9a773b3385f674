#!/usr/bin/env bash
# A drone that ignores SIGTERM past its deadline (max_minutes 0.05 = 3 s) is killed after
# kill_grace_s (2 s): outcome "timed_out", not before 3 s + 2 s, and nothing of its group is left.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
t0=$(date +%s%N)
mission stubborn script 0.05 '' 'ignore-term' 'sleep 60' 'write LATE too late' | drop stubborn.json
wait_returned stubborn 20
elapsed_ms=$((($(date +%s%N) - t0) / 1000000))
[[ "$(outcome stubborn)" == timed_out ]] || fail "outcome $(outcome stubborn), expected timed_out"
((elapsed_ms >= 4800)) || fail "returned after $elapsed_ms ms: the 2 s grace after SIGTERM was not given"
((elapsed_ms <= 11000)) || fail "returned after $elapsed_ms ms, expected about 5 s"
jq_ok "$S/returned/stubborn/return.json" "d['exit']['signal'] == 9" ||
  fail "exit is $(jget "$S/returned/stubborn/return.json" "d['exit']"), expected signal 9"
[[ ! -e "$S/rooms/stubborn/LATE" ]] || fail "the drone went on after SIGKILL"
group_gone "$S/returned/stubborn/run/shim.json" || fail "processes of the drone's group are still alive"
pass
