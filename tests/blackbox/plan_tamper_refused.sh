#!/usr/bin/env bash
# The plan the gate passed is the plan run: hangar-shim is given the plan's sha256 as the gate
# passed it (and as the ledger recorded it in mission.launched), and refuses a plan.json whose
# bytes hash otherwise (exit 78) without starting anything; the untouched plan runs.
. "$(dirname "$0")/lib.sh"
setup
mkdir -p "$T/room" "$T/run"
cat >"$T/plan.json" <<JSON
{"hangar":1,"id":"P1","attempt":1,"launcher":"direct","argv":["/bin/true"],"env":{},
 "room":"$T/room","run":"$T/run","stdin":"","prompt_in_room":false,"last_message":"",
 "network":"none","deadline_ms":60000,"grace_ms":1000,
 "sandbox":{"engine":"bwrap","bwrap":"/usr/bin/bwrap","hide":[],"landlock_abi":0,"write":["$T/room"]}}
JSON
passed=$(sha256sum "$T/plan.json" | cut -d' ' -f1)
sed -i 's|"/bin/true"|"/bin/sh","-c","touch '"$T"'/room/pwned"|' "$T/plan.json"
rc=0
"$BIN/hangar-shim" "$T/plan.json" "$passed" >"$T/shim.out" 2>&1 || rc=$?
((rc == 78)) || fail "a tampered plan: hangar-shim exit $rc, expected 78: $(cat "$T/shim.out")"
grep -q "changed after the gate" "$T/shim.out" || fail "no reason given: $(cat "$T/shim.out")"
[[ -z "$(ls -A "$T/run")" && ! -e "$T/room/pwned" ]] || fail "something ran or was written"
rc=0
"$BIN/hangar-shim" "$T/plan.json" "$(sha256sum "$T/plan.json" | cut -d' ' -f1)" >"$T/ok.out" 2>&1 || rc=$?
((rc == 0)) || fail "the plan with its own hash did not start: exit $rc: $(cat "$T/ok.out")"
wait_until 10 test -f "$T/run/exit.json" || fail "no exit.json from the untampered plan"
# And through hangard: the ledger's mission.launched names the sha256 of the plan.json run.
start_hangard
mission P2 true 1 '' 'nothing to do' | drop P2.json
wait_returned P2 20
seq=$(jget "$S/returned/P2/gate2.json" "d['ledger_seq']")
hangar ledger show --json | python3 -c '
import json, sys, hashlib
seq, path = int(sys.argv[1]), sys.argv[2]
e = [e for e in json.load(sys.stdin)["entries"] if e["seq"] == seq][0]
assert e["kind"] == "mission.launched", e
assert e["body"]["plan_sha256"] == hashlib.sha256(open(path, "rb").read()).hexdigest(), e
' "$seq" "$S/returned/P2/plan.json" || fail "mission.launched does not name the sha256 of the plan run"
pass
