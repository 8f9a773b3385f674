#!/usr/bin/env bash
# An approval binds to the mission's sha256: a mission edited in the spool after it was approved
# is not launched on the old approval. It goes back to hold (gate1.json rule mission.changed, a
# mission.held entry; the requester's inbox gets E1.hold.json) and runs only after a new approval,
# which names the new sha256.
. "$(dirname "$0")/lib.sh"
setup 1
mkdir -p "$S/hold/E1"
mkdir -p "$T/inbox/tmp" "$T/inbox/new"  # the requester makes the maildir
mission E1 true 1 '' 'nothing to do' |
  python3 -c 'import json,sys; m=json.load(sys.stdin); m["notify"]={"dir":sys.argv[1]}; print(json.dumps(m))' "$T/inbox" \
  >"$S/hold/E1/mission.json"
sha=$(sha256sum "$S/hold/E1/mission.json" | cut -d' ' -f1)
echo '{"hangar":1,"id":"E1","sha256":"'$sha'","time":"2026-01-01T00:00:00.000Z"}' >"$S/hold/E1/intake.json"
start_hangard
mission blocker script 1 '' 'sleep 30' | drop blocker.json   # holds the only slot
wait_until 10 test -d "$S/running/blocker" || fail "blocker did not start"
hangar approve E1 >/dev/null || fail "approve failed"
wait_until 10 test -d "$S/queued/E1" || fail "E1 not queued after approval (state: $(state_of E1))"
jq_ok "$S/queued/E1/approve.json" "d['mission_sha256'] == '$sha'" ||
  fail "approve.json does not bind the mission's sha256: $(cat "$S/queued/E1/approve.json")"
stop_hangard TERM
printf ' ' >>"$S/queued/E1/mission.json"   # edited after the approval
hangar --no-wait cancel blocker >/dev/null  # hangard is down: the request waits for it
start_hangard
wait_until 10 test -d "$S/hold/E1" || fail "edited E1 not back in hold (state: $(state_of E1))"
jq_ok "$S/hold/E1/gate1.json" "d['verdict'] == 'hold' and d['rules'] == ['mission.changed']" ||
  fail "gate1.json: $(cat "$S/hold/E1/gate1.json")"
wait_until 10 test -f "$T/inbox/new/E1.hold.json" || fail "the requester was not told of the hold"
jq_ok "$T/inbox/new/E1.hold.json" "d['verdict'] == 'hold' and 'mission.changed' in d['rules']" ||
  fail "hold notice: $(cat "$T/inbox/new/E1.hold.json")"
wait_returned blocker 20
sleep 1
[[ ! -e "$S/keys/launch.E1.1" ]] || fail "E1 was launched on the old approval"
hangar ledger show --kind mission.held | grep -q mission.changed || fail "no mission.held entry"
hangar approve E1 >/dev/null || fail "second approve failed"
wait_returned E1 20
new=$(sha256sum "$S/returned/E1/mission.json" | cut -d' ' -f1)
jq_ok "$S/returned/E1/approve.json" "d['mission_sha256'] == '$new'" || fail "the new approval does not name the new sha256"
pass
