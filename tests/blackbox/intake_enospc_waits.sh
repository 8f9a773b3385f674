#!/usr/bin/env bash
# A full disk at intake rejects nothing (issue 6, crash safety). The first write into
# queued/.x.tmp fails with ENOSPC (once: FaultEnv cannot lift a sticky fault, and space returning
# is a later call succeeding): the half-made directory goes, x.json stays in incoming/new, hangard
# stays up and says "intake paused", the kernel records that it forgot the mission
# (mission.intake-failed), and the retry a few seconds later takes x in: it runs exactly once,
# nothing lands in rejected/, and the ledger verifies. No space for the ledger entry that records
# the intake is a stop instead (the decision cannot be recorded), which ends by itself: once space
# is back hangard restarts in place and takes x in.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
FLOG=$T/fault.log

drop_x() { mission x script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md in' | drop x.json; }

# 1. Count: which mutating call is the intake's first write?
start_faulty
started=$(fault_calls)
drop_x
wait_returned x 20
N=$(fault_call "write(-files(-dir-later)?)? $S/queued/\.x\.tmp/.*")
[[ -n "$N" ]] || fail "the counting run made no write into queued/.x.tmp"
# The ledger entry that records x's intake (mission.accepted), written alongside the intake's first
# steps (hangard's Env::Alongside: under FaultEnv the intake's first, then the records), and before
# the rename that makes x a mission in queued/.
L=$(fault_call "append $S/ledger/.*" "$started")
R=$(fault_call "rename-later $S/queued/\.x\.tmp $S/queued/x" "$started")
[[ -n "$L" && -n "$R" && "$L" -lt "$R" ]] ||
  fail "no ledger append between start ($started) and x made a mission (${R:-no rename})"
note "the intake's first write is mutating call $N, its ledger entry call $L"
fresh_spool 1

# 2. The same with that write failing: no space.
start_faulty "fail=$N:ENOSPC"
drop_x
wait_until 5 work_is intake-paused || fail "hangar status does not say intake paused: $(cat "$T/status.json")"
jq_ok "$T/status.json" "'No space left on device' in d['work']['reason'] and 'queued/.x.tmp' in d['work']['reason']" ||
  fail "the pause's reason: $(jget "$T/status.json" "d['work']")"
hangar status | grep -q '^work *intake paused since .*No space left on device' ||
  fail "the human status lacks the pause: $(hangar status)"
[[ -f "$S/incoming/new/x.json" ]] || fail "x.json is not in incoming/new while intake is paused"
[[ -z "$(state_of x)" && ! -e "$S/queued/.x.tmp" ]] || fail "x half taken in: $(state_of x), $(ls -A "$S/queued")"
kill -0 "$HPID" 2>/dev/null || fail "hangard exited on ENOSPC"
grep -q 'intake paused: .*No space left on device' "$LOG" || fail "hangard did not log the pause"

# The retry takes it in; it runs once; nothing is rejected.
wait_returned x 20
[[ "$(outcome x)" == done ]] || fail "x outcome $(outcome x), expected done"
n=$(grep -c '^start x ' "$T/starts" || true)
((n == 1)) || fail "x started $n times"
[[ -z "$(ls "$S/rejected")" ]] || fail "something was rejected: $(ls "$S/rejected")"
[[ ! -e "$S/incoming/new/x.json" ]] || fail "x.json is still in incoming/new"
grep -q 'intake resumed: x taken in' "$LOG" || fail "hangard did not log that intake resumed"
hangar status --json >"$T/status.json"
jq_ok "$T/status.json" "d['work']['state'] == 'ok'" || fail "after the retry: $(jget "$T/status.json" "d['work']")"
grep -qs '"mission.intake-failed"' "$S"/ledger/*/* || fail "the ledger lacks mission.intake-failed"
hangar ledger verify >"$T/verify.out" 2>&1 || fail "the ledger does not verify: $(cat "$T/verify.out")"

# 3. No space for the ledger entry itself: not a pause but a stop (the decision cannot be
# recorded, and the kernel is ahead of the disk), which a full disk ends by itself: once space is
# there again (here at once: the fault struck one call), hangard restarts in place (the same pid,
# on the real environment) and recovers from the spool; x, still waiting in incoming/new, is taken
# in and runs once. No restart by a person.
fresh_spool 1
start_faulty "fail=$L:ENOSPC"
pid=$HPID
drop_x
wait_until 15 grep -q 'STOPPED (storage full): .*ledger.*No space left on device' "$LOG" ||
  fail "a ledger append without space did not stop the work for a full disk: $(tail -n 5 "$LOG")"
wait_until 15 grep -q 'space is back .*restarting in place' "$LOG" ||
  fail "hangard did not restart in place once space was back: $(tail -n 5 "$LOG")"
wait_returned x 20
[[ "$(outcome x)" == done && -z "$(ls "$S/rejected")" ]] || fail "after the restart in place: x $(outcome x), rejected: $(ls "$S/rejected")"
n=$(grep -c '^start x ' "$T/starts" || true)
((n == 1)) || fail "x started $n times"
kill -0 "$pid" 2>/dev/null && jq_ok "$S/hangard.json" "d['pid'] == $pid" || fail "not the same hangard process after the restart in place"
wait_until 10 work_is ok || fail "work not ok after the restart in place: $(cat "$T/status.json")"
hangar ledger verify >"$T/verify.out" 2>&1 || fail "the ledger does not verify after the stop: $(cat "$T/verify.out")"
pass
