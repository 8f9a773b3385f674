#!/usr/bin/env bash
# The window (man/hangar-ops.5): a drone asks for external acts only by writing ops/NAME.json in
# its room; hangard answers each in ops/NAME.result.json after its checks — declared, listed in the
# mission, allowed by the policy, granted in the ledger where the policy says so. An executed key
# is never run twice (a repeat gets the stored result); a request refused before it ran leaves its
# key free, so after a grant the same request runs once. The return's verdict compares the
# declaration with the ops requested, and every answer is on the ledger.
. "$(dirname "$0")/lib.sh"
setup 4
cat >"$T/policy.json" <<JSON
{"hangar_policy": 1,
 "ops": {"allow": ["post.message"], "grant": ["deploy"], "deny": ["rm.prod"], "unknown": "deny"}}
JSON
python3 - "$S/hangar.conf" "$T" <<'PY'
import json, sys
conf, t = sys.argv[1], sys.argv[2]
c = json.load(open(conf))
c["policy"] = t + "/policy.json"
c["ops"] = {op: {"argv": ["/bin/sh", "-c", "cat; echo; echo \"$HANGAR_MISSION $HANGAR_OP_KEY\" >>%s/%s.runs" % (t, op)],
                 "timeout_s": 10}
            for op in ("post.message", "deploy", "rm.prod")}
json.dump(c, open(conf, "w"))
PY
# with_ops OPS_CSV: the mission on stdin with "ops" set.
with_ops() { python3 -c 'import json,sys; m=json.load(sys.stdin); m["ops"]=sys.argv[1].split(","); print(json.dumps(m))' "$1"; }
runs() { [[ -f "$T/$1.runs" ]] && wc -l <"$T/$1.runs" || echo 0; }
result() { echo "$S/rooms/$1/ops/$2.result.json"; }
start_hangard

# W1: declared and allowed; the same key twice; an op that needs a grant it does not have.
mission W1 script 1 '' 'declare ops=post.message,deploy external_acts=post.message' \
  'op a1 post.message k1 {"text":"hi"}' 'op a2 post.message k1 {"text":"hi"}' 'op a3 deploy k2' |
  with_ops post.message,deploy | drop W1.json
# U1: asks for an op it did not declare. D1: declared it, but the mission does not list it (a
# mission listing an op the policy denies is denied at intake: stage 1 of the gate).
mission U1 script 1 '' 'declare ops=post.message' 'op c1 rm.prod k1' | with_ops post.message | drop U1.json
mission D1 script 1 '' 'declare ops=rm.prod external_acts=rm.prod' 'op d1 rm.prod k1' | with_ops post.message | drop D1.json
# G1: refused for want of a grant, granted meanwhile, asked again under the same key: runs once.
mission G1 script 1 '' 'declare ops=deploy' 'op b1 deploy kd' 'sleep 3' 'op b2 deploy kd' 'op b3 deploy kd' |
  with_ops deploy | drop G1.json
wait_until 15 test -f "$(result G1 b1)" || fail "G1: no answer to ops/b1.json"
jq_ok "$(result G1 b1)" "d['status'] == 'refused' and d['rule'] == 'ops.grant.deploy'" ||
  fail "G1 b1 not refused for want of a grant: $(cat "$(result G1 b1)")"
hangar grant deploy --mission G1 >/dev/null || fail "hangar grant failed"
for id in W1 U1 D1 G1; do wait_returned $id 30; done

r=$(result W1 a1)
jq_ok "$r" "d['status'] == 'executed' and d['rc'] == 0 and d['output_text'].startswith('{\"text\":\"hi\"}') and d['ledger_seq'] > 0" ||
  fail "W1 a1 not executed with its args on stdin: $(cat "$r")"
jq_ok "$(result W1 a2)" "d['status'] == 'executed' and d['repeat'] is True and d['repeat_of'] == 'a1'" ||
  fail "W1 a2 (same key) not answered with the stored result: $(cat "$(result W1 a2)")"
jq_ok "$(result W1 a3)" "d['status'] == 'refused' and d['rule'] == 'ops.grant.deploy'" ||
  fail "W1 a3: $(cat "$(result W1 a3)")"
