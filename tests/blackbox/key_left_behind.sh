#!/usr/bin/env bash
# Regression (issue 6, "a key left behind by an act refused just before it ran, so it could never
# be retried"): an op whose handler cannot be started is answered with the error, recorded as
# op.unrun, and its key is released; once the handler is fixed (hangard restarted with the right
# config, the drone still running), the same request under the same key runs, exactly once.
. "$(dirname "$0")/lib.sh"
setup 1
cat >"$T/policy.json" <<JSON
{"hangar_policy": 1, "ops": {"allow": ["log.note"], "unknown": "deny"}}
JSON
handler() {  # handler ARGV_JSON: the config's handler for log.note
  python3 - "$S/hangar.conf" "$T" "$1" <<'PY'
import json, sys
conf, t, argv = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
c = json.load(open(conf))
c["policy"] = t + "/policy.json"
c["ops"] = {"log.note": {"argv": argv, "timeout_s": 10}}
json.dump(c, open(conf, "w"))
PY
}
handler '["/nonexistent/hangar-op-handler"]'
start_hangard
mission K1 script 1 '[{"file":"REPORT.md"}]' 'declare ops=log.note' 'op a1 log.note k1 {}' 'sleep 6' \
  'op a2 log.note k1 {}' 'write REPORT.md noted' |
  python3 -c 'import json,sys; m=json.load(sys.stdin); m["ops"]=["log.note"]; print(json.dumps(m))' | drop K1.json
r1=$S/rooms/K1/ops/a1.result.json
wait_until 15 test -f "$r1" || fail "no answer to ops/a1.json"
jq_ok "$r1" "d['status'] == 'error' and 'hangar-op-handler' in d['error']" || fail "a1: $(cat "$r1")"
keys=$(find "$S/running/K1" "$S/rooms/K1" -path '*/keys/k1.json' 2>/dev/null)
[[ -z "$keys" ]] || fail "the key of an op that never ran was left behind: $keys"
# The handler fixed; hangard restarted while the drone waits to ask again.
stop_hangard
handler '["/bin/sh", "-c", "cat >/dev/null; echo \"$HANGAR_MISSION $HANGAR_OP_KEY\" >>'"$T"'/runs"]'
start_hangard
wait_returned K1 30
r2=$S/rooms/K1/ops/a2.result.json
jq_ok "$r2" "d['status'] == 'executed' and d['rc'] == 0" || fail "a2 under the same key after the fix: $(cat "$r2")"
[[ "$(cat "$T/runs" 2>/dev/null)" == "K1 k1" ]] || fail "the handler ran: '$(cat "$T/runs" 2>/dev/null)', expected once for K1 k1"
hangar ledger show --json >"$T/ledger.json" || fail "hangar ledger show failed"
jq_ok "$T/ledger.json" "[e['kind'] for e in d['entries'] if e['kind'].startswith('op.')] == ['op.allowed', 'op.unrun', 'op.allowed', 'op.result']" ||
  fail "op entries: $(jget "$T/ledger.json" "[e['kind'] for e in d['entries'] if e['kind'].startswith('op.')]")"
pass
