#!/usr/bin/env bash
# Red team: a done-check that would run on and on (a submitter's loop, a drone-planted
# ./check.sh) dies with hangard. Killed with SIGKILL while the check runs, hangard enforces its
# timeout no more, so the check's sandbox must end with it, as bwrap's --die-with-parent ends
# bwrap's. The check's own output, which it writes itself to run/check-1.out on the host, stops
# growing, and none of its processes is left. Found by review (2026-12-06): with engine
# "namespaces" the sandbox hangar-confine made did not die with its parent, and the check ran on
# with no timeout. Both engines, as root and as a user.
. "$(dirname "$0")/lib.sh"
each_identity engines
setup 2
python3 - "$S/hangar.conf" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["profiles"]["quick"] = {"argv": ["/bin/true"], "prompt": "stdin"}
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
as_hangard_user
start_hangard
LOOP='while :; do echo beat-7741; sleep 0.1; done'
mission C-beat quick 5 '[{"run": ["/bin/sh", "-c", "'"$LOOP"'"], "rc": 0, "timeout_s": 300}]' \
  'end, then let the check beat' | drop C-beat.json
OUT=''
for _ in $(seq 300); do
  OUT=$(compgen -G "$S/*/C-beat/run/check-1.out" | head -1) || true
  [[ -n "$OUT" ]] && grep -q beat-7741 "$OUT" && break
  sleep 0.1
done
[[ -n "$OUT" ]] && grep -q beat-7741 "$OUT" || fail "the check did not start (state: $(state_of C-beat))"
stop_hangard KILL
sleep 1
beats=$(grep -c beat-7741 "$OUT")
sleep 2
check check-dies-with-hangard test "$(grep -c beat-7741 "$OUT")" == "$beats"
check no-check-process-left test -z "$(pgrep -f "$LOOP")"
pkill -KILL -f "$LOOP" 2>/dev/null || true
((FAILED == 0)) || exit 1
pass
