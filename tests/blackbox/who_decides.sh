#!/usr/bin/env bash
# Who may decide (issue 18): hangard as root (as the shipped unit runs it), then as an unprivileged
# user, on a spool laid out as `make install` lays it (scripts/spool-permissions), with real Unix
# users the test creates — an approver and two requesters, all in the submitters' group — judged
# by what happens to the missions, never by hangard's word alone:
#   requester A approves its own held mission: refused (control.not-approver, exit 77), still held;
#     the same by a hand-dropped request claiming "by": "root": refused, the claim kept as claimed_by
#   requester B cancels A's mission: refused (control.not-owner), still held
#   the approver approves with USER=mallory: exit 0, the mission runs; the ledger names the
#     approver as the user and mallory only as claimed_by
#   a control file chowned by root to a uid no user has: refused
#   A cancels its own mission: exit 0, cancelled
#   A writes nothing into queued/, keys/, ledger/, and cannot remove B's drop
#   four_eyes: the approver's approve of its own mission is refused (control.self-approval);
#     root's approve of it takes effect
#   approve of a mission that is not held: exit non-zero at once, with the reason
#   notify.dir: A's return reaches A's own maildir, never B's (which hangard could write: as root,
#     or as a user, the boxes being writable by all)
. "$(dirname "$0")/lib.sh"
need_user_tools
each_identity
setup 2
SUB=hangar-sub-$$ AP=hangar-ap-$$ RA=hangar-ra-$$ RB=hangar-rb-$$
group_users "$SUB" "$AP" "$RA" "$RB"
as_hangard_user  # the user pass: hangard runs as a user of its own, from a copy in $T/bin
mkdir -p "$T/bin"
cp "$BIN/hangar" "$T/bin/"
chmod 755 "$T" "$T/bin"
cat >"$T/policy.json" <<'JSON'
{"hangar_policy": 1, "acts": {"hold": ["push"], "allow": ["read"], "unknown": "hold"}}
JSON
edit_conf "c['policy'] = t + '/policy.json'; c['approvers'] = ['$AP']"
"$ROOT/scripts/spool-permissions" "$S" "$SUB" "${RT_USER:-root}"

