#!/usr/bin/env bash
# blackbox-heavy
# The kill loop (scripts/kill-loop; `make kill-loop` runs 500 missions): while 100 missions flow
# through the real binaries, hangard is SIGKILLed at random moments and restarted at once, and 3
# supervisors are killed; then every mission has exactly one return, ending as its path allows or
# `lost`, no drone started twice, no op ran twice, keys match launches, the ledger verifies.
# HANGAR_KILL_SEED repeats a run's choices.
# blackbox-timeout: 400
. "$(dirname "$0")/lib.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
"$ROOT/scripts/kill-loop" --missions 100 --shim-kills 3 ${HANGAR_KILL_SEED:+--seed "$HANGAR_KILL_SEED"} \
  >"$out" 2>&1 || rc=$?
sed 's/^/  /' "$out" >&2
line=$(grep '^KILL-LOOP: ' "$out" || true)
if ((rc == 0)) && [[ "$line" =~ ^KILL-LOOP:\ 100\ missions,\ ([0-9]+)\ hangard\ kills,.*\ 0\ violations$ ]] &&
  ((BASH_REMATCH[1] >= 5)); then
  say "ok $TEST (${line#KILL-LOOP: }; $(sed -n 's/ (seed \([0-9]*\)).*/ seed \1/p' "$out" | grep -o 'seed [0-9]*'))"
else
  say "FAIL $TEST: ${line:-no summary line} (exit $rc)"
fi
