#!/usr/bin/env bash
# A mission with notify.dir gets its return.json delivered maildir-style to DIR/new/ID.json, the
# same bytes as returned/ID/return.json; an unreachable dir leaves a delivery record waiting in
# notify/ID.json (with the reason), as hangar-return(5) says. hangar wait on a returned mission
# whose delivery is pending (as after a crash between the move to returned/ and the delivery)
# waits until the return is in DIR/new, and --timeout says the delivery is what it waits for.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mkdir -p "$T/inbox/tmp" "$T/inbox/new"
mutated n-ok "m['notify'] = {'dir': '$T/inbox'}" | drop n-ok.json
wait_returned n-ok 20
wait_until 10 test -f "$T/inbox/new/n-ok.json" || fail "no $T/inbox/new/n-ok.json"
cmp -s "$T/inbox/new/n-ok.json" "$S/returned/n-ok/return.json" || fail "the delivered copy differs from return.json"
mutated n-away "m['notify'] = {'dir': '$T/no-such-inbox/sub'}" | drop n-away.json
wait_returned n-away 20
wait_until 10 test -f "$S/notify/n-away.json" || fail "an undeliverable return is not waiting in notify/"
jq_ok "$S/notify/n-away.json" "d['id'] == 'n-away' and d['reason'] != ''" ||
  fail "notify/n-away.json does not name the mission and the reason: $(cat "$S/notify/n-away.json")"
[[ ! -e "$S/notify/n-ok.json" ]] || fail "the delivered return's record is still in notify/"
alive || fail "hangard is not alive"
# A crash between returned/ and the delivery, as hangard left it: the record pending, new/ empty.
mutated n-wait "m['notify'] = {'dir': '$T/inbox'}" | drop n-wait.json
wait_returned n-wait 20
wait_until 10 test -f "$T/inbox/new/n-wait.json" || fail "no $T/inbox/new/n-wait.json"
stop_hangard KILL
rm "$T/inbox/new/n-wait.json"
printf '{"hangar":1,"id":"n-wait","dir":"%s","reason":"pending delivery","time":"2026-01-01T00:00:00.000Z"}' \
  "$T/inbox" >"$S/notify/n-wait.json"
rc=0; hangar wait n-wait --timeout 1 >"$T/wait.out" 2>"$T/wait.err" || rc=$?
check wait-holds-for-delivery test "$rc" = 75
check wait-says-delivery grep -q "returned, its delivery to $T/inbox still pending" "$T/wait.err"
hangar wait n-wait --timeout 30 >"$T/wait.out" 2>"$T/wait.err" &
waiter=$!
sleep 0.3
start_hangard
rc=0; wait "$waiter" || rc=$?
check wait-done-after-delivery test "$rc" = 0
check delivered-when-wait-returns test -f "$T/inbox/new/n-wait.json"
((FAILED == 0)) || fail "see above"
pass
