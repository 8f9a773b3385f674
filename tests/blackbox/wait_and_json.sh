#!/usr/bin/env bash
# `hangar wait` exit codes (0 done, 1 failed, 75 when --timeout expires, 66 at once for an id found
# nowhere) and every --json output parses as JSON.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mission w-done script 1 '[{"file":"OK"}]' 'write OK yes' | drop w-done.json
mission w-fail script 1 '[{"file":"OK"}]' 'exit 3' | drop w-fail.json
parses() { python3 -c 'import json,sys; json.loads(sys.stdin.read())' <"$1" 2>/dev/null; }
rc=0; timeout 30 "$BIN/hangar" --spool "$S" wait w-done >"$T/o" 2>&1 || rc=$?
check wait-done-exit-0 test "$rc" -eq 0
rc=0; timeout 30 "$BIN/hangar" --spool "$S" wait w-fail >"$T/o" 2>&1 || rc=$?
check wait-failed-exit-1 test "$rc" -eq 1
check failed-outcome test "$(outcome w-fail)" = failed
mission w-slow script 1 '' 'sleep 5' | drop w-slow.json
rc=0; timeout 10 "$BIN/hangar" --spool "$S" wait --timeout 1 w-slow >"$T/o" 2>&1 || rc=$?
check wait-timeout-exit-75 test "$rc" -eq 75
rc=0; timeout 10 "$BIN/hangar" --spool "$S" wait no-such-id >"$T/o" 2>&1 || rc=$?
check wait-unknown-exit-66 test "$rc" -eq 66
rc=0; timeout 10 "$BIN/hangar" --spool "$S" show no-such-id >"$T/o" 2>&1 || rc=$?
check show-unknown-exit-66 test "$rc" -eq 66
rc=0; timeout 30 "$BIN/hangar" --spool "$S" wait --json w-done >"$T/o" 2>"$T/e" || rc=$?
check wait-json-exit-0 test "$rc" -eq 0
check wait-json-parses parses "$T/o"
for args in "status --json" "ls --json" "show --json w-done" "show --json w-fail"; do
  rc=0
  # shellcheck disable=SC2086
  timeout 10 "$BIN/hangar" --spool "$S" $args >"$T/o" 2>"$T/e" || rc=$?
  check "${args// /_}" test "$rc" -eq 0
  check "${args// /_}-parses" parses "$T/o"
done
check status-alive alive
finish
