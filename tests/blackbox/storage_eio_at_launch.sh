#!/usr/bin/env bash
# A launch whose spool write fails is a storage failure, not the mission's (issue 6). plan.json
# cannot be written (EIO, once): hangard stops its work before the key is taken, so nothing ran
# and the mission stays queued, with no outcome made up for it ("failed" would claim it was
# tried). A restart without the fault launches it once, and the ledger verifies.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
FLOG=$T/fault.log
drop_l() { mission l script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md launched' | drop l.json; }

# 1. Count: which mutating call writes l's plan.json?
start_faulty
drop_l
wait_returned l 20
N=$(fault_call "write(-files(-dir-later)?)? $S/queued/l/plan\.json( \S+)?")
[[ -n "$N" ]] || fail "the counting run did not write queued/l/plan.json"
note "l's plan.json is mutating call $N"
fresh_spool 1

# 2. That write fails.
start_faulty "fail=$N:EIO"
drop_l
wait_until 10 work_is stopped || fail "hangar status does not say stopped: $(cat "$T/status.json")"
jq_ok "$T/status.json" "'queued/l/.plan.json.tmp' in d['work']['reason'] and 'Input/output error' in d['work']['reason']" ||
  fail "the reason does not name plan.json: $(jget "$T/status.json" "d['work']")"
kill -0 "$HPID" 2>/dev/null || fail "hangard exited on the storage failure"
[[ "$(state_of l)" == queued ]] || fail "l is in '$(state_of l)', expected queued"
[[ -z "$(ls "$S/keys")" ]] || fail "a launch key was taken: $(ls "$S/keys")"
sleep 1
[[ ! -s "$T/starts" ]] || fail "l's drone started: $(cat "$T/starts")"

# 3. Restart: launched once, done.
stop_hangard
start_hangard
wait_returned l 20
[[ "$(outcome l)" == done ]] || fail "l outcome $(outcome l), expected done"
n=$(grep -c '^start l ' "$T/starts" || true)
((n == 1)) || fail "l started $n times"
hangar ledger verify >"$T/verify.out" 2>&1 || fail "the ledger does not verify: $(cat "$T/verify.out")"
pass
