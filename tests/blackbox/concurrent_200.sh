#!/usr/bin/env bash
# blackbox-heavy
# 200 missions dropped at once by 8 concurrent writers (7 write tmp then rename into incoming/new,
# as a script would; one goes through `hangar submit`), with the "true" profile: all 200 return
# exactly once (one launch key each, no id in two states, nothing left behind).
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mkdir -p "$T/src"
for w in 1 2 3 4 5 6 7 8; do
  for ((i = 1; i <= 25; i++)); do
    id=$(printf 'c%d-%03d' "$w" "$i")
    ((w == 8)) && idf='' || idf="\"id\":\"$id\","
    printf '{"hangar":1,%s"requester":"blackbox","drone":"true","future":"x","now":"x","max_minutes":1}\n' \
      "$idf" >"$T/src/$id.json"
  done
done
writer() {
  local w=$1 i id
  for ((i = 1; i <= 25; i++)); do
    id=$(printf 'c%d-%03d' "$w" "$i")
    if ((w == 8)); then
      "$BIN/hangar" --spool "$S" submit "$T/src/$id.json" >"$T/src/$id.out" 2>&1 || echo "$id" >>"$T/submit-errors"
    else
      cp "$T/src/$id.json" "$S/incoming/tmp/$id.json"
      mv -T "$S/incoming/tmp/$id.json" "$S/incoming/new/$id.json"
    fi
  done
}
pids=()
for w in 1 2 3 4 5 6 7 8; do writer "$w" & pids+=($!); done
wait "${pids[@]}"  # the writers only: hangard is a child too
[[ ! -s "$T/submit-errors" ]] || fail "hangar submit failed for $(wc -l <"$T/submit-errors") missions: $(cat "$T/src/$(head -n 1 "$T/submit-errors").out")"
n_returned() { find "$S/returned" -mindepth 2 -maxdepth 2 -name return.json | wc -l; }
count_returned() { (($(n_returned) >= 200)); }
wait_until 150 count_returned || fail "only $(n_returned) of 200 returned in 150 s"
sleep 1  # anything past 200 would be a mission returned twice or a stray
n=$(find "$S/returned" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l)
((n == 200)) || fail "$n entries in returned/, expected 200"
dups=$(find "$S"/{hold,queued,running,returned,denied,rejected} -mindepth 1 -maxdepth 1 ! -name '.*' -printf '%f\n' | sort | uniq -d)
[[ -z "$dups" ]] || fail "ids in two states: $dups"
others=$(find "$S"/{hold,queued,running,denied,rejected} "$S/incoming/new" -mindepth 1 -maxdepth 1 ! -name '.*' -printf '%P ')
[[ -z "$others" ]] || fail "left outside returned/: $others"
submitted=$(cat "$T"/src/c8-*.out | sort)
missing=$(for id in $submitted; do [[ -d "$S/returned/$id" ]] || echo "$id"; done)
[[ -z "$missing" ]] || fail "ids printed by hangar submit not in returned/: $missing"
bad=$(python3 - "$S/returned" <<'PY'
import json, os, sys
for id_ in sorted(os.listdir(sys.argv[1])):
    if id_.startswith("."):
        continue
    d = json.load(open(os.path.join(sys.argv[1], id_, "return.json")))
    if d.get("outcome") != "done" or d.get("id") != id_:
        try:  # the sandbox's own complaint when the drone never ran
            err = open(os.path.join(sys.argv[1], id_, "run", "stderr"), "rb").read()[-400:]
        except OSError as e:
            err = str(e).encode()
        print(id_, d.get("id"), d.get("outcome"), json.dumps(d.get("reason")),
              json.dumps(d.get("exit")), "stderr:", json.dumps(err.decode("utf-8", "replace")))
PY
)
[[ -z "$bad" ]] || fail "returns not done or with another id: $(head -n 3 <<<"$bad")"
keys=$(find "$S/keys" -name 'launch.*' | wc -l)
((keys == 200)) || fail "$keys launch keys, expected 200 (one per mission)"
wait_until 5 no_zombies || fail "hangard has zombie children: $(ps --ppid "$HPID" -o pid=,stat=,args= | grep ' Z')"
pass
