#!/usr/bin/env bash
# hangar check FILE|- (issue 25): a mission judged at stage 1 as intake would judge it, before any
# drop: exit 0 allow, 1 hold (each rule with its reason), 2 deny, 65 invalid (the field named) or
# an id already in the spool; the spool (tree, ledger) is byte-for-byte unchanged by every check;
# the verdicts are the ones hangard then gives the same files; a policy edited on disk after
# hangard started is said. Run as the user hangard runs as (root, then an unprivileged user).
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
edit_conf "c['policy'] = 'policy.json'"
as_hangard_user
CHECK=("$BIN/hangar")
if [[ "${RT_AS:-}" == user ]]; then
  cp "$BIN/hangar" "$T/bin/" && chown "$RT_USER:" "$T/bin/hangar"
  CHECK=(setpriv "--reuid=$RT_USER" "--regid=$RT_USER" --clear-groups -- "$T/bin/hangar")
fi
hcheck() { "${CHECK[@]}" --spool "$S" check "$@"; }
start_hangard
mutated C-ok "m['acts'] = ['read', 'write']" >"$T/ok.json"
mutated C-push "m['acts'] = ['push']" >"$T/push.json"
mutated C-post "m['acts'] = ['write', 'post']; m['future'] = 'Write the notes, then post the notes on X.'" >"$T/post.json"
mutated C-bad "del m['requester']" >"$T/bad.json"
mutated C-drone "m['drone'] = 'no-such-profile'" >"$T/drone.json"
chmod 644 "$T"/*.json
before=$(listing)
ledger_before=$(find "$S/ledger" -type f -exec sha256sum {} + | sha256sum)
verdict() { local rc=0; hcheck "$@" >"$T/out" 2>"$T/err" || rc=$?; echo "$rc"; }
check allow-exit-0 test "$(verdict "$T/ok.json")" = 0
check allow-says grep -q '^stage 1: allow' "$T/out"
check hold-exit-1 test "$(verdict "$T/push.json")" = 1
check hold-names-rule grep -Pq '^hold\tacts\.hold\.push\t' "$T/out"
check deny-exit-2 test "$(verdict "$T/post.json")" = 2
check deny-names-rule grep -Pq '^deny\tacts\.deny\.post\t' "$T/out"
check deny-lists-every-rule grep -Pq '^hold\ttext\.sns-post\t.*post the notes on X' "$T/out"
check invalid-exit-65 test "$(verdict "$T/bad.json")" = 65
check invalid-names-field grep -q "check $T/bad.json: invalid: requester" "$T/err"
printf '{"hangar": 1,\n "id": "s1",\n "future": "a",,\n "now": "b"}\n' >"$T/syntax.json"
check syntax-error-65 test "$(verdict "$T/syntax.json")" = 65
check syntax-error-line-column grep -q 'invalid: not valid JSON: .* (line 3, column 16)$' "$T/err"
check unknown-drone-65 test "$(verdict "$T/drone.json")" = 65
check unknown-drone-names-it grep -q 'invalid: drone: no drone profile named "no-such-profile"' "$T/err"
rc=0; hcheck - <"$T/push.json" >"$T/out" 2>&1 || rc=$?
check stdin-works test "$rc" = 1
rc=0; "${CHECK[@]}" --spool "$S" --json check "$T/post.json" >"$T/post.out" || rc=$?
check json-exit-2 test "$rc" = 2
check json-rules jq_ok "$T/post.out" "d['verdict'] == 'deny' and [r['rule'] for r in d['rules']] == ['acts.deny.post', 'text.sns-post'] and d['policy']['running'] is True"
check no-file-66 test "$(verdict "$T/none.json")" = 66
check spool-unchanged test "$before" = "$(listing)"
check ledger-unchanged test "$ledger_before" = "$(find "$S/ledger" -type f -exec sha256sum {} + | sha256sum)"
# The same files dropped: hangard decides as check said.
for m in ok push post; do drop "$m.json" <"$T/$m.json"; done
wait_until 10 test -d "$S/denied/C-post" || fail "C-post not denied (state: $(state_of C-post))"
wait_until 10 test -d "$S/hold/C-push" || fail "C-push not held (state: $(state_of C-push))"
wait_returned C-ok 20
check hangard-agrees-rules jq_ok "$S/denied/C-post/gate1.json" "d['rules'] == ['acts.deny.post', 'text.sns-post']"
check duplicate-id-65 test "$(verdict "$T/ok.json")" = 65
check duplicate-names-state grep -q 'invalid: id: id C-ok is already in the spool (returned)' "$T/err"
# The policy edited after hangard started: check judges by the file and says so.
python3 - "$S/policy.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["acts"]["allow"].remove("summarise"); p["acts"]["deny"].append("summarise")
json.dump(p, open(sys.argv[1], "w"))
PY
mutated C-sum "m['acts'] = ['summarise']" >"$T/sum.json"
check edited-policy-judged test "$(verdict "$T/sum.json")" = 2
check edited-policy-said grep -q "note: the policy on disk .* is not the one hangard runs with" "$T/err"
((FAILED == 0)) || fail "see above"
pass
