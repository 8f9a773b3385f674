#!/usr/bin/env bash
# A return's return.json goes into running/ID while its decision's records are written, on
# another thread of the real hangard (Env::Alongside; man/hangard.8, "Record before act"); the
# move to returned/ comes after them. When the ledger then cannot be written (its segment made
# immutable while the drone runs: the append's open fails with EPERM), hangard stops its work and
# the mission stays in running/: not returned. Restarted on a writable ledger, hangard finds that
# return.json without its mission.returned entry, removes it, observes the ended drone again and
# returns the mission once, its return.json naming that entry with its sha256; the drone ran once,
# and the ledger verifies. What is checked is the spool's own directories, the ledger's lines and
# the drone's own count, not hangard's word.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
frozen_ledger_test

start_hangard
warm_segment

x_runs
freeze "$SEG"
wait_until 20 work_is stopped || fail "hangard did not stop its work when the ledger could not be written"
grep -q 'STOPPED' "$LOG" || fail "hangard did not log its stop"
[[ "$(state_of X)" == running ]] || fail "X is in $(state_of X)/ without its mission.returned entry"
[[ -f "$S/running/X/return.json" ]] ||
  fail "running/X/return.json is missing: the real hangard did not write it beside the records"
pass "$TEST/stopped"

stop_hangard
thaw
start_hangard
wait_returned X 30
[[ "$(outcome X)" == done ]] || fail "after the restart X ended $(outcome X), expected done"
[[ "$(starts X)" == 1 ]] || fail "X's drone ran $(starts X) times"
# return.json names its entry: that seq's line is X's mission.returned with return.json's sha256.
entry=$(only_entry mission.returned X 2>&1) || fail "X's return.json is not backed by its entry: $entry"
python3 - "$S/returned/X/return.json" "$entry" <<'PY' || fail "X's return.json is not backed by its entry"
import hashlib, json, sys
raw = open(sys.argv[1], "rb").read()
seq = json.loads(raw)["ledger_seq"]
e = json.loads(sys.argv[2])
if e["seq"] != seq or e["body"].get("sha256") != hashlib.sha256(raw).hexdigest():
    sys.exit(f"return.json names seq {seq}; X's entry is seq {e['seq']} with sha256 {e['body'].get('sha256')}")
PY
grep -q 'removed running/X/return.json' "$LOG" || fail "the start did not say it removed the stale return.json"
hangar ledger verify >"$T/verify.out" 2>&1 || fail "the ledger does not verify: $(cat "$T/verify.out")"
pass
