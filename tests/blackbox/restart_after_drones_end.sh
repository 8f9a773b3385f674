#!/usr/bin/env bash
# Drones that end while hangard is down (SIGKILLed) are returned when it starts again, from the
# exit.json their shims left: outcome done, one start each, no second attempt.
. "$(dirname "$0")/lib.sh"
setup 2
start_hangard
for id in e1 e2; do
  mission "$id" script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'sleep 2' 'write REPORT.md ended alone' |
    drop "$id.json"
done
both_started() { [[ -f "$T/starts" && $(wc -l <"$T/starts") -ge 2 ]]; }
wait_until 15 both_started || fail "the drones did not start within 15 s"
stop_hangard KILL
both_exited() { [[ -f "$S/running/e1/run/exit.json" && -f "$S/running/e2/run/exit.json" ]]; }
wait_until 15 both_exited || fail "the shims wrote no exit.json while hangard was down"
start_hangard
for id in e1 e2; do
  wait_returned "$id" 15
  [[ "$(outcome "$id")" == done ]] || fail "$id outcome $(outcome "$id"), expected done"
  (($(grep -c "^start $id " "$T/starts") == 1)) || fail "$id started more than once"
done
[[ -z "$(find "$S/keys" -name 'launch.*.2')" ]] || fail "a second attempt was launched"
pass
