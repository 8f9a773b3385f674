#!/usr/bin/env bash
# A turn's launches are prepared together (PrepareLaunches, shell/transitions.h): three missions
# dropped before hangard starts, with three slots, are taken in and launched by one turn. hangard's
# fault log (HANGAR_FAULT_LOG) shows their three keys made by consecutive calls and, after them, one
# closing sync naming all three mission directories and running/. Each drone ran exactly once (the
# starts it counted itself) and each mission returned done.
. "$(dirname "$0")/lib.sh"
setup 3
FLOG=$T/fault.log
for id in g1 g2 g3; do
  mission "$id" script 1 '[{"file":"REPORT.md"}]' "count $T/starts" "write REPORT.md $id" | drop "$id.json"
done
HANGAR_FAULT_LOG=$FLOG start_hangard
for id in g1 g2 g3; do
  wait_returned "$id" 30
  [[ "$(outcome "$id")" == "done" ]] || fail "$id: outcome $(outcome "$id"), expected done"
  n=$(grep -c "^start $id " "$T/starts" || true)
  ((n == 1)) || fail "$id's drone started $n times: $(cat "$T/starts")"
done
python3 - "$FLOG" "$S" <<'PY' || fail "the launches were not prepared together: $(grep -E ' (create|sync-dirs|rename-later) ' "$FLOG")"
import sys
log, spool = sys.argv[1], sys.argv[2]
calls = [l.split() for l in open(log) if l[:1].isdigit()]
keys = [int(c[0]) for c in calls if c[1] == "create" and "/keys/launch.g" in c[2]]
assert len(keys) == 3 and keys == list(range(keys[0], keys[0] + 3)), keys
# The closing sync names running/ too (the returns' sync of their return.json, which the three may
# share when they end in one turn, does not).
syncs = [c for c in calls if c[1] == "sync-dirs" and f"{spool}/running" in c[2:]
         and all(f"{spool}/running/{i}" in c[2:] for i in ("g1", "g2", "g3"))]
assert len(syncs) == 1, syncs
assert int(syncs[0][0]) > keys[-1], (syncs, keys)
PY
pass
