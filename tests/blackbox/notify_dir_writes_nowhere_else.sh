#!/usr/bin/env bash
# A mission's notify.dir is where hangard, root here, writes the return: it must never make hangard
# write anywhere else (issue 17). The gate denies a notify.dir inside a protected path, the spool,
# the anchor or the ledger's own directory, or one that resolves into a protected path
# (notify.dir.protected), and one outside the policy's notify_dirs (notify.dir.unlisted). The
# delivery follows no symbolic link (a `new` linked elsewhere, an inbox that is a link) and creates
# no directory (an inbox without tmp/ and new/): each such return waits in notify/ with the reason,
# and nothing appears where a link points or where no directory was.
. "$(dirname "$0")/lib.sh"
setup 2
mkdir -p "$T/protected" "$T/target" "$T/bare" "$T/bare-hold" "$T/linked/tmp" "$T/box/tmp" \
  "$T/box/new" "$T/inbox/tmp" "$T/inbox/new" "$T/other/tmp" "$T/other/new"
ln -s "$T/target" "$T/linked/new"      # new/ points elsewhere
ln -s "$T/box" "$T/box-link"           # the inbox itself a link to a real maildir
ln -s "$T/protected" "$T/sneaky"       # a harmless-looking name for a protected directory
python3 - "$S/hangar.conf" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["policy"] = "policy.json"; c["notify_retry_s"] = 1
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
cat >"$S/policy.json" <<EOF
{"hangar_policy": 1, "protected_paths": ["$T/protected"], "notify_dirs": ["$T"]}
EOF
start_hangard
# notify ID DIR [PY]: a mission of the "true" drone telling DIR.
notify() { mutated "$1" "m['notify'] = {'dir': '$2'}; ${3:-}" | drop "$1.json"; }
notify P-prot "$T/protected"
notify P-sneaky "$T/sneaky"
notify P-spool "$S"
notify P-anchor "$A"
notify P-ledger "$S/ledger/live"
notify P-unlisted "/var/tmp/hangar-bb-inbox-$$"
notify L-new "$T/linked"
notify L-box "$T/box-link"
notify N-bare "$T/bare"
notify H-bare "$T/bare-hold" "m['acts'] = ['juggle']"   # held: acts.unknown
notify OK "$T/inbox"

# denied ID RULE REASON_FRAGMENT: denied at intake by RULE, the reason naming the fragment.
denied() {
  wait_until 10 test -d "$S/denied/$1" || { check "$1" false "not denied (state: $(state_of "$1"))"; return; }
  check "$1" jq_ok "$S/denied/$1/gate1.json" \
    "d['verdict'] == 'deny' and d['rules'] == ['$2'] and $(json_str "$3") in d['reason']"
}
denied P-prot notify.dir.protected "inside protected path $T/protected"
denied P-sneaky notify.dir.protected "resolves to $T/protected, inside protected path"
denied P-spool notify.dir.protected "in hangar's own directory $S"
denied P-anchor notify.dir.protected "in hangar's own directory $A"
denied P-ledger notify.dir.protected "in hangar's own directory $S"
denied P-unlisted notify.dir.unlisted "in none of the policy's notify_dirs"

for id in L-new L-box N-bare OK; do wait_returned "$id" 20; done
wait_until 10 test -f "$T/inbox/new/OK.json" || fail "the return was not delivered to a real inbox"
# waits ID FRAGMENT: the return waits in notify/ID.json, its reason naming the fragment.
waits() {
  wait_until 10 jq_ok "$S/notify/$1.json" "d['reason'] != 'pending delivery'" ||
    { check "$1-waits" false "no delivery failure recorded: $(cat "$S/notify/$1.json" 2>/dev/null)"; return; }
  check "$1-waits" jq_ok "$S/notify/$1.json" "$(json_str "$2") in d['reason']"
}
waits L-new "cannot open dir $T/linked/new: a symbolic link, not followed"
waits L-box "cannot open dir $T/box-link: a symbolic link, not followed"
waits N-bare "cannot open dir $T/bare/tmp: No such file or directory"
wait_until 10 test -d "$S/hold/H-bare" || fail "H-bare not held (state: $(state_of H-bare))"
check hold-notice-failed wait_until 10 grep -q "H-bare hold notice not delivered" "$LOG"

# Nothing written where no file belongs.
empty() { [[ -z "$(find "$1" -mindepth 1 -print -quit)" ]]; }
check protected-untouched empty "$T/protected"
check link-target-untouched empty "$T/target"
check boxed-untouched empty "$T/box/new"
check bare-no-dirs empty "$T/bare"
check bare-hold-no-dirs empty "$T/bare-hold"
check spool-no-maildir test ! -e "$S/tmp" -a ! -e "$S/new"
check anchor-no-maildir test ! -e "$A/tmp" -a ! -e "$A/new"
check ledger-no-maildir test ! -e "$S/ledger/live/tmp" -a ! -e "$S/ledger/live/new"
check unlisted-not-made test ! -e "/var/tmp/hangar-bb-inbox-$$"
# Once the requester makes the maildir, the waiting return is delivered on a retry.
mkdir "$T/bare/tmp" "$T/bare/new"
wait_until 20 test -f "$T/bare/new/N-bare.json" || fail "N-bare not delivered once its inbox exists"
check retry-delivered cmp -s "$T/bare/new/N-bare.json" "$S/returned/N-bare/return.json"
alive || fail "hangard is not alive"
finish
