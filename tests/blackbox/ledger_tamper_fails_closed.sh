#!/usr/bin/env bash
# A ledger edited by hand makes hangard fail closed at its next start: `hangar status` says
# FAIL-CLOSED and why, a new mission is taken in but not launched, a grant is refused, and
# `hangar ledger verify` exits 65 naming the failure. Only `hangar ledger reanchor --why` starts a
# new epoch (recorded, naming the previous head) after which launches resume. A ledger rolled back
# under a running hangard is caught by the head check before the next launch.
. "$(dirname "$0")/lib.sh"
setup 1
start_hangard
mission T1 true 1 '' 'nothing to do' | drop T1.json
wait_returned T1 20
stop_hangard TERM
seg=$(ls "$S"/ledger/live/*.jsonl | tail -1)
grep -q '"outcome":"done"' "$seg" || fail "no returned entry to edit in $seg"
sed -i 's/"outcome":"done"/"outcome":"fine"/' "$seg"
start_hangard
jq_ok "$S/hangard.json" "d['ledger']['state'] == 'fail-closed' and 'hash-mismatch' in d['ledger']['reason']" ||
  fail "hangard.json does not say fail-closed: $(cat "$S/hangard.json")"
hangar status | grep -q "FAIL-CLOSED" || fail "hangar status does not say FAIL-CLOSED: $(hangar status)"
rc=0
hangar ledger verify >"$T/verify.out" 2>&1 || rc=$?
((rc == 65)) && grep -q "hash-mismatch" "$T/verify.out" || fail "ledger verify: exit $rc: $(cat "$T/verify.out")"
mission T2 true 1 '' 'nothing to do' | drop T2.json
wait_until 10 test -d "$S/queued/T2" || fail "T2 not taken in while failed closed (state: $(state_of T2))"
sleep 1.5
[[ "$(state_of T2)" == queued && ! -e "$S/keys/launch.T2.1" ]] || fail "T2 launched on a failed-closed ledger"
rc=0
hangar grant a.b --mission T2 >/dev/null 2>&1 || rc=$?
((rc == 65)) || fail "a grant on a failed-closed ledger: exit $rc, expected 65 (invalid now)"
wait_until 10 controls_taken || fail "grant request not taken"
hangar ledger show --kind control.refused | grep -q "failed closed" || fail "the grant was not refused"
hangar ledger reanchor --why "segment edited in a test; reviewed" >/dev/null || fail "reanchor failed"
wait_returned T2 20
[[ "$(outcome T2)" == done ]] || fail "T2 outcome $(outcome T2) after the reanchor"
hangar ledger show --json >"$T/ledger.json"
python3 - "$T/ledger.json" <<'PY' || fail "reanchor not recorded as a new epoch: $(cat "$T/ledger.json")"
import json, sys
es = json.load(open(sys.argv[1]))["entries"]
fc = [e for e in es if e["kind"] == "ledger.fail-closed"]
ra = [e for e in es if e["kind"] == "ledger.reanchor"]
assert len(fc) == 1 and "hash-mismatch" in fc[0]["body"]["reason"], fc
assert len(ra) == 1 and ra[0]["epoch"] == 2 and ra[0]["body"]["why"].startswith("segment edited"), ra
prev = ra[0]["body"]["previous"]
assert prev["epoch"] == 1 and prev["seq"] == ra[0]["seq"] - 1 and prev["hash"] == ra[0]["prev"], prev
assert all(e["epoch"] == 2 for e in es if e["seq"] > ra[0]["seq"]), "entries after the reanchor not in epoch 2"
PY
hangar ledger verify >"$T/verify2.out" 2>&1 || fail "the new epoch does not verify: $(cat "$T/verify2.out")"
jq_ok "$S/hangard.json" "d['ledger']['state'] == 'ok'" || fail "hangard.json still fail-closed after the reanchor"
# Rolled back under a running hangard: the last two entries cut off the segment.
seg=$(ls "$S"/ledger/live/*.jsonl | tail -1)
head -n -2 "$seg" >"$T/cut" && cat "$T/cut" >"$seg"
mission T3 true 1 '' 'nothing to do' | drop T3.json
wait_until 10 jq_ok "$S/hangard.json" "d['ledger']['state'] == 'fail-closed'" ||
  fail "a rollback under a running hangard did not fail it closed: $(cat "$S/hangard.json")"
jq_ok "$S/hangard.json" "'rolled back' in d['ledger']['reason']" || fail "reason: $(cat "$S/hangard.json")"
sleep 1
[[ ! -e "$S/keys/launch.T3.1" ]] || fail "T3 launched on a rolled-back ledger"
alive || fail "hangard is not alive"
pass
