#!/usr/bin/env bash
# An intake cut short (a queued/.ID.tmp directory holding intake.json and the raw file) is rolled
# back at start: the raw file returns to incoming/new/NAME, is taken in again, and runs once.
. "$(dirname "$0")/lib.sh"
setup
mission half script 1 '' "count $T/starts" | cat >"$T/raw"
mkdir "$S/queued/.half.tmp"
sha=$(sha256sum "$T/raw" | cut -d' ' -f1)
printf '{"hangar":1,"id":"half","name":"half.json","sha256":"%s","time":"2026-01-01T00:00:00.000Z"}' "$sha" \
  >"$S/queued/.half.tmp/intake.json"
cp "$T/raw" "$S/queued/.half.tmp/mission.json"
start_hangard
wait_returned half 20
[[ ! -e "$S/queued/.half.tmp" ]] || fail "queued/.half.tmp is still there"
cmp -s "$T/raw" "$S/returned/half/mission.json" || fail "returned/half/mission.json is not the raw bytes"
jq_ok "$S/returned/half/intake.json" "d['name'] == 'half.json'" || fail "intake.json does not name half.json"
(($(grep -c '^start half ' "$T/starts") == 1)) || fail "half did not run exactly once"
pass
