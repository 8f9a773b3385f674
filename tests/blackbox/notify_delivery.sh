#!/usr/bin/env bash
# A mission with notify.dir gets its return.json delivered maildir-style to DIR/new/ID.json, the
# same bytes as returned/ID/return.json; an unreachable dir leaves a delivery record waiting in
# notify/ID.json (with the reason), as hangar-return(5) says.
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
pass
