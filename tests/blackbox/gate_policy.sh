#!/usr/bin/env bash
# The gate judges by the policy (spool/policy.json, man/hangar-policy.5): a mission asking to post
# is denied at intake and no drone starts; one asking to push is held until a person approves it,
# then runs; text rules judge acts, not topics: "do not post" runs, "post the notes on X" is held;
# every verdict names its rules and the policy's sha256 in the ledger. A bad policy
# stops hangard from starting (exit 78) rather than load half-way.
. "$(dirname "$0")/lib.sh"
setup 2
python3 - "$S/hangar.conf" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["policy"] = "policy.json"
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
echo '{"hangar_policy":1,"acts":{"deny":["post"],"hold":["post"]}}' >"$T/bad-policy.json"
cp "$S/hangar.conf" "$T/bad.conf"
sed -i "s|\"policy.json\"|\"$T/bad-policy.json\"|" "$T/bad.conf"
rc=0
timeout 10 "$BIN/hangard" --spool "$S" --config "$T/bad.conf" --anchor "$A" </dev/null >"$T/bad.out" 2>&1 || rc=$?
((rc == 78)) && grep -q "cannot load policy" "$T/bad.out" || fail "a bad policy: exit $rc: $(cat "$T/bad.out")"
start_hangard
mutated G-post "m['acts'] = ['write', 'post']" | drop G-post.json
mutated G-push "m['acts'] = ['push']" | drop G-push.json
mutated G-ok "m['acts'] = ['read', 'write']" | drop G-ok.json
mutated G-nopost "m['acts'] = ['write']; m['future'] = 'Write the notes. Do not post them anywhere.'" | drop G-nopost.json
mutated G-textpost "m['acts'] = ['write']; m['future'] = 'Write the notes, then post the notes on X.'" | drop G-textpost.json
wait_until 10 test -d "$S/denied/G-post" || fail "G-post not denied (state: $(state_of G-post))"
jq_ok "$S/denied/G-post/gate1.json" "d['verdict'] == 'deny' and d['rules'] == ['acts.deny.post']" ||
  fail "G-post gate1.json: $(cat "$S/denied/G-post/gate1.json")"
[[ ! -e "$S/keys/launch.G-post.1" && ! -e "$S/rooms/G-post" ]] || fail "a drone started for G-post"
wait_until 10 test -d "$S/hold/G-push" || fail "G-push not held (state: $(state_of G-push))"
hangar ls hold | grep -Eq "^G-push +hold .* acts\.hold\.push( |$)" ||
  fail "hangar ls hold does not show G-push and why: $(hangar ls hold)"
wait_returned G-ok 20
[[ "$(outcome G-ok)" == done ]] || fail "G-ok outcome $(outcome G-ok)"
wait_returned G-nopost 20
[[ "$(outcome G-nopost)" == done ]] || fail "G-nopost (\"do not post\") outcome $(outcome G-nopost)"
wait_until 10 test -d "$S/hold/G-textpost" || fail "G-textpost not held (state: $(state_of G-textpost))"
jq_ok "$S/hold/G-textpost/gate1.json" "d['rules'] == ['text.sns-post']" ||
  fail "G-textpost gate1.json: $(cat "$S/hold/G-textpost/gate1.json")"
hangar show G-textpost | grep -Eq "^gate1 +hold \(ledger seq [0-9]+\) \[text.sns-post\]" ||
  fail "hangar show does not give the rule: $(hangar show G-textpost)"
hangar show G-textpost | grep -q "future asks to post" || fail "hangar show does not give the reason"
sleep 1
[[ "$(state_of G-push)" == hold && ! -e "$S/keys/launch.G-push.1" ]] || fail "G-push ran without an approval"
hangar approve G-push --why "pushing a branch is fine" >/dev/null || fail "approve failed"
wait_returned G-push 20
[[ "$(outcome G-push)" == done ]] || fail "G-push outcome $(outcome G-push) after approval"
digest=$(jget "$S/hangard.json" "d['policy']['sha256']")
hangar status | grep -Eq "^policy +$S/policy.json, sha256 ${digest:0:16}" || fail "hangar status does not name the policy: $(hangar status)"
hangar ledger show --kind mission.denied --json | python3 -c '
import json, sys
e = [e for e in json.load(sys.stdin)["entries"] if e["body"]["id"] == "G-post"][0]
assert e["body"]["rules"] == ["acts.deny.post"] and e["body"]["policy"] == sys.argv[1], e
' "$digest" || fail "the ledger does not record the denial with its rule and policy"
pass
