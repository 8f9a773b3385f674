#!/usr/bin/env bash
# The fault-injecting environment drives the real hangard (man/hangard.8, ENVIRONMENT):
# HANGAR_FAULT_LOG counts every mutating call of one mission end to end, one well-formed line each;
# HANGAR_FAULT=crash-before=1 ends hangard with status 86 before it changes anything through its
# Env, and a restart on the real environment runs; a malformed HANGAR_FAULT refuses to start (64),
# naming the variable.
. "$(dirname "$0")/lib.sh"
setup 1
FLOG=$T/fault.log

# A malformed plan: refused before anything, with the variable named.
rc=0
HANGAR_FAULT=bogus timeout 10 "$BIN/hangard" --spool "$S" --anchor "$A" </dev/null >"$T/bogus.out" 2>&1 || rc=$?
((rc == 64)) || fail "HANGAR_FAULT=bogus: hangard exited $rc, expected 64: $(cat "$T/bogus.out")"
grep -q 'HANGAR_FAULT="bogus"' "$T/bogus.out" || fail "the refusal does not name HANGAR_FAULT: $(cat "$T/bogus.out")"
[[ ! -e "$S/hangard.json" ]] || fail "hangard wrote hangard.json although it refused to start"
rc=0
HANGAR_FAULT_LOG=relative.log timeout 10 "$BIN/hangard" --spool "$S" --anchor "$A" </dev/null >"$T/rel.out" 2>&1 || rc=$?
((rc == 64)) || fail "HANGAR_FAULT_LOG=relative.log: hangard exited $rc, expected 64: $(cat "$T/rel.out")"

# A crash before the first mutating call: status 86, the log names call 1, nothing was written.
rc=0
HANGAR_FAULT=crash-before=1 HANGAR_FAULT_LOG=$T/crash.log timeout 10 "$BIN/hangard" --spool "$S" --anchor "$A" \
  </dev/null >"$T/crash.out" 2>&1 || rc=$?
((rc == 86)) || fail "HANGAR_FAULT=crash-before=1: hangard exited $rc, expected 86: $(cat "$T/crash.out")"
grep -q 'faults are injected' "$T/crash.out" || fail "hangard did not say faults are injected: $(cat "$T/crash.out")"
grep -q 'before mutating call 1 ' "$T/crash.out" || fail "hangard did not say where it crashed: $(cat "$T/crash.out")"
[[ "$(head -n 1 "$T/crash.log" | cut -d' ' -f1)" == 1 && "$(tail -n 1 "$T/crash.log")" == "fault 1 crash-before" ]] ||
  fail "crash.log: $(cat "$T/crash.log")"
[[ ! -e "$S/hangard.json" ]] || fail "hangard.json exists after a crash before any mutating call"

# Counting: start, one mission to its return, stop.
HANGAR_FAULT_LOG=$FLOG start_hangard
grep -q 'hangard: warning: faults are injected, for testing only: no fault, mutating calls counted; mutating calls logged to '"$FLOG" "$LOG" ||
  fail "hangard did not say on stderr that faults are injected"
wait_until 10 fault_quiet || fail "hangard kept making mutating calls after start"
started=$(fault_calls)
mission fault-one script 1 '[{"file":"REPORT.md"}]' 'write REPORT.md counted' | drop fault-one.json
wait_returned fault-one 30
[[ "$(outcome fault-one)" == done ]] || fail "outcome $(outcome fault-one), expected done"
wait_until 10 fault_quiet || fail "hangard kept making mutating calls after the return"
returned_at=$(fault_calls)
stop_hangard
total=$(fault_calls)
mission_calls=$((returned_at - started))

# Every line is "N CALL PATH..." (or "fault ..."), numbered 1, 2, 3, ... without a gap.
python3 - "$FLOG" <<'EOF' || fail "fault.log is malformed (above)"
import re, sys
calls = ("write|write-visible|write-files|write-files-dir-later|create-atomic|create|rename|"
         "rename-noreplace|rename-later|sync-dirs|sync-paths|mkdir|mkdir-visible|remove|remove-tree|append|"
         "truncate|maildir")
n = 0
for line in open(sys.argv[1]):
    m = re.fullmatch(r"(\d+) (%s) (/\S.*)\n" % calls, line)
    if not m:
        sys.exit("bad line: %r" % line)
    n += 1
    if int(m.group(1)) != n:
        sys.exit("line %d numbered %s" % (n, m.group(1)))
EOF
((started > 0 && mission_calls > 0)) || fail "calls counted: $started at start, $mission_calls for the mission"
grep -qE "^[0-9]+ rename(-noreplace|-later)? $S/incoming/new/fault-one.json " "$FLOG" ||
  fail "the log lacks the intake rename of incoming/new/fault-one.json"
grep -qE "^[0-9]+ write $S/returned/fault-one/return.json$|^[0-9]+ rename(-noreplace|-later)? \S+ $S/returned/fault-one$" "$FLOG" ||
  fail "the log lacks the move to returned/fault-one"
grep -qE "^[0-9]+ append $S/ledger/" "$FLOG" || fail "the log lacks a ledger append"
note "mutating calls: $started at start, $mission_calls for one mission end to end, $((total - returned_at)) at stop ($total in all)"

# A restart on the real environment: no warning, the mission still returned.
: >"$LOG"
start_hangard
! grep -q 'faults are injected' "$LOG" || fail "hangard says faults are injected without HANGAR_FAULT"
[[ "$(outcome fault-one)" == done ]] || fail "fault-one no longer returned after a restart"
pass
