#!/usr/bin/env bash
# 200 missions dropped at once by 8 concurrent writers (tmp + rename, as a script would; one writer
# through `hangar submit`), with the "true" profile: all 200 return exactly once.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mkdir -p "$T/submit"
writer() {
  local w=$1 i id
  for ((i = 1; i <= 25; i++)); do
    id=$(printf 'c%d-%03d' "$w" "$i")
    if ((w == 8)); then
      mission '' true 1 '' 'x' >"$T/submit/$id.json"
      "$BIN/hangar" --spool "$S" submit "$T/submit/$id.json" >"$T/submit/$id.out" 2>&1 || echo "$id" >>"$T/submit-errors"
    else
      mission "$id" true 1 '' 'x' | drop "$id.json"
    fi
  done
}
for w in 1 2 3 4 5 6 7 8; do writer "$w" & done
wait
[[ ! -s "$T/submit-errors" ]] || fail "hangar submit failed for $(wc -l <"$T/submit-errors") missions: $(cat "$T/submit/$(head -n 1 "$T/submit-errors").out")"
count_returned() { [[ $(find "$S/returned" -mindepth 2 -maxdepth 2 -name return.json | wc -l) -ge 200 ]]; }
wait_until 240 count_returned || fail "only $(find "$S/returned" -mindepth 2 -maxdepth 2 -name return.json | wc -l) of 200 returned in 240 s"
sleep 1  # anything past 200 would be a mission returned twice or a stray
n=$(find "$S/returned" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l)
((n == 200)) || fail "$n entries in returned/, expected 200"
dups=$(find "$S"/{hold,queued,running,returned,denied,rejected} -mindepth 1 -maxdepth 1 ! -name '.*' -printf '%f\n' | sort | uniq -d)
[[ -z "$dups" ]] || fail "ids in two states: $dups"
others=$(find "$S"/{hold,queued,running,denied,rejected} "$S/incoming/new" -mindepth 1 -maxdepth 1 ! -name '.*' -printf '%P ')
[[ -z "$others" ]] || fail "left outside returned/: $others"
bad=$(for d in "$S"/returned/*/; do jq_ok "$d/return.json" "d.get('outcome') == 'done'" || echo "${d%/}"; done)
[[ -z "$bad" ]] || fail "missions not done: $(head -n 3 <<<"$bad")"
keys=$(find "$S/keys" -name 'launch.*' | wc -l)
((keys == 200)) || fail "$keys launch keys, expected 200 (one per mission)"
pass