# as USER CMD...: CMD as that user, with its groups, USER set to it unless the caller set one.
as() {
  local u=$1
  shift
  setpriv "--reuid=$u" "--regid=$u" --init-groups -- env "USER=${ASUSER:-$u}" HOME=/ "$@"
}
h() { local u=$1; shift; as "$u" "$T/bin/hangar" --spool "$S" "$@"; }
cannot() { ! "$@" 2>/dev/null; }
held_mission() {
  mission "$1" true 1 '' 'push the branch' |
    python3 -c 'import json,sys; m=json.load(sys.stdin); m["acts"]=["push"]; print(json.dumps(m))'
}
entries() { hangar ledger show --json | python3 -c "
import json, sys
for e in json.load(sys.stdin)['entries']:
    b = e['body']
    if e['kind'] == sys.argv[1] and b.get('id', b.get('name')) == sys.argv[2]:
        print(json.dumps(b))" "$1" "$2"; }

start_hangard
held_mission W-a | h "$RA" submit - >/dev/null || fail "requester A could not submit"
held_mission W-b | h "$RA" submit - >/dev/null || fail "requester A could not submit W-b"
wait_until 10 test -d "$S/hold/W-a" || fail "W-a not held (state: $(state_of W-a))"
wait_until 10 test -d "$S/hold/W-b" || fail "W-b not held (state: $(state_of W-b))"
check intake-names-the-dropper jq_ok "$S/hold/W-a/intake.json" "d['user'] == '$RA' and d['uid'] == $(id -u "$RA")"

rc=0; h "$RA" approve W-a 2>"$T/a.err" >/dev/null || rc=$?
check self-approve-exit-77 test "$rc" == 77
check self-approve-names-rule grep -q 'control.not-approver' "$T/a.err"
check self-approve-still-held test -d "$S/hold/W-a"

# A hand-made request in the file API, claiming root.
as "$RA" sh -c "printf '%s\n' '{\"hangar\":1,\"request\":\"approve\",\"id\":\"W-a\",\"by\":\"root\"}' >'$S/control/tmp/forged' &&
  mv '$S/control/tmp/forged' '$S/control/new/forged'" || fail "requester A could not drop a control file"
wait_until 10 test -f "$S/control/done/forged.json" || fail "no answer to control/new/forged"
check forged-by-refused jq_ok "$S/control/done/forged.json" \
  "d['status'] == 'refused' and d['rule'] == 'control.not-approver' and d['user'] == '$RA'"
check forged-by-kept-as-claim test -n "$(entries control.refused forged | python3 -c "
import json, sys
b = [json.loads(l) for l in sys.stdin][-1]
print('y' if b['claimed_by'] == 'root' and b['user'] == '$RA' and 'by' not in b else '')")"
check forged-still-held test -d "$S/hold/W-a"

rc=0; h "$RB" cancel W-a 2>"$T/b.err" >/dev/null || rc=$?
check other-cancel-exit-77 test "$rc" == 77
check other-cancel-names-rule grep -q 'control.not-owner' "$T/b.err"
check other-cancel-still-held test -d "$S/hold/W-a"

# A control file owned by a uid no user has (chowned by root, as only root can).
printf '%s\n' '{"hangar":1,"request":"approve","id":"W-a"}' >"$S/control/tmp/ghost"
chown 54321 "$S/control/tmp/ghost"
mv "$S/control/tmp/ghost" "$S/control/new/ghost"
wait_until 10 test -f "$S/control/done/ghost.json" || fail "no answer to control/new/ghost"
check unknown-uid-refused jq_ok "$S/control/done/ghost.json" \
  "d['status'] == 'refused' and d['uid'] == 54321 and d['user'] == '54321'"
check unknown-uid-still-held test -d "$S/hold/W-a"

rc=0; ASUSER=mallory h "$AP" approve W-a >"$T/ap.out" 2>&1 || rc=$?
check approver-approves test "$rc" == 0
wait_returned W-a 30
check approved-ran test "$(outcome W-a)" == done
check ledger-names-the-approver test -n "$(entries person.approved W-a | python3 -c "
import json, sys
b = json.loads(sys.stdin.readline())
print('y' if b['user'] == '$AP' and b['by'] == '$AP' and b['claimed_by'] == 'mallory' else '')")"
check show-names-the-approver grep -q "approved *by $AP " <(hangar show W-a)

rc=0; h "$RA" cancel W-b >/dev/null 2>&1 || rc=$?
check owner-cancels test "$rc" == 0
check owner-cancel-took-effect test "$(outcome W-b)" == cancelled

# What a submitter cannot touch.
check no-write-queued cannot as "$RA" sh -c "echo x >'$S/queued/x'"
check no-write-keys cannot as "$RA" sh -c "echo x >'$S/keys/x'"
check no-write-ledger cannot as "$RA" sh -c "echo x >'$S/ledger/x'"
check no-write-answers cannot as "$RA" sh -c "echo x >'$S/control/done/x.json'"
as "$RB" sh -c "echo '{}' >'$S/incoming/tmp/rb-draft'"
check no-remove-anothers-drop cannot as "$RA" rm -f "$S/incoming/tmp/rb-draft"
check anothers-drop-still-there test -f "$S/incoming/tmp/rb-draft"
rm -f "$S/incoming/tmp/rb-draft"

# Returns go only into a maildir of the dropper's own.
for u in "$RA" "$RB"; do
  mkdir -p "$T/box-$u/tmp" "$T/box-$u/new"
  chown -R "$u:" "$T/box-$u"
  chmod 0777 "$T/box-$u/tmp" "$T/box-$u/new"  # a hangard run as a user must be able to deliver
done
notified() {
  mission "$1" true 1 '' 'nothing' |
    python3 -c 'import json,sys; m=json.load(sys.stdin); m["notify"]={"dir":sys.argv[1]}; print(json.dumps(m))' "$2"
}
notified N-own "$T/box-$RA" | h "$RA" submit - >/dev/null || fail "A could not submit N-own"
notified N-other "$T/box-$RB" | h "$RA" submit - >/dev/null || fail "A could not submit N-other"
wait_returned N-own 30
wait_returned N-other 30
wait_until 10 test -f "$T/box-$RA/new/N-own.json" || true
check notify-own-box-delivered test -f "$T/box-$RA/new/N-own.json"
check notify-other-box-untouched test -z "$(find "$T/box-$RB" -type f)"
check notify-other-box-reason grep -q "not by uid $(id -u "$RA")" "$S/notify/N-other.json"

rc=0; hangar approve W-a >/dev/null 2>"$T/nh.err" || rc=$?
check approve-not-held-fails test "$rc" != 0
check approve-not-held-says-why grep -q 'not held' "$T/nh.err"

# Four eyes: the approver's own mission needs another approver.
stop_hangard
edit_conf "c['four_eyes'] = True"
start_hangard
held_mission W-f | h "$AP" submit - >/dev/null || fail "the approver could not submit"
wait_until 10 test -d "$S/hold/W-f" || fail "W-f not held (state: $(state_of W-f))"
rc=0; h "$AP" approve W-f 2>"$T/f.err" >/dev/null || rc=$?
check four-eyes-exit-77 test "$rc" == 77
check four-eyes-names-rule grep -q 'control.self-approval' "$T/f.err"
check four-eyes-still-held test -d "$S/hold/W-f"
rc=0; hangar approve W-f >/dev/null 2>&1 || rc=$?
check four-eyes-other-approver test "$rc" == 0
wait_returned W-f 30
check four-eyes-approved-ran test "$(outcome W-f)" == done
((FAILED == 0)) || exit 1
pass
