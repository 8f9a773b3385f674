#!/usr/bin/env bash
# The cold queue (issue 26; hangar.conf(5) queue_warm, hangard(8) rows RecoveredCold, WarmAhead,
# Warmed, WarmedChanged, IntakeCold), with queue_warm 2 and one slot, hangard as root and as an
# unprivileged user. A submitter who edits a queued mission's file after intake would have it
# launched unjudged if a cold mission were taken back without its sha256 checked: Q5 below. Judged by what the drones
# themselves append to a file outside their rooms (the launch order), by launch keys and by the
# spool, not by hangard's word:
#   a blocker runs; Q1..Q6 are dropped behind it (Q3..Q6 taken in cold); hangard is stopped (the
#   blocker runs on) and Q5's mission.json edited in queued/; hangard starts again and says it holds
#   4 queued missions cold; Q6, cold, is cancelled with a notify dir: returned cancelled, its return
#   delivered there, never launched;
#   once the blocker ends: Q1 Q2 Q3 Q4 each launch once, in intake order, and return done; Q5 is
#   held as changed after intake, with no launch key; `hangar replay` finds every decision the
#   same (exit 0), the reads again included.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
edit_conf 'c["queue_warm"] = 2'
mkdir -p "$T/inbox/tmp" "$T/inbox/new"
as_hangard_user
start_hangard
mission blocker script 1 '' "count $T/starts" 'sleep 6' | drop blocker.json
wait_until 10 test -d "$S/running/blocker" || fail "blocker did not start"
for id in Q1 Q2 Q3 Q4 Q5 Q6; do
  mission "$id" script 1 '' "count $T/starts" |
    python3 -c 'import json,sys; m=json.load(sys.stdin); m["notify"]={"dir":sys.argv[1]}; print(json.dumps(m))' \
      "$T/inbox" | drop "$id.json"
  wait_until 10 test -d "$S/queued/$id" || fail "$id not queued (state: $(state_of "$id"))"
done
stop_hangard TERM
python3 - "$S/queued/Q5/mission.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["future"] = m["future"] + "\nwrite EDITED after intake"
open(sys.argv[1], "w").write(json.dumps(m))
PY
start_hangard
wait_until 10 grep -q "4 queued missions held cold" "$LOG" || fail "hangard does not say it holds 4 cold: $(tail -n 5 "$LOG")"
hangar --no-wait cancel Q6 >"$T/cancel.out" 2>&1 || fail "hangar cancel Q6: $(cat "$T/cancel.out")"
wait_returned Q6 20
check cold-cancelled test "$(outcome Q6)" == cancelled
check cold-cancel-notified cmp -s "$T/inbox/new/Q6.json" "$S/returned/Q6/return.json"
check cold-cancel-names-drone jq_ok "$S/returned/Q6/return.json" "d.get('drone') == 'script'"
for id in Q1 Q2 Q3 Q4; do wait_returned "$id" 30; done
for id in Q1 Q2 Q3 Q4; do check "$id-done" test "$(outcome "$id")" == done; done
wait_until 10 test -d "$S/hold/Q5" || fail "Q5 not held (state: $(state_of Q5))"
check changed-held jq_ok "$S/hold/Q5/gate1.json" "'mission.changed' in d['rules']"
check changed-not-launched test ! -e "$S/keys/launch.Q5.1"
check cancelled-not-launched test ! -e "$S/keys/launch.Q6.1"
check launch-order test "$(awk '{print $2}' "$T/starts" | tr '\n' ' ')" == "blocker Q1 Q2 Q3 Q4 "
check replay-same hangar replay --into "$T/replay"
pass
