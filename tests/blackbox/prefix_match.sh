#!/usr/bin/env bash
# Regression (issue 6, "prefix match": process matching by a partial id, so W-1 matched W-1-other).
# Exact identity: cancelling W-1 stops W-1 only, never W-1-other (no prefix match); a running drone
# that ignores SIGTERM is cancelled all the same, after kill_grace_s.
. "$(dirname "$0")/lib.sh"
setup 2
start_hangard
for id in W-1 W-1-other; do
  mission "$id" script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'ignore-term' 'sleep 6' 'write REPORT.md finished' |
    drop "$id.json"
done
both() { [[ -f "$T/starts" && $(wc -l <"$T/starts") -ge 2 ]]; }
wait_until 15 both || fail "the two drones did not start within 15 s"
t0=$SECONDS
hangar cancel W-1 >"$T/cancel.out" 2>&1 || fail "hangar cancel W-1 failed: $(cat "$T/cancel.out")"
wait_returned W-1 15
[[ "$(outcome W-1)" == cancelled ]] || fail "W-1 outcome $(outcome W-1), expected cancelled"
((SECONDS - t0 <= 8)) || fail "W-1 took $((SECONDS - t0)) s to return after cancel (grace is 2 s)"
[[ "$(state_of W-1-other)" == running ]] || fail "W-1-other is $(state_of W-1-other) right after W-1's cancel"
wait_returned W-1-other 20
[[ "$(outcome W-1-other)" == done ]] || fail "W-1-other outcome $(outcome W-1-other), expected done"
pass
