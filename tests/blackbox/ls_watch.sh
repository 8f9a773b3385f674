#!/usr/bin/env bash
# hangar ls --watch S (issue 25), the operator's one-screen view: a frame every S seconds, each
# headed by its time, holding the running, queued and held missions and not the returned ones;
# interrupted, it ends (timeout's SIGTERM here). Not a terminal: frames follow one another.
. "$(dirname "$0")/lib.sh"
setup 1
start_hangard
mission w-done true 1 '' 'nothing' | drop w-done.json
wait_returned w-done 20
mission w-run script 1 '' 'sleep 20' | drop w-run.json
mission w-wait script 1 '' 'sleep 1' | drop w-wait.json
wait_until 10 test -d "$S/running/w-run" || fail "w-run not running (state: $(state_of w-run))"
wait_until 10 test -d "$S/queued/w-wait" || fail "w-wait not queued (state: $(state_of w-wait))"
rc=0; timeout 2.5 "$BIN/hangar" --spool "$S" ls --watch 1 >"$T/watch.out" 2>&1 || rc=$?
check ended-by-signal test "$rc" = 124
frames=$(grep -c '^hangar ls --watch 1: 20[0-9-]*T' "$T/watch.out" || true)
check two-frames-or-more test "$frames" -ge 2
check running-shown grep -Eq '^w-run +running ' "$T/watch.out"
check queued-shown grep -Eq '^w-wait +queued ' "$T/watch.out"
check returned-not-shown test -z "$(grep '^w-done' "$T/watch.out")"
hangar cancel w-run >/dev/null 2>&1 || true
((FAILED == 0)) || { note "$(cat "$T/watch.out")"; fail "see above"; }
pass
