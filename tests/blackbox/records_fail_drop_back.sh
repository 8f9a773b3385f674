#!/usr/bin/env bash
# A drop goes into its queued/.ID.tmp while its decision's records are written, on another thread
# of the real hangard (Env::Alongside; man/hangard.8, "Record before act"). When the ledger then
# cannot be written (its segment made immutable: the append's open fails with EPERM), hangard stops
# its work, and the drop is back in incoming/new at once, under its name, with no .ID.tmp and no
# mission left; its drone never ran. Restarted on a writable ledger, hangard takes it in and runs it
# once, and the ledger verifies. What is checked is the spool's own directories and the drone's own
# count, not hangard's word.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
frozen_ledger_test

start_hangard
warm_segment
freeze "$SEG"

mission X script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md ran' | drop x.json
wait_until 20 work_is stopped || fail "hangard did not stop its work when the ledger could not be written"
grep -q 'STOPPED' "$LOG" || fail "hangard did not log its stop"
[[ -f "$S/incoming/new/x.json" ]] ||
  fail "x.json is not back in incoming/new while the work is stopped (queued: $(ls -A "$S/queued"))"
[[ -z "$(state_of X)" ]] || fail "X is a mission in $(state_of X) without its ledger entry"
[[ -z "$(find "$S"/{queued,hold,denied,rejected} -maxdepth 1 -name '.*.tmp')" ]] ||
  fail "a .ID.tmp is left: $(find "$S"/{queued,hold,denied,rejected} -maxdepth 1 -name '.*.tmp')"
sleep 1
[[ "$(starts X)" == 0 ]] || fail "X's drone ran $(starts X) times without its ledger entry"
pass "$TEST/stopped"

stop_hangard
thaw
start_hangard
wait_returned X 30
[[ "$(outcome X)" == done ]] || fail "after the restart X ended $(outcome X), expected done"
[[ "$(starts X)" == 1 ]] || fail "X's drone ran $(starts X) times"
[[ ! -e "$S/incoming/new/x.json" ]] || fail "x.json is still in incoming/new"
hangar ledger verify >"$T/verify.out" 2>&1 || fail "the ledger does not verify: $(cat "$T/verify.out")"
pass
