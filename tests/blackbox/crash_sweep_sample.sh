#!/usr/bin/env bash
# blackbox-heavy
# A sampled crash sweep (scripts/crash-sweep; `make crash-sweep` runs every point): the workload of
# 19 missions covering every path, hangard crashed before mutating call N for 8 points N spread
# over the whole run (the first and the last among them, a random shift printed as the seed), each
# restarted on the real environment; then the same with a simulated power loss at those points.
# After each: every mission in exactly one state, no drone started twice, no op run twice, keys
# match launches or lost returns, every JSON file parses, the ledger verifies, nothing dropped is
# gone (and first, that these checks report defects planted on purpose). HANGAR_SWEEP_SEED repeats
# a run's choice of points.
# blackbox-timeout: 400
. "$(dirname "$0")/lib.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# The checks can fail: defects planted in a clean run's spool are each reported.
rc=0
"$ROOT/scripts/crash-sweep" --self-test >"$out" 2>&1 || rc=$?
if ((rc == 0)) && grep -q '^SELF-TEST: \([0-9]*\) of \1 planted defects reported' "$out"; then
  say "ok $TEST/self-test ($(tail -n 1 "$out"))"
else
  say "FAIL $TEST/self-test: $(tr '\n' ' ' <"$out")"
fi
rc=0
"$ROOT/scripts/crash-sweep" --points sample:8 --jobs 2 --quiet ${HANGAR_SWEEP_SEED:+--seed "$HANGAR_SWEEP_SEED"} \
  >"$out" 2>&1 || rc=$?
seed=$(sed -n -E 's/.*\(seed ([0-9]+)\).*/\1/p' "$out" | head -n 1)
sed 's/^/  /' "$out" >&2
for mode in crash power; do
  line=$(grep "^SWEEP $mode: " "$out" || true)
  if [[ "$line" =~ ^SWEEP\ $mode:\ ([0-9]+)\ points\ tried,\ ([0-9]+)\ passed,\ 0\ violations ]] &&
    ((BASH_REMATCH[1] == BASH_REMATCH[2] && BASH_REMATCH[1] >= 8)); then
    say "ok $TEST/$mode (seed $seed: ${line#SWEEP $mode: })"
  else
    say "FAIL $TEST/$mode: ${line:-no summary line} (seed ${seed:-none}, exit $rc)"
  fi
done
