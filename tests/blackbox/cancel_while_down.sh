#!/usr/bin/env bash
# Regression: a cancel dropped while hangard was down, for a queued mission, was read only after
# recovery had launched that mission. Waiting control requests are read before any launch.
. "$(dirname "$0")/lib.sh"
setup 1
start_hangard
mission blocker script 1 '' "count $T/starts" 'sleep 4' | drop blocker.json
wait_until 10 test -d "$S/running/blocker" || fail "blocker did not start"
mission victim script 1 '' "count $T/starts" 'sleep 1' | drop victim.json
wait_until 10 test -d "$S/queued/victim" || fail "victim not queued"
stop_hangard TERM
hangar --no-wait cancel victim >/dev/null || fail "hangar cancel victim failed while hangard was down"
wait_until 20 test -f "$S/running/blocker/run/exit.json" || fail "blocker did not end"
start_hangard
wait_returned victim 20
[[ "$(outcome victim)" == cancelled ]] || fail "victim outcome $(outcome victim), expected cancelled"
! grep -q "start victim" "$T/starts" || fail "victim was started before its cancel was read"
[[ ! -e "$S/keys/launch.victim.1" ]] || fail "victim has a launch key"
pass
