#!/usr/bin/env bash
# A direct launch is begun before its records are durable: its plan is handed to the shim zygote,
# whose child makes the drone's command and waits for hangard's go (man/hangard.8, the shim
# zygote). A launch that does not get its go runs nothing, and leaves the zygote no child:
#   - its move to running/ fails (HANGAR_FAULT fails the rename of queued/D1 with EIO), after its
#     records and its key: hangard stops its work there, the drone (which would count itself) must
#     not start; restarted, hangard ends D1 lost, never started;
#   - its launch key is there already (what a launch cut by a crash leaves): D1 ends lost at its
#     key, never started.
# The go goes beside the move's closing sync, once the key and the entry are durable: a closing
# sync that fails (EIO) stops hangard's work with the drone started, once; restarted, hangard
# takes it up where it is and never launches it again.
# Then D2 runs, once, through the same zygote. Root only, as the shipped unit runs hangard.
. "$(dirname "$0")/lib.sh"
setup 1
[[ $(id -u) -eq 0 ]] || skip "needs root (writes keys/ as hangard's own)"
FLOG=$T/fault.log
fresh() {  # a new spool and anchor with D1 waiting in incoming/new, nothing else
  fresh_spool 1
  rm -f "$FLOG"
  mission D1 script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md ran' | drop D1.json
}
zygote_of() { pgrep -P "$HPID" -f 'hangar-shim --zygote' | head -n 1; }
restarted() {  # CASE OUTCOME STARTS: hangard restarted, D1 returned OUTCOME, its drone started STARTS times
  stop_hangard
  start_hangard
  wait_returned D1 30
  [[ "$(outcome D1)" == "$2" ]] || fail "$1: D1 ended $(outcome D1), expected $2"
  [[ "$(starts D1)" == "$3" ]] || fail "$1: D1's drone started $(starts D1) times, expected $3"
  stop_hangard
}
childless() {  # ZYGOTE: it has no child left
  local kids
  kids=$(cat "/proc/$1/task/$1/children" 2>/dev/null || true)
  [[ -z "${kids// /}" ]]
}

# Counting: D1's move and the closing sync of its launch (running/D1 with the others).
fresh
HANGAR_FAULT_LOG=$FLOG start_hangard
wait_returned D1 30
stop_hangard
dur=$(grep -E "^[0-9]+ sync-dirs .*/running/D1 " "$FLOG" | head -n 1 | cut -d' ' -f1)
mv=$(grep -E "^[0-9]+ rename-later .*/queued/D1 " "$FLOG" | head -n 1 | cut -d' ' -f1)
[[ -n "$dur" && -n "$mv" ]] && ((mv < dur)) || fail "no move of D1 and its closing sync in the log: move '$mv', sync '$dur'"

# The move fails: withdrawn, with its records and key durable.
fresh
HANGAR_FAULT=fail=$mv:EIO HANGAR_FAULT_LOG=$FLOG start_hangard
zygote=$(zygote_of)
[[ -n "$zygote" ]] || fail "hangard started no shim zygote"
wait_until 30 work_is stopped || fail "hangard did not stop its work when the move failed"
[[ -d "$S/queued/D1" && -e "$S/keys/launch.D1.1" ]] || fail "D1 is not in queued/ with its key: the fault missed the move"
sleep 1.5  # a drone started by mistake would have counted itself by now
[[ "$(starts D1)" == 0 ]] || fail "move failed: D1's drone started $(starts D1) times though its mission never reached running/"
wait_until 10 childless "$zygote" || fail "move failed: the zygote kept a child: $(cat "/proc/$zygote/task/$zygote/children")"
restarted "move failed" lost 0
say "ok $TEST/move-failed"

# The closing sync fails: the drone was told to go beside it, once its key and its entry were
# durable. hangard stops its work; restarted, it takes D1 up and launches it no second time.
fresh
HANGAR_FAULT=fail=$dur:EIO HANGAR_FAULT_LOG=$FLOG start_hangard
wait_until 30 work_is stopped || fail "hangard did not stop its work when the closing sync failed"
[[ -d "$S/running/D1/run" ]] || fail "D1's run directory is not in running/: the fault missed the closing sync"
wait_until 10 test -e "$S/running/D1/run/exit.json" || fail "sync failed: D1's drone, told to go beside the sync, did not end"
restarted "sync failed" done 1
hangar ledger verify --anchor "$A" >"$T/verify.out" 2>&1 || fail "ledger verify: $(cat "$T/verify.out")"
say "ok $TEST/sync-failed"

# The key is there already: withdrawn at its key.
fresh
printf '{"hangar":1,"id":"D1","attempt":1,"plan_sha256":"cut","time":"2026-12-07T00:00:00Z"}\n' \
  >"$S/keys/launch.D1.1"
start_hangard
zygote=$(zygote_of)
[[ -n "$zygote" ]] || fail "hangard started no shim zygote"
wait_returned D1 30
sleep 1.5
[[ "$(outcome D1)" == lost ]] || fail "key there: D1 ended $(outcome D1), expected lost"
[[ "$(starts D1)" == 0 ]] || fail "key there: D1's drone started $(starts D1) times"
wait_until 10 childless "$zygote" || fail "key there: the zygote kept a child: $(cat "/proc/$zygote/task/$zygote/children")"
mission D2 script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md ran' | drop D2.json
wait_returned D2 30
[[ "$(outcome D2)" == done ]] || fail "D2 ended $(outcome D2), expected done"
[[ "$(starts D2)" == 1 ]] || fail "D2's drone started $(starts D2) times, expected once"
[[ "$(zygote_of)" == "$zygote" ]] || fail "the zygote was replaced: D2 did not go through the one D1 was handed to"
stop_hangard
hangar ledger verify --anchor "$A" >"$T/verify.out" 2>&1 || fail "ledger verify: $(cat "$T/verify.out")"
say "ok $TEST/key-there"
pass
