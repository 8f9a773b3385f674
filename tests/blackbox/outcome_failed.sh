#!/usr/bin/env bash
# A drone that exits 0 but leaves a done-check unmet: outcome "failed", `hangar wait` exits 1.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mission m-failed script 1 '[{"file":"REPORT.md"},{"file":"MISSING.md"}]' \
  'write REPORT.md half done' | drop m-failed.json
rc=0
timeout 30 "$BIN/hangar" --spool "$S" wait m-failed >"$T/wait.out" 2>&1 || rc=$?
((rc == 1)) || fail "hangar wait m-failed exited $rc, expected 1: $(cat "$T/wait.out")"
returned m-failed || fail "no returned/m-failed/return.json (state: $(state_of m-failed))"
[[ "$(outcome m-failed)" == failed ]] || fail "outcome $(outcome m-failed), expected failed"
pass
