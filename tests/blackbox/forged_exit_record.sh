#!/usr/bin/env bash
# Regression: a drone that wrote its own run/exit.json (rc 0) while still running was returned
# "done" at once and its slot freed. exit.json counts only once the supervisor has let go of its
# lock: the return must carry the real end (rc 7), after the drone really ended.
. "$(dirname "$0")/lib.sh"
setup 1
python3 - "$S/hangar.conf" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["profiles"]["forger"] = {"argv": ["/bin/sh", "-c",
  "printf '%s' '{\"hangar\":1,\"rc\":0,\"signal\":null,\"timed_out\":false,\"cancelled\":false,"
  "\"started\":\"2026-01-01T00:00:00.000Z\",\"ended\":\"2026-01-01T00:00:01.000Z\",\"error\":null}'"
  " > \"$RUN/.forged\" && mv \"$RUN/.forged\" \"$RUN/exit.json\"; sleep 3; exit 7"],
  "prompt": "stdin", "env": {"PATH": "/usr/bin:/bin", "RUN": "{run}"}}
json.dump(c, open(sys.argv[1], "w"))
PY
start_hangard
mission forge forger 1 '' 'x' | drop forge.json
wait_until 10 test -d "$S/running/forge" || fail "forge did not start"
sleep 1.5
[[ -d "$S/running/forge" ]] || fail "forge left running/ while its drone still ran (state: $(state_of forge))"
wait_returned forge 30
jq_ok "$S/returned/forge/return.json" "d['outcome'] == 'failed' and d['exit']['rc'] == 7" ||
  fail "return says $(jget "$S/returned/forge/return.json" "[d['outcome'], d['exit']]"), expected failed with rc 7"
pass
