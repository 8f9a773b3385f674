#!/usr/bin/env bash
# A second hangard on the same spool refuses to start (non-zero, saying why) and leaves the
# first one running; `hangar status` tells alive from not running.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
rc=0
timeout 10 "$BIN/hangard" --spool "$S" --anchor "$A" </dev/null >"$T/second.out" 2>&1 || rc=$?
((rc != 0 && rc != 124)) || fail "a second hangard exited $rc (124 = still running after 10 s)"
[[ -s "$T/second.out" ]] || fail "the second hangard said nothing"
kill -0 "$HPID" || fail "the first hangard died"
jq_ok "$S/hangard.json" "d['pid'] == $HPID" || fail "hangard.json no longer names the first hangard"
alive || fail "status does not say alive"
stop_hangard
! alive || fail "status says alive after hangard stopped"
pass
