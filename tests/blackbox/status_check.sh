#!/usr/bin/env bash
# hangar status --check (issue 25), a liveness probe: 69 while hangard is down (never started,
# then SIGKILLed), 0 while it runs and takes work, and the one line says which. (A hangard whose
# work stopped on a storage error answers 1: storage_eio_stops_work.) As root and as a user.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
probe() { local rc=0; hangar status --check >"$T/probe.out" 2>&1 || rc=$?; echo "$rc"; }
check down-before-start test "$(probe)" = 69
check down-says-so grep -q '^hangard: not running' "$T/probe.out"
start_hangard
check up test "$(probe)" = 0
check up-says-so grep -q "^hangard: alive, pid $HPID.*, taking work\$" "$T/probe.out"
check start-line-plurals grep -q '(1 slot, 0 missions known)' "$LOG"
rc=0; hangar --json status --check >"$T/probe.json" || rc=$?
check json-exit-0 test "$rc" = 0
check json-is-the-document jq_ok "$T/probe.json" "d['kernel']['alive'] is True"
stop_hangard KILL
check down-after-kill test "$(probe)" = 69
pass
