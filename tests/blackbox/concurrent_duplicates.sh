#!/usr/bin/env bash
# blackbox-heavy
# 16 writers drop HANGAR_BB_DUP_N (10,000) missions at once, every id twice (from two different
# writers): 14 write into incoming/tmp and rename into incoming/new, as a script would, 2 go
# through `hangar submit`. Each mission asks for the host network, which the default policy holds
# for a person, so nothing launches and the test measures intake alone. Exactly one mission per id
# is taken in (hold/ID), the other is rejected as a duplicate under a fresh id; every drop is in
# exactly one place (none lost, none twice), incoming/new is empty, the ledger verifies, and
# hangard is alive. (Issue 6, "Concurrency".)
# blackbox-timeout: 600
# (about 150 s alone on 2 cores; more when the machine is shared)
. "$(dirname "$0")/lib.sh"
N=${HANGAR_BB_DUP_N:-10000}
# Each id's two drops come from two writers when N/2 is no multiple of 16 (10,000: 5,000 = 8 mod 16).
((N % 2 == 0 && (N / 2) % 16 != 0)) || fail "HANGAR_BB_DUP_N must be even with N/2 no multiple of 16 (it is $N)"
setup
start_hangard
mkdir -p "$T/src"
# Drop i carries the id d(i mod N/2) and its own marker "drop i" in "now".
python3 - "$T/src" "$N" <<'PY'
import json, os, sys
src, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    m = {"hangar": 1, "id": "d%05d" % (i % (n // 2)), "requester": "blackbox", "drone": "true",
         "future": "nothing", "now": "drop %d" % i, "network": "host", "max_minutes": 1}
    with open(os.path.join(src, "%05d.json" % i), "w") as f:
        f.write(json.dumps(m) + "\n")
PY
# writer W: the drops i with i mod 16 == W (ids k and k + N/2 fall to different writers). Writers
# 14 and 15 use hangar submit, which refuses an id it already sees in the spool (listed in
# refused.W); the others' duplicates reach hangard, which rejects them.
writer() {
  local w=$1 i
  if ((w >= 14)); then
    for ((i = w; i < N; i += 16)); do
      f=$(printf '%05d.json' "$i")
      # --no-wait: the burst is the point here; who_decides and concurrent_200 wait for intake.
      if ! "$BIN/hangar" --spool "$S" submit --no-wait "$T/src/$f" >"$T/src/$f.out" 2>&1; then
        # hangar submit looks for the id itself: a refusal there is the submitter's rejection.
        if grep -q 'is already in the spool' "$T/src/$f.out"; then
          echo "$i" >>"$T/refused.$w"
        else
          echo "$f" >>"$T/submit-errors.$w"
        fi
      fi
    done
  else
    python3 - "$T/src" "$S/incoming" "$N" "$w" <<'PY'
import os, sys
src, inc, n, w = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for i in range(w, n, 16):
    name = "%05d.json" % i
    data = open(os.path.join(src, name), "rb").read()
    tmp = os.path.join(inc, "tmp", name)
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, os.path.join(inc, "new", name))
PY
  fi
}
pids=()
for w in $(seq 0 15); do writer "$w" & pids+=($!); done
wait "${pids[@]}"  # the writers only: hangard is a child too
if compgen -G "$T/submit-errors.*" >/dev/null; then
  f=$(head -n 1 "$T"/submit-errors.* | tail -n 1)
  fail "hangar submit failed for $(cat "$T"/submit-errors.* | wc -l) drops, e.g. $f: $(cat "$T/src/$f.out")"
fi
cat "$T"/refused.* 2>/dev/null | sort -n >"$T/refused" || true
expect=$((N - $(wc -l <"$T/refused")))
taken() { (($(find "$S/hold" "$S/rejected" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null | wc -l) >= expect)); }
wait_until 600 taken || fail "after 600 s only $(find "$S/hold" "$S/rejected" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l) of $expect drops taken in"
sleep 1  # anything past N would be a drop taken twice
python3 - "$S" "$N" "$T/refused" <<'PY' || fail "the spool does not hold every drop exactly once (above)"
import json, os, sys
s, n = sys.argv[1], int(sys.argv[2])
refused = [int(x) for x in open(sys.argv[3]).read().split()]
bad = []
def entries(d):
    return sorted(e for e in os.listdir(os.path.join(s, d)) if not e.startswith("."))
for d in ("incoming/new", "queued", "running", "returned", "denied"):
    if entries(d):
        bad.append("%s is not empty: %s" % (d, entries(d)[:5]))
held, rejected = entries("hold"), entries("rejected")
ids = {"d%05d" % k for k in range(n // 2)}
if set(held) != ids or len(held) != n // 2:
    bad.append("hold/ has %d entries, %d of the %d ids" % (len(held), len(ids & set(held)), n // 2))
seen = {}  # drop marker -> where it is
def mark(text, where):
    m = json.loads(text)
    seen.setdefault(m["now"], []).append(where)
    return m
for id_ in held:
    d = os.path.join(s, "hold", id_)
    m = mark(open(os.path.join(d, "mission.json")).read(), "hold/" + id_)
    if m["id"] != id_:
        bad.append("hold/%s holds mission %s" % (id_, m["id"]))
    for f in ("intake.json", "gate1.json"):
        json.load(open(os.path.join(d, f)))
if len(rejected) + len(refused) != n // 2:
    bad.append("rejected/ has %d entries and hangar submit refused %d, expected %d in all"
               % (len(rejected), len(refused), n // 2))
for i in refused:
    seen.setdefault("drop %d" % i, []).append("refused by hangar submit")
for r in rejected:
    d = os.path.join(s, "rejected", r)
    why = json.load(open(os.path.join(d, "why.json")))
    if why.get("field") != "id" or "duplicate" not in why.get("reason", ""):
        bad.append("rejected/%s is not a duplicate: %s" % (r, why))
    m = mark(open(os.path.join(d, "mission.raw")).read(), "rejected/" + r)
    if m["id"] not in ids or r in ids:
        bad.append("rejected/%s: id %s" % (r, m["id"]))
for i in range(n):
    where = seen.get("drop %d" % i, [])
    if len(where) != 1:
        bad.append("drop %d is in %s" % (i, where or "no state: lost"))
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
PY
hangar ledger verify >"$T/verify.out" 2>&1 || fail "hangar ledger verify: $(cat "$T/verify.out")"
alive || fail "hangard is not alive"
pass
