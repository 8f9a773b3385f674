#!/usr/bin/env bash
# A launch of a mission queued before its batch takes its key (and writes its launch.json) while
# the batch's records are written, on another thread of the real hangard (man/hangard.8, "Record
# before act"); the move to running/ and the drone come after them. When the ledger then cannot be
# written (its segment made immutable while the drone before it runs: the append's open fails
# with EPERM), hangard stops its work with the next mission still in queued/, its drone not run,
# and a key its ledger does not hold. Restarted on a writable ledger, hangard takes that key back
# (it names a ledger_seq the ledger lacks) and launches the mission as its first attempt: it
# returns done, its drone run once, and its key names its mission.launched entry. A start that
# leaves the key returns it lost; a hangard that moves it before its records runs its drone while
# the work stops. What is checked is the spool's own directories, the ledger's lines and the
# drones' own count, not hangard's word.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
frozen_ledger_test

start_hangard
warm_segment

x_runs
y_waits
freeze "$SEG"
wait_until 20 work_is stopped || fail "hangard did not stop its work when the ledger could not be written"
[[ "$(state_of Y)" == queued ]] || fail "Y is in $(state_of Y)/ without its mission.launched entry"
[[ -f "$S/keys/launch.Y.1" ]] ||
  fail "keys/launch.Y.1 is missing: the real hangard did not take Y's key beside the records"
sleep 0.5
[[ "$(starts Y)" == 0 ]] || fail "Y's drone ran $(starts Y) times while its entry was never written"
pass "$TEST/stopped"

stop_hangard
thaw
start_hangard
y_once_x_done
# The key names its entry: that seq's line is Y's mission.launched of key launch.Y.1.
entry=$(only_entry mission.launched Y 2>&1) || fail "Y's key is not backed by its entry: $entry"
python3 - "$S/keys/launch.Y.1" "$entry" <<'PY' || fail "Y's key is not backed by its entry"
import json, sys
seq = json.load(open(sys.argv[1]))["ledger_seq"]
e = json.loads(sys.argv[2])
if e["seq"] != seq or e["body"].get("key") != "launch.Y.1":
    sys.exit(f"the key names seq {seq}; Y's entry is seq {e['seq']}")
PY
grep -q 'launch key keys/launch.Y.1 taken back' "$LOG" || fail "the start did not say it took the key back"
hangar ledger verify >"$T/verify.out" 2>&1 || fail "the ledger does not verify: $(cat "$T/verify.out")"
pass
