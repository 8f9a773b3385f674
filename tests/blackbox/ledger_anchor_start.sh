#!/usr/bin/env bash
# The anchor at start: hangard refuses to start without one (exit 78); 50 lines of another ledger
# (a replay tool's heads) appended to the live anchor are ignored, not taken for a rollback; an
# anchor one line behind (a stop between the ledger write and its anchor line) is caught up and
# that is recorded; an anchor mount that is not there (an empty directory) fails closed and
# nothing is created in it until a reanchor names it the anchor; an anchor path that is no
# directory is a configuration error (exit 78).
. "$(dirname "$0")/lib.sh"
setup 1
rc=0
timeout 10 "$BIN/hangard" --spool "$S" </dev/null >"$T/noanchor.out" 2>&1 || rc=$?
((rc == 78)) && grep -q "anchor" "$T/noanchor.out" || fail "no --anchor: exit $rc: $(cat "$T/noanchor.out")"
rc=0
timeout 10 "$BIN/hangard" --spool "$S" --anchor "$T/nowhere" </dev/null >"$T/nodir.out" 2>&1 || rc=$?
((rc == 78)) && grep -q "nowhere" "$T/nodir.out" || fail "a missing anchor dir: exit $rc: $(cat "$T/nodir.out")"
start_hangard
mission N1 true 1 '' 'nothing to do' | drop N1.json
wait_returned N1 20
stop_hangard TERM
# The replay incident: another ledger's lines after ours.
for i in $(seq 1 50); do
  printf '{"epoch":1,"hash":"%064d","ledger":"replay","seq":%d}\n' "$i" "$i" >>"$A/live.anchor"
done
start_hangard
jq_ok "$S/hangard.json" "d['ledger']['state'] == 'ok'" || fail "replay lines made hangard fail closed: $(cat "$S/hangard.json")"
hangar ledger verify >"$T/v1.out" 2>&1 || fail "verify with replay lines: $(cat "$T/v1.out")"
grep -q "50 of other ledgers" "$T/v1.out" || fail "verify does not say it ignored 50 lines: $(cat "$T/v1.out")"
stop_hangard TERM
# A stop between the ledger write and the anchor line: our last anchor line is missing.
python3 - "$A/live.anchor" <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().splitlines(keepends=True)
last = max(i for i, l in enumerate(lines) if '"ledger":"live"' in l)
del lines[last]
open(p, "w").write("".join(lines))
PY
start_hangard
jq_ok "$S/hangard.json" "d['ledger']['state'] == 'ok'" || fail "a short unanchored tail failed closed: $(cat "$S/hangard.json")"
hangar ledger show --kind ledger.caught-up | grep -q "caught-up" || fail "the catch-up is not recorded"
hangar ledger verify >"$T/v2.out" 2>&1 || fail "verify after the catch-up: $(cat "$T/v2.out")"
stop_hangard TERM
# The anchor mount is not mounted: an empty directory where the anchor should be.
mkdir -p "$T/empty-mount"
A=$T/empty-mount
start_hangard
jq_ok "$S/hangard.json" "d['ledger']['state'] == 'fail-closed' and 'anchor-missing' in d['ledger']['reason']" ||
  fail "a missing anchor did not fail closed: $(cat "$S/hangard.json")"
mission N2 true 1 '' 'nothing to do' | drop N2.json
wait_until 10 test -d "$S/queued/N2" || fail "N2 not taken in"
sleep 1
[[ ! -e "$S/keys/launch.N2.1" ]] || fail "N2 launched without its anchor"
[[ -z "$(ls -A "$A")" ]] || fail "files created in the empty anchor mount: $(ls -A "$A")"
hangar ledger reanchor --why "new anchor disk" >/dev/null || fail "reanchor failed"
wait_returned N2 20
[[ -s "$A/live.anchor" ]] || fail "the reanchor did not start the new anchor"
hangar ledger verify >"$T/v3.out" 2>&1 || fail "verify after reanchoring on a new anchor: $(cat "$T/v3.out")"
pass
