#!/usr/bin/env bash
# A forged ledger tail is never adopted (issue 19, point 4). Whoever can write the spool but not
# the anchor appends a hash-correct grant of op "deploy" to mission G1 while hangard is down: the
# tail links and hashes like the tail of a crash between a ledger write and its anchor line. The
# start fails closed naming the grant (catch-up never adopts authority); G1 does not launch; after
# the person's reanchor the forged grant is void, so G1's op is refused and its handler never runs
# (the handler appends to a file on the host: the proof). A real grant then runs G2's op once.
. "$(dirname "$0")/lib.sh"
each_identity
setup 2
runs=$T/deploy.runs
: >"$runs"
as_hangard_user
cat >"$T/policy.json" <<JSON
{"hangar_policy": 1, "ops": {"allow": [], "grant": ["deploy"], "deny": [], "unknown": "deny"}}
JSON
edit_conf "c['policy'] = t + '/policy.json'; c['ops'] = {'deploy': {'argv': ['/bin/sh', '-c', 'cat >/dev/null; echo \"\$HANGAR_MISSION\" >>' + t + '/deploy.runs'], 'timeout_s': 10}}"
with_ops() { python3 -c 'import json,sys; m=json.load(sys.stdin); m["ops"]=sys.argv[1].split(","); print(json.dumps(m))' "$1"; }
start_hangard
mission N1 true 1 '' 'nothing' | drop N1.json
wait_returned N1 20
stop_hangard

# The forgery: the next entry after the head, hashed by the recipe of hangar-ledger(5).
python3 - "$S/ledger/live" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
seg = os.path.join(d, sorted(f for f in os.listdir(d) if f.endswith(".jsonl"))[-1])
last = json.loads(open(seg).read().splitlines()[-1])
e = {"body": {"op": "deploy", "mission": "G1", "until": None, "by": "root"},
     "epoch": last["epoch"], "kind": "grant", "prev": last["hash"], "seq": last["seq"] + 1,
     "time": last["time"]}
canon = lambda o: json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
e["hash"] = hashlib.sha256((e["prev"] + canon(e)).encode()).hexdigest()
open(seg, "a").write(canon(e) + "\n")
PY
rc=0; hangar ledger verify >"$T/verify.out" 2>&1 || rc=$?
grep -q "anchor-behind" "$T/verify.out" || fail "the forged entry is not hash-correct (verify: $(cat "$T/verify.out"))"

mission G1 script 1 '' 'declare ops=deploy' 'op b1 deploy kd' | with_ops deploy | drop G1.json
start_hangard
check forged-grant-fails-closed jq_ok "$S/hangard.json" \
  "d['ledger']['state'] == 'fail-closed' and 'holds a grant entry' in d['ledger']['reason']"
wait_until 10 test -d "$S/queued/G1" || fail "G1 not taken in (state: $(state_of G1))"
sleep 2
check nothing-launched test ! -e "$S/keys/launch.G1.1"
hangar ledger reanchor --why "the grant at the head is not ours" >/dev/null || fail "reanchor failed"
wait_returned G1 30
check forged-grant-void jq_ok "$S/rooms/G1/ops/b1.result.json" \
  "d['status'] == 'refused' and d['rule'] == 'ops.grant.deploy'"
check handler-never-ran test ! -s "$runs"
hangar --json grants >"$T/grants.json" || fail "hangar grants failed"
check grants-list-none jq_ok "$T/grants.json" "d['grants'] == []"
check reanchor-records-void jq_ok <(hangar --json ledger show --kind ledger.reanchor) \
  "len(d['entries'][-1]['body']['void']) == 1"

# The same op under a real grant runs: the proof file can be written.
hangar grant deploy --mission G2 >/dev/null || fail "hangar grant failed"
mission G2 script 1 '' 'declare ops=deploy' 'op b1 deploy kd' | with_ops deploy | drop G2.json
wait_returned G2 30
check real-grant-runs test "$(cat "$runs")" == G2
check verify hangar ledger verify
((FAILED == 0)) || exit 1
pass
