#!/usr/bin/env bash
# Regression: a launch whose room could not be made died after taking the launch key: hangard
# exited 74 and, restarted, returned the mission as "lost". Now the mission fails with the reason,
# no key is taken, and hangard keeps running.
. "$(dirname "$0")/lib.sh"
setup 1
python3 - "$S/hangar.conf" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["profiles"]["script"]["prompt"] = "both"
json.dump(c, open(sys.argv[1], "w"))
PY
start_hangard
mkdir -p "$S/rooms" && echo "not a directory" >"$S/rooms/blocked"
mission blocked script 1 '' 'say hi' | drop blocked.json
wait_returned blocked 20
jq_ok "$S/returned/blocked/return.json" "d['outcome'] == 'failed' and 'launch failed' in d['reason']" ||
  fail "return says $(jget "$S/returned/blocked/return.json" "[d['outcome'], d['reason']]")"
[[ ! -e "$S/keys/launch.blocked.1" ]] || fail "a launch key was taken for a launch that never happened"
alive || fail "hangard is not running after the failed launch"
mission after script 1 '' 'say hi' | drop after.json
wait_returned after 20
[[ "$(outcome after)" == done ]] || fail "the next mission: outcome $(outcome after)"
pass
