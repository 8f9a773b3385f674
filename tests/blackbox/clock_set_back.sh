#!/usr/bin/env bash
# A clock set back (issue 19, point 6): hangard restarted with its clock an hour behind the
# ledger's latest entry holds launches (a mission dropped meanwhile is taken in and waits), says
# so in hangar status, records it once (one clock.behind entry), and dates no entry before the
# ledger's latest time, so the ledger's times never run backwards. With the clock right again
# the mission runs. (HANGAR_FAULT_CLOCK_MS sets hangard's clock off: man/hangard.8, ENVIRONMENT.)
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
start_hangard
mission K1 true 1 '' 'nothing' | drop K1.json
wait_returned K1 20
stop_hangard

HANGAR_FAULT_CLOCK_MS=-3600000 start_hangard
mission K2 true 1 '' 'nothing' | drop K2.json
wait_until 10 test -d "$S/queued/K2" || fail "K2 not taken in (state: $(state_of K2))"
sleep 1.5
check behind-holds-launches test ! -e "$S/keys/launch.K2.1"
check status-says-behind grep -q "^clock *BEHIND the ledger" <(hangar status)
check presence-says-behind jq_ok "$S/hangard.json" "d['clock']['behind'] is True"
mission K3 true 1 '' 'nothing' | drop K3.json
wait_until 10 test -d "$S/queued/K3" || fail "K3 not taken in"
stop_hangard
check recorded-once test "$(hangar ledger show --kind clock.behind --json |
  python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')" == 1
check times-never-run-backwards test -n "$(hangar ledger show --json | python3 -c '
import json, sys
t = [e["time"] for e in json.load(sys.stdin)["entries"]]
print("y" if t == sorted(t) else "")')"

start_hangard
wait_returned K2 20
wait_returned K3 20
check right-clock-runs test "$(outcome K2)" == done -a "$(outcome K3)" == done
check clock-ok grep -q "^clock *ok" <(hangar status)
((FAILED == 0)) || exit 1
pass