jq_ok "$(result U1 c1)" "d['status'] == 'refused' and d['rule'] == 'op.undeclared'" ||
  fail "U1 c1: $(cat "$(result U1 c1)")"
jq_ok "$(result D1 d1)" "d['status'] == 'refused' and d['rule'] == 'op.unlisted'" ||
  fail "D1 d1: $(cat "$(result D1 d1)")"
jq_ok "$(result G1 b2)" "d['status'] == 'executed' and d['rc'] == 0" || fail "G1 b2 after the grant: $(cat "$(result G1 b2)")"
jq_ok "$(result G1 b3)" "d['repeat'] is True" || fail "G1 b3: $(cat "$(result G1 b3)")"
[[ $(runs post.message) == 1 && $(runs deploy) == 1 && $(runs rm.prod) == 0 ]] ||
  fail "handler runs: post.message $(runs post.message), deploy $(runs deploy), rm.prod $(runs rm.prod); expected 1, 1, 0"

# The returns: the window's record and the verdict.
ret=$S/returned/W1/return.json
jq_ok "$ret" "d['verdict']['text'] == 'allow: declaration matches evidence' and [a['status'] for a in d['ops']['answered']] == ['executed', 'executed', 'refused']" ||
  fail "W1 return: verdict/ops $(jget "$ret" "[d['verdict'], d['ops']]")"
jq_ok "$S/returned/U1/return.json" "d['verdict']['verdict'] == 'reassess' and any('rm.prod' in r and 'not declared' in r for r in d['verdict']['reasons'])" ||
  fail "U1 verdict: $(jget "$S/returned/U1/return.json" "d['verdict']")"
jq_ok "$S/returned/D1/return.json" "d['verdict']['verdict'] == 'allow' and d['verdict']['notes'] == []" || fail "D1 verdict: $(jget "$S/returned/D1/return.json" "d['verdict']")"
# The mission directory keeps the request as read, the args, the output, the key with its result.
for f in a1.request.json a1.args.json a1.out a1.result.json keys/k1.json keys/k1.result.json; do
  [[ -f "$S/returned/W1/ops/$f" ]] || fail "returned/W1/ops/$f missing"
done
jq_ok "$S/returned/W1/ops/keys/k1.json" "d['request'] == 'a1' and 'result' not in d" &&
  jq_ok "$S/returned/W1/ops/keys/k1.result.json" "d['request'] == 'a1' and d['status'] == 'executed'" ||
  fail "the key and its result: $(cat "$S/returned/W1/ops/keys/k1.json" "$S/returned/W1/ops/keys/k1.result.json")"
[[ ! -e "$S/returned/W1/ops/keys/k2.json" ]] || fail "a refused request took a key"

hangar ledger show --json >"$T/ledger.json" || fail "hangar ledger show failed"
python3 - "$T/ledger.json" <<'PY' || fail "the ledger lacks the window's answers"
import json, sys
es = [(e["kind"], e["body"]) for e in json.load(open(sys.argv[1]))["entries"]]
def count(kind, **kv):
    return sum(1 for k, b in es if k == kind and all(b.get(x) == y for x, y in kv.items()))
assert count("op.allowed", id="W1", op="post.message", key="k1") == 1
assert count("op.result", id="W1", request="a1", rc=0) == 1
assert count("op.repeated", id="W1", request="a2") == 1
assert count("op.refused", id="W1", request="a3", rule="ops.grant.deploy") == 1
assert count("op.refused", id="U1", rule="op.undeclared") == 1
assert count("op.refused", id="D1", rule="op.unlisted") == 1
assert count("op.result", id="G1", request="b2") == 1
PY
hangar show W1 >"$T/show.txt" || fail "hangar show W1 failed"
grep -Eq '^verdict +allow: declaration matches evidence$' "$T/show.txt" &&
  grep -Eq '^window +a1 post.message executed$' "$T/show.txt" &&
  grep -Eq '^ +a3 deploy refused \[ops.grant.deploy\]$' "$T/show.txt" ||
  fail "hangar show W1 does not show the window's answers and the verdict: $(cat "$T/show.txt")"
hangar ledger verify >/dev/null || fail "the ledger does not verify"
pass
