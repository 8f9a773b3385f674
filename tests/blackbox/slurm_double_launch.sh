#!/usr/bin/env bash
# blackbox-timeout: 420
# At most once under Slurm: hangard is crashed (HANGAR_FAULT, man/hangard.8) at each step of one
# Slurm launch, then restarted on the real environment, on a real one-node cluster
# (scripts/slurm-test-cluster). Before it asked Slurm (just after the launch key, just after
# launch.json): the mission returns `lost` at once and its drone never starts. After it wrote
# run/engine-start.json but before sbatch ran: Slurm knows no such job, and after the settling
# time (60 s: a cut-short sbatch may still have reached the controller) the mission is `lost`,
# never started. After sbatch but before the job id was kept (engine.json): the job is found by
# its exact name, re-attached, and the drone has started exactly once; likewise just after.
# Each case has its own mission id, so a job name is never reused.
. "$(dirname "$0")/lib.sh"
setup 1
start_slurm
FLOG=$T/fault.log
fresh() {  # a new spool and anchor with mission $1 waiting in incoming/new, nothing else
  rm -rf "$S" "$A" "$FLOG"
  mkdir -p "$S" "$A"
  cp -a "$ROOT/spool/." "$S/"
  set_slots 1
  engine_profile slurm slurm
  : >"$LOG"
  mission "$1" slurm 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md ran' | drop "$1.json"
}
call_of() { grep -E "^[0-9]+ $1" "$FLOG" | head -n 1 | cut -d' ' -f1; }

# Counting: where the key, the launch record, the start record and the job's id are written.
fresh C0
HANGAR_FAULT_LOG=$FLOG start_hangard
wait_returned C0 60
stop_hangard
[[ "$(outcome C0)" == done ]] || fail "the counting run ended $(outcome C0), expected done"
key=$(call_of "create .*keys.*launch\.C0\.1")
rec=$(call_of "write(-files-dir-later)? .*/queued/C0.*launch\.json")
ask=$(call_of "write .*run.*engine-start\.json")
got=$(call_of "write .*run.*engine\.json")
[[ -n "$key" && -n "$rec" && -n "$ask" && -n "$got" ]] && ((key < rec && rec < ask && ask < got)) ||
  fail "calls out of order in the log: key '$key', launch.json '$rec', engine-start '$ask', engine.json '$got'"

n=0
for c in "crash-after=$key lost 0" "crash-after=$rec lost 0" "crash-after=$ask lost 0" \
  "crash-before=$got done 1" "crash-after=$got done 1"; do
  read -r fault want nstart <<<"$c"
  n=$((n + 1))
  id=C$n
  fresh "$id"
  rc=0
  HANGAR_FAULT=$fault timeout 60 "$BIN/hangard" --spool "$S" --anchor "$A" </dev/null >>"$LOG" 2>&1 || rc=$?
  ((rc == 86)) || fail "$fault: hangard exited $rc, expected 86"
  t0=$SECONDS
  start_hangard
  wait_returned "$id" 120
  sleep 3  # a drone started by mistake would have counted itself by now (jobs start in ~3 s)
  stop_hangard
  ended=$(outcome "$id")
  [[ "$ended" == "$want" ]] || fail "$fault: $id ended $ended, expected $want"
  [[ "$(starts "$id")" == "$nstart" ]] || fail "$fault: the drone started $(starts "$id") times, expected $nstart"
  jobs=$(squeue -h --me -t all -n "hangar-$id-1" -o %i | wc -l)
  ((jobs == nstart)) || fail "$fault: Slurm has $jobs jobs named hangar-$id-1, expected $nstart"
  hangar ledger verify --anchor "$A" >"$T/verify.out" 2>&1 || fail "$fault: ledger verify: $(cat "$T/verify.out")"
  say "ok $TEST/$fault ($want, $nstart start, returned $((SECONDS - t0)) s after the restart)"
done
pass
