#!/usr/bin/env bash
# A drop taken in and launched in the same batch (a free slot) has its launch begun in its intake's
# chain (man/hangard.8, THE SHIM ZYGOTE; daemon/daemon.h, LAUNCHES BEGUN AT INTAKE): its run/ is
# made in queued/.ID.tmp and its room in rooms/, and the zygote's child begins to make the drone's
# sandbox there, beside the intake's waits and the records'. What a launch that never gets its go
# leaves must go with its intake:
#   - crashed: hangard ends (HANGAR_FAULT crash-before) at the batch's first ledger append, after
#     D's launch was placed and begun in its intake. D's drone must not have run (its own count),
#     and .D.tmp/run and rooms/D are there (the placing happened in the intake, not after it).
#     Restarted, hangard puts D's drop back, removes .D.tmp with its run/ (left, it would stop D's
#     next intake), and runs D once;
#   - undone: the rename of .E.tmp into queued/ fails for want of space (ENOSPC); E's launch is
#     withdrawn, .E.tmp (its run/ too) and the room its launch made are removed, E's drop waits in
#     incoming/new for the pause's retry (its move back is no new drop to take at once), E's drone
#     has not run, and when intake resumes E runs once.
# What is checked is the drone's own count and the spool's directories, not hangard's word. The
# profile is the fake drone without a last-message file (a plan with one in run/ is begun after the
# records, as before). Root only, as the shipped unit runs hangard (writes HANGAR_FAULT plans).
. "$(dirname "$0")/lib.sh"
setup 1
[[ $(id -u) -eq 0 ]] || skip "needs root (HANGAR_FAULT plans on the shipped identity)"
FLOG=$T/fault.log
# fresh ID NAME: a new spool and anchor with ID waiting in incoming/new as NAME, profile "plain":
# the "script" profile without its last-message file in run/.
fresh() {
  fresh_spool 1
  python3 - "$S/hangar.conf" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
p = dict(c["profiles"]["script"])
p.pop("last_message", None)
p["env"] = {k: v for k, v in p["env"].items() if k != "HANGAR_LAST_MESSAGE"}
c["profiles"]["plain"] = p
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
  grep -qs '"sandbox": *"namespaces"' "$S/hangar.conf" ||
    fail "the profile does not use sandbox engine namespaces: this test would prove nothing"
  rm -f "$FLOG"
  mission "$1" plain 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md ran' | drop "$2"
}
# call N PATTERN: the number of the first call of the fault log matching PATTERN after call N.
call() { awk -v n="$1" -v re="$2" '$1 > n && $0 ~ re { print $1; exit }' "$FLOG"; }

# Counting: D's run/ made in its intake, then the batch's first ledger append.
fresh D d.json
HANGAR_FAULT_LOG=$FLOG start_hangard
wait_returned D 30
stop_hangard
run=$(call 0 " mkdir-visible .*/queued/\\.D\\.tmp/run$")
[[ -n "$run" ]] || fail "D's launch was not placed in its intake (no queued/.D.tmp/run in the fault log)"
append=$(call "$run" " append .*/ledger/live/")
[[ -n "$append" ]] || fail "no ledger append after D's placing in the fault log"

fresh D d.json
rc=0
HANGAR_FAULT=crash-before=$append timeout 30 "$BIN/hangard" --spool "$S" --anchor "$A" </dev/null >>"$LOG" 2>&1 || rc=$?
((rc == 86)) || fail "hangard exited $rc at its fault (call $append), expected 86"
[[ -d "$S/queued/.D.tmp/run" && -d "$S/rooms/D" ]] ||
  fail "no run/ in queued/.D.tmp and no rooms/D: D's launch was not placed in its intake"
sleep 1.5 # ample time for a drone that did not wait for its go to have counted itself
[[ "$(starts D)" == 0 ]] || fail "D's drone ran $(starts D) times though its records never came"
start_hangard
wait_returned D 30
[[ "$(outcome D)" == done ]] || fail "after the restart D ended $(outcome D), expected done"
[[ "$(starts D)" == 1 ]] || fail "D's drone ran $(starts D) times, expected once"
[[ ! -e "$S/queued/.D.tmp" ]] || fail "queued/.D.tmp is left after the restart"
stop_hangard
hangar ledger verify --anchor "$A" >"$T/verify.out" 2>&1 || fail "ledger verify: $(cat "$T/verify.out")"
say "ok $TEST/crashed"

# Counting: the rename of .E.tmp into queued/ (FinishIntakes), after its run/ was made.
fresh E e.json
HANGAR_FAULT_LOG=$FLOG start_hangard
wait_returned E 30
stop_hangard
run=$(call 0 " mkdir-visible .*/queued/\\.E\\.tmp/run$")
in=$(call "${run:-0}" " rename-later .*/queued/\\.E\\.tmp .*/queued/E$")
[[ -n "$run" && -n "$in" ]] || fail "E's launch was not placed in its intake before its rename: run/ '$run', rename '$in'"

fresh E e.json
HANGAR_FAULT=fail=$in:ENOSPC HANGAR_FAULT_LOG=$FLOG start_hangard
wait_until 30 grep -qs "intake paused" "$LOG" ||
  fail "hangard did not pause intake when the rename of .E.tmp failed for want of space"
# The drop, moved back into incoming/new, waits for the pause's retry (seconds later), not taken
# again at its move's event: meanwhile no .E.tmp, no room, no start.
sleep 1.5
[[ -f "$S/incoming/new/e.json" ]] || fail "e.json is not back in incoming/new while intake is paused: $(ls -A "$S/incoming/new" "$S/queued")"
[[ ! -e "$S/queued/.E.tmp" ]] || fail "the undone intake left queued/.E.tmp: $(find "$S/queued/.E.tmp")"
[[ ! -e "$S/rooms/E" ]] || fail "the undone intake left the room its launch made: $(find "$S/rooms/E")"
[[ "$(starts E)" == 0 ]] || fail "E's drone ran $(starts E) times though its intake was undone"
# Then E runs once, from a new .E.tmp (one left with its run/ would stop that intake, and
# hangard's work). Between the two intakes the undo removed the room the first one's launch made
# (the fault log: what hangard asked of the disk, in order).
wait_returned E 60
[[ "$(outcome E)" == done ]] || fail "E ended $(outcome E) after its intake was undone, expected done"
[[ "$(starts E)" == 1 ]] || fail "E's drone ran $(starts E) times, expected once"
stop_hangard
again=$(call "$in" " mkdir-visible .*/queued/\\.E\\.tmp$")
gone=$(call "$in" " remove-tree .*/rooms/E$")
[[ -n "$again" && -n "$gone" ]] && ((gone < again)) ||
  fail "the undo did not remove rooms/E before E's next intake: removed at '$gone', next intake at '$again'"
say "ok $TEST/undone"
pass
