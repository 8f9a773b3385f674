#!/usr/bin/env bash
# A drone that writes the file its done-check names: `hangar wait` exits 0, outcome "done".
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mission m-done script 1 '[{"file":"REPORT.md"}]' \
  'declare will=write-report' 'write REPORT.md all done' 'say finished' | drop m-done.json
rc=0
timeout 30 "$BIN/hangar" --spool "$S" wait m-done >"$T/wait.out" 2>&1 || rc=$?
((rc == 0)) || fail "hangar wait m-done exited $rc, expected 0: $(cat "$T/wait.out")"
returned m-done || fail "no returned/m-done/return.json after wait (state: $(state_of m-done))"
[[ "$(outcome m-done)" == done ]] || fail "outcome $(outcome m-done), expected done"
[[ "$(cat "$S/rooms/m-done/REPORT.md")" == "all done" ]] || fail "the room lacks REPORT.md"
pass
