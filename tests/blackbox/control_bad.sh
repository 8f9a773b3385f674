#!/usr/bin/env bash
# Control requests hangard cannot read or act on go to control/bad/request.<generated id> with
# request.<id>.why.json naming the original file and the reason (a request's own name may be too
# long or taken there); hangard keeps running and a good request after them still works. A bad
# request with a name too long to file (the reviewer's wedge) is removed, never fatal.
. "$(dirname "$0")/lib.sh"
setup 1
start_hangard
ctl() { printf '%s' "$2" >"$S/control/tmp/$1"; mv -T "$S/control/tmp/$1" "$S/control/new/$1"; }
ctl garbage 'not json at all'
ctl unknown-request '{"hangar":1,"request":"explode","id":"x","by":"bb","time":"2026-01-01T00:00:00.000Z"}'
ctl unknown-id '{"hangar":1,"request":"cancel","id":"no-such-mission","by":"bb","time":"2026-01-01T00:00:00.000Z"}'
long=$(printf 'x%.0s' $(seq 250))
ctl "$long" 'not json either'
# why_for NAME: the why.json in control/bad whose "name" is NAME.
why_for() {
  local w
  for w in "$S"/control/bad/*.why.json; do
    [[ -f "$w" ]] && jq_ok "$w" "d.get('name') == '$1' and d.get('reason')" && { printf '%s\n' "$w"; return 0; }
  done
  return 1
}
for n in garbage unknown-request unknown-id; do
  wait_until 10 why_for "$n" >/dev/null || { say "FAIL $TEST/$n: no why.json naming $n in control/bad in 10 s"; FAILED=1; continue; }
  w=$(why_for "$n")
  if [[ -f "${w%.why.json}" && ! -e "$S/control/new/$n" ]]; then
    say "ok $TEST/$n"
  else
    say "FAIL $TEST/$n: ${w%.why.json} missing or $n still in control/new"; FAILED=1
  fi
done
wait_until 10 test ! -e "$S/control/new/$long" && say "ok $TEST/too-long-name-removed" ||
  { say "FAIL $TEST/too-long-name-removed: still in control/new"; FAILED=1; }
check alive alive
mission after-bad script 1 '' 'sleep 30' | drop after-bad.json
wait_until 10 test -d "$S/running/after-bad" || fail "after-bad did not start"
hangar cancel after-bad >/dev/null 2>&1 || fail "hangar cancel after-bad failed"
wait_until 15 returned after-bad && say "ok $TEST/good-request-after-bad" ||
  { say "FAIL $TEST/good-request-after-bad: not returned"; FAILED=1; }
finish
