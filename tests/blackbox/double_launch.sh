#!/usr/bin/env bash
# Regression (issue 6, "double launch"): the launch record did not reach disk, and the next pass
# launched the same attempt again. hangard is crashed (HANGAR_FAULT, man/hangard.8) at each step of
# one launch — just after the launch key is created, just before launch.json is written, just
# after it, just after the sync that makes it durable (the move's closing sync, beside which the
# drone is told to go: the go may or may not have gone out before the crash), and at the first
# call after the supervisor started —
# then restarted on the real environment. Without a supervisor the mission returns `lost` and its
# drone never starts; with one it is re-attached and its drone has started exactly once. Never a
# second start, never a second key, and the ledger verifies.
. "$(dirname "$0")/lib.sh"
setup 1
FLOG=$T/fault.log
fresh() {  # a new spool and anchor with D1 waiting in incoming/new, nothing else
  fresh_spool 1
  rm -f "$FLOG"
  mission D1 script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'sleep 1' 'write REPORT.md ran' | drop D1.json
}
starts() { grep -c '^start D1 ' "$T/starts" 2>/dev/null || true; }
call_of() { grep -E "^[0-9]+ $1" "$FLOG" | head -n 1 | cut -d' ' -f1; }

# Counting: where the key and the launch record are made.
fresh
HANGAR_FAULT_LOG=$FLOG start_hangard
wait_returned D1 30
stop_hangard
key=$(call_of "create .*keys.*launch\.D1\.1")
rec=$(call_of "write(-files-dir-later)? .*/queued/D1/launch\.json")
# The launch record is written into queued/D1 once the key is made, and durable with the sync of
# running/D1 after the move (PrepareLaunch); the drone's go goes beside that call.
dur=$(call_of "sync-dirs .*/running/D1 ")
[[ -n "$key" && -n "$rec" && -n "$dur" ]] && ((key < rec && rec < dur)) ||
  fail "no key creation, launch record and its sync in that order in the log: key '$key', launch.json '$rec', sync '$dur'"

# crash: where, expected outcome, expected drone starts ("either": lost and 0, or done and 1, as
# the go did or did not go out before the crash).
for c in "crash-after=$key lost 0" "crash-before=$rec lost 0" "crash-after=$rec lost 0" \
  "crash-after=$dur either -" "crash-before=$((dur + 1)) done 1"; do
  read -r fault want nstart <<<"$c"
  fresh
  rc=0
  HANGAR_FAULT=$fault timeout 30 "$BIN/hangard" --spool "$S" --anchor "$A" </dev/null >>"$LOG" 2>&1 || rc=$?
  ((rc == 86)) || fail "$fault: hangard exited $rc, expected 86"
  start_hangard
  wait_returned D1 30
  sleep 1.5  # a drone started by mistake would have counted itself by now
  stop_hangard
  got=$(outcome D1)
  if [[ $want == either ]]; then
    [[ $got == lost || $got == done ]] || fail "$fault: D1 ended $got, expected lost or done"
    want=$got nstart=$([[ $got == done ]] && echo 1 || echo 0)
  fi
  [[ "$got" == "$want" ]] || fail "$fault: D1 ended $got, expected $want"
  [[ "$(starts)" == "$nstart" ]] || fail "$fault: the drone started $(starts) times, expected $nstart"
  [[ "$(ls "$S/keys" | grep -c '^launch\.D1\.')" == 1 && -f "$S/keys/launch.D1.1" ]] ||
    fail "$fault: keys: $(ls "$S/keys" | tr '\n' ' ')"
  jq_ok "$S/returned/D1/return.json" "d['attempt'] == 1" || fail "$fault: return.json does not name attempt 1"
  hangar ledger verify --anchor "$A" >"$T/verify.out" 2>&1 || fail "$fault: ledger verify: $(cat "$T/verify.out")"
  say "ok $TEST/$fault ($want, $nstart start)"
done
