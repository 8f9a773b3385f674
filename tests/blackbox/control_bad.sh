#!/usr/bin/env bash
# Control requests hangard cannot read or act on go to control/bad/NAME with NAME.why.json;
# hangard keeps running and a good request after them still works.
. "$(dirname "$0")/lib.sh"
setup 1
start_hangard
ctl() { printf '%s' "$2" >"$S/control/tmp/$1"; mv -T "$S/control/tmp/$1" "$S/control/new/$1"; }
ctl garbage 'not json at all'
ctl unknown-request '{"hangar":1,"request":"explode","id":"x","by":"bb","time":"2026-01-01T00:00:00.000Z"}'
ctl unknown-id '{"hangar":1,"request":"cancel","id":"no-such-mission","by":"bb","time":"2026-01-01T00:00:00.000Z"}'
for n in garbage unknown-request unknown-id; do
  wait_until 10 test -f "$S/control/bad/$n.why.json" || { say "FAIL $TEST/$n: no control/bad/$n.why.json in 10 s"; FAILED=1; continue; }
  if [[ -f "$S/control/bad/$n" && ! -e "$S/control/new/$n" ]] && jq_ok "$S/control/bad/$n.why.json" "True"; then
    say "ok $TEST/$n"
  else
    say "FAIL $TEST/$n: control/bad/$n missing, still in control/new, or why.json not JSON"; FAILED=1
  fi
done
check alive alive
mission after-bad script 1 '' 'sleep 30' | drop after-bad.json
wait_until 10 test -d "$S/running/after-bad" || fail "after-bad did not start"
hangar cancel after-bad >/dev/null 2>&1 || fail "hangar cancel after-bad failed"
wait_until 15 returned after-bad && say "ok $TEST/good-request-after-bad" ||
  { say "FAIL $TEST/good-request-after-bad: not returned"; FAILED=1; }
finish
