#!/usr/bin/env bash
# Signed approvals (issue 18): with allowed_signers in the config, an approve takes effect only
# when signed, with OpenSSH's ssh-keygen, by a key that file lists, for the mission as it is held
# now. Judged by the mission's fate (held, or run) and the ledger, with hangard as root and as a
# user:
#   unsigned approve (even by root, an approver): refused, control.bad-signature, exit 77
#   signed by a key the file does not list, under a listed principal: refused
#   a forged signature (a real one, one byte changed): refused
#   alice's real signature of another mission, replayed for this one: refused
#   alice's signature of this mission, then the mission edited: refused (the bytes changed)
#   alice's signature: exit 0, the mission runs; the ledger names alice as signed_by
. "$(dirname "$0")/lib.sh"
command -v ssh-keygen >/dev/null || { say "skip $TEST: skipped: ssh-keygen missing (openssh-client)"; exit 0; }
each_identity
setup 2
as_hangard_user
ssh-keygen -q -t ed25519 -N '' -C alice -f "$T/alice" || fail "ssh-keygen alice"
ssh-keygen -q -t ed25519 -N '' -C mallory -f "$T/mallory" || fail "ssh-keygen mallory"
printf 'alice namespaces="hangar" %s\n' "$(cut -d' ' -f1,2 "$T/alice.pub")" >"$T/allowed_signers"
cat >"$T/policy.json" <<'JSON'
{"hangar_policy": 1, "acts": {"hold": ["push"], "allow": ["read"], "unknown": "hold"}}
JSON
edit_conf "c['policy'] = t + '/policy.json'; c['allowed_signers'] = t + '/allowed_signers'"
held() {
  mission "$1" true 1 '' 'push the branch' |
    python3 -c 'import json,sys; m=json.load(sys.stdin); m["acts"]=["push"]; print(json.dumps(m))' | drop "$1.json"
  wait_until 10 test -d "$S/hold/$1" || fail "$1 not held (state: $(state_of $1))"
}
# refused NAME CMD...: CMD exits 77 naming control.bad-signature, and S1 is still held.
refused() {
  local name=$1 rc=0
  shift
  "$@" >"$T/$name.out" 2>&1 || rc=$?
  check "$name-exit-77" test "$rc" == 77
  check "$name-rule" grep -q 'control.bad-signature' "$T/$name.out"
  check "$name-still-held" test -d "$S/hold/S1"
}
# drop_signed NAME ID SIGFILE PRINCIPAL: a signed approve of ID dropped by hand.
drop_signed() {
  python3 - "$S/control/tmp/$1" "$2" "$3" "$4" <<'PY'
import json, sys
path, id_, sig, who = sys.argv[1:]
json.dump({"hangar": 1, "request": "approve", "id": id_, "principal": who,
           "signature": open(sig).read()}, open(path, "w"))
PY
  mv "$S/control/tmp/$1" "$S/control/new/$1"
  wait_until 10 test -f "$S/control/done/$1.json" || fail "no answer to control/new/$1"
}
start_hangard
held S1
held S2

refused unsigned hangar approve S1
refused unlisted-key hangar approve S1 --sign "$T/mallory" --principal alice
# alice's signature of S2's message, then a forged one: S2's with a byte of its body changed.
msg() { printf 'hangar approve v1\nid %s\nmission_sha256 %s\nplan_sha256 \n' "$1" \
  "$(sha256sum "$S/hold/$1/mission.json" | cut -d' ' -f1)"; }
msg S2 | ssh-keygen -q -Y sign -f "$T/alice" -n hangar >"$T/s2.sig" || fail "signing S2's message"
drop_signed replayed S1 "$T/s2.sig" alice
check replayed-refused jq_ok "$S/control/done/replayed.json" "d['status'] == 'refused' and d['rule'] == 'control.bad-signature'"
check replayed-still-held test -d "$S/hold/S1"
msg S1 | ssh-keygen -q -Y sign -f "$T/alice" -n hangar >"$T/s1.sig" || fail "signing S1's message"
python3 - "$T/s1.sig" "$T/forged.sig" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
body = list(lines[2])
body[10] = "A" if body[10] != "A" else "B"  # one character of the signature blob
lines[2] = "".join(body)
open(sys.argv[2], "w").write("\n".join(lines))
PY
drop_signed forged S1 "$T/forged.sig" alice
check forged-refused jq_ok "$S/control/done/forged.json" "d['status'] == 'refused' and d['rule'] == 'control.bad-signature'"
check forged-still-held test -d "$S/hold/S1"
# A signature made in another namespace (a git commit's, say) approves nothing.
msg S1 | ssh-keygen -q -Y sign -f "$T/alice" -n git >"$T/git.sig" || fail "signing in namespace git"
drop_signed other-namespace S1 "$T/git.sig" alice
check other-namespace-refused jq_ok "$S/control/done/other-namespace.json" "d['status'] == 'refused'"

rc=0; hangar approve S1 --sign "$T/alice" --principal alice >"$T/ok.out" 2>&1 || rc=$?
check signed-approve-exit-0 test "$rc" == 0
wait_returned S1 30
check signed-approved-ran test "$(outcome S1)" == done
check ledger-signed-by test -n "$(hangar ledger show --json --kind person.approved | python3 -c "
import json, sys
e = json.load(sys.stdin)['entries']
print('y' if len(e) == 1 and e[0]['body']['signed_by'] == 'alice' and e[0]['body']['by'] == 'alice' and e[0]['body']['id'] == 'S1' else '')")"
# Signed, then the mission edited in the spool before hangard takes the approval: the signature
# is of other bytes. (hangard is stopped so the edit and the drop come in that order.)
cp "$T/s2.sig" "$T/s2-before-edit.sig"
stop_hangard
printf ' ' >>"$S/hold/S2/mission.json"
drop_signed_later() {
  python3 - "$S/control/tmp/edited" S2 "$T/s2-before-edit.sig" alice <<'PY'
import json, sys
path, id_, sig, who = sys.argv[1:]
json.dump({"hangar": 1, "request": "approve", "id": id_, "principal": who,
           "signature": open(sig).read()}, open(path, "w"))
PY
  mv "$S/control/tmp/edited" "$S/control/new/edited"
}
drop_signed_later
start_hangard
wait_until 10 test -f "$S/control/done/edited.json" || fail "no answer to control/new/edited"
check edited-refused jq_ok "$S/control/done/edited.json" "d['status'] == 'refused' and d['rule'] == 'control.bad-signature'"
check edited-still-held test -d "$S/hold/S2"
((FAILED == 0)) || exit 1
pass
