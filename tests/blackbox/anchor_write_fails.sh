#!/usr/bin/env bash
# Record before act holds for the anchor (issue 19, point 1): when the anchor line of a launch
# decision cannot be written (EIO on the anchor's append, once), none of the decision's acts
# happen — the mission is not taken in nor launched, its drone never starts, no key is taken — and
# hangard stops its work, saying why.
# A restart without the fault launches it once, and the ledger verifies.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
FLOG=$T/fault.log
drop_l() { mission l script 1 '' "count $T/starts" 'write REPORT.md launched' | drop l.json; }

# 1. Count: which mutating call appends the anchor lines of l's decision? With a free slot its
# intake and its launch are one decision: one ledger write, then one anchor append, the first
# after start.
start_faulty
drop_l
wait_returned l 20
N=$(fault_call "append $A/live\.anchor")
[[ -n "$N" ]] || fail "the counting run made no anchor append (log: $(tail -n 20 "$FLOG"))"
note "the anchor lines of l's intake and launch are mutating call $N"
fresh_spool 1

# 2. That append fails.
start_faulty "fail=$N:EIO"
drop_l
wait_until 10 work_is stopped || fail "hangar status does not say stopped: $(cat "$T/status.json")"
check reason-names-the-anchor jq_ok "$T/status.json" "'not on the anchor' in d['work']['reason']"
check hangard-alive kill -0 "$HPID"
check not-taken-in test -z "$(state_of l)" -a -f "$S/incoming/new/l.json"  # the intake was an act of it too
check no-key test -z "$(ls "$S/keys")"
sleep 1
check drone-never-started test ! -s "$T/starts"

# 3. Restart: launched once, done; the ledger verifies.
stop_hangard
start_hangard
wait_returned l 20
check done-after-restart test "$(outcome l)" == done
check started-once test "$(grep -c '^start l ' "$T/starts" || true)" == 1
check ledger-verifies hangar ledger verify
((FAILED == 0)) || exit 1
pass
