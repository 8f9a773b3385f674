#!/usr/bin/env bash
# `hangar cancel`: a queued mission (slots 1, a blocker running) returns "cancelled" without ever
# starting; the running blocker, cancelled next, returns "cancelled" soon after.
. "$(dirname "$0")/lib.sh"
setup 1
start_hangard
mission blocker script 1 '' "count $T/starts" 'sleep 30' 'write REPORT.md too late' | drop blocker.json
started() { [[ -f "$T/starts" ]] && grep -q "^start $1 " "$T/starts"; }
wait_until 15 started blocker || fail "the blocker did not start within 15 s (state: $(state_of blocker))"
mission waiter script 1 '' "count $T/starts" 'write REPORT.md ran' | drop waiter.json
wait_until 10 test -d "$S/queued/waiter" || fail "waiter is not queued (state: $(state_of waiter))"
hangar cancel waiter >"$T/cancel.out" 2>&1 || fail "hangar cancel waiter failed: $(cat "$T/cancel.out")"
wait_returned waiter 10
[[ "$(outcome waiter)" == cancelled ]] || fail "waiter outcome $(outcome waiter), expected cancelled"
! started waiter || fail "the cancelled queued mission started"
[[ -z "$(find "$S/keys" -name 'launch.waiter.*')" ]] || fail "the cancelled queued mission has a launch key"
[[ ! -e "$S/rooms/waiter/REPORT.md" ]] || fail "the cancelled queued mission's drone ran"
t0=$SECONDS
hangar cancel blocker >"$T/cancel.out" 2>&1 || fail "hangar cancel blocker failed: $(cat "$T/cancel.out")"
wait_returned blocker 15
[[ "$(outcome blocker)" == cancelled ]] || fail "blocker outcome $(outcome blocker), expected cancelled"
((SECONDS - t0 <= 10)) || fail "the running mission took $((SECONDS - t0)) s to return after cancel"
[[ ! -e "$S/rooms/blocker/REPORT.md" ]] || fail "the cancelled drone went on"
[[ -z "$(ls -A "$S/control/new" | grep -v '^\.keep$')" ]] || fail "control/new still holds requests"
alive || fail "hangard is not alive"
pass
