#!/usr/bin/env bash
# A storage failure stops hangard's work, not hangard (issue 6, crash safety). One write fails with
# EIO while hangard returns a mission: once, not sticky, as the kernel reports a failed fsync once
# (a retry would "succeed" with the data already gone: PostgreSQL's lesson). hangard stays up,
# `hangar status` says the work stopped and names the write, a mission dropped afterwards waits
# untaken in incoming/new, and a drone that was running is not killed (its supervisor ends it and
# writes exit.json). A restart without the fault recovers from the spool: every mission returns
# done, each drone started once, and the ledger verifies.
. "$(dirname "$0")/lib.sh"
each_identity
setup 2
as_hangard_user
FLOG=$T/fault.log

is_running() { [[ "$(state_of "$1")" == running && -f "$S/running/$1/launch.json" ]]; }
# The workload, the same in both runs: a (sleeps 6 s) running, then b (ends at once).
workload() {
  mission a script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'sleep 6' 'write REPORT.md slow' | drop a.json
  wait_until 15 is_running a || fail "a is not running within 15 s (state: $(state_of a))"
  mission b script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md quick' | drop b.json
}

# 1. Count: which mutating call writes b's return.json?
start_faulty
workload
wait_returned b 20
N=$(fault_call "write(-files(-dir-later)?)? $S/running/b/return\.json( \S+)?")
[[ -n "$N" ]] || fail "the counting run did not write running/b/return.json: $(grep -c . "$FLOG") calls"
note "b's return.json is mutating call $N"
fresh_spool 2

# 2. The same with that write failing (EIO, once).
start_faulty "fail=$N:EIO"
workload
wait_until 20 work_is stopped || fail "hangar status does not say stopped: $(cat "$T/status.json")"
kill -0 "$HPID" 2>/dev/null || fail "hangard exited on the storage failure"
# The write names its temporary file, running/b/.return.json.tmp.PID, as a real failure would.
# When the calls did not come in the counting run's order (a ended early), say how a ended.
a_ended() {
  local d
  for d in "$S"/running/a "$S"/returned/a; do
    [[ -f "$d/run/exit.json" ]] && printf '; a ended: %s, its stderr: %s' "$(cat "$d/run/exit.json")" \
      "$(tail -c 600 "$d/run/stderr" 2>/dev/null)"
  done
  return 0
}
jq_ok "$T/status.json" "'running/b/.return.json.tmp' in d['work']['reason'] and 'Input/output error' in d['work']['reason']" ||
  fail "the reason does not name the write and its error: $(jget "$T/status.json" "d['work']")$(a_ended)"
jq_ok "$T/status.json" "d['kernel']['alive'] is True" || fail "status says the kernel is not alive"
hangar status >"$T/status.txt"
grep -q '^work *STOPPED since .*running/b/\.return\.json\.tmp.*Input/output error.*restart hangard' "$T/status.txt" ||
  fail "the human status lacks the stop: $(cat "$T/status.txt")"
rc=0; hangar status --check >/dev/null || rc=$?
((rc == 1)) || fail "hangar status --check exited $rc while the work is stopped, expected 1"
jq_ok "$S/hangard.json" "d['work']['state'] == 'stopped' and d['status'] == 'running'" ||
  fail "hangard.json: $(cat "$S/hangard.json")"
[[ "$(grep -c 'STOPPED: ' "$LOG")" == 1 ]] || fail "the stop is not logged exactly once"
[[ "$(state_of b)" == running && ! -e "$S/running/b/return.json" ]] ||
  fail "b is in '$(state_of b)' after its return failed, expected running without return.json"

# Nothing new is taken: c waits in incoming/new.
mission c script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md later' | drop c.json
sleep 3
[[ -f "$S/incoming/new/c.json" && -z "$(state_of c)" ]] || fail "c was taken while stopped (state: $(state_of c))"

# a was not killed: its supervisor lets it end and records a clean exit.
wait_until 15 test -f "$S/running/a/run/exit.json" || fail "a's supervisor wrote no exit.json"
jq_ok "$S/running/a/run/exit.json" "d.get('rc') == 0 and not d.get('signal') and not d.get('cancelled')" ||
  fail "a did not end by itself: $(cat "$S/running/a/run/exit.json")"
wait_until 5 grep -q 'a: its drone ended; returned at the next start' "$LOG" || fail "hangard did not say a ended"
[[ "$(state_of a)" == running ]] || fail "a was moved while stopped"
kill -0 "$HPID" 2>/dev/null || fail "hangard exited while stopped"

# 3. Restart without the fault: recovery from the spool finishes everything.
stop_hangard
start_hangard
for id in a b c; do wait_returned "$id" 20; done
for id in a b c; do
  [[ "$(outcome "$id")" == done ]] || fail "$id outcome $(outcome "$id"), expected done"
  n=$(grep -c "^start $id " "$T/starts" || true)
  ((n == 1)) || fail "$id started $n times"
done
hangar status --json >"$T/status.json"
jq_ok "$T/status.json" "d['work']['state'] == 'ok'" || fail "after the restart: $(jget "$T/status.json" "d['work']")"
hangar ledger verify >"$T/verify.out" 2>&1 || fail "the ledger does not verify: $(cat "$T/verify.out")"
pass
