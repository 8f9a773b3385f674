#!/usr/bin/env bash
# SIGHUP makes hangard rescan the spool (hangard(8) SIGNALS); it keeps running and working.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
kill -HUP "$HPID"
sleep 0.5  # give a wrongly handled SIGHUP the time to end the process
kill -0 "$HPID" 2>/dev/null || { rc=0; wait "$HPID" || rc=$?; HPID=''; fail "hangard died on SIGHUP (exit $rc)"; }
mission after-hup true 1 '' x | drop after-hup.json
wait_returned after-hup 20
alive || fail "hangard is not alive"
pass
