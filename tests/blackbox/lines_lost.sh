#!/usr/bin/env bash
# A commit's signal record lines and ledger entries are written in one wait, then the anchor lines
# (hangar-signals(5) DURABILITY). hangard is crashed (HANGAR_FAULT, man/hangard.8) just after the
# entries of D1's intake reached the ledger and before their lines reached the record: what a
# crash between the two writes, or a power loss keeping one of the two files, leaves. The restart
# must cut those unanchored entries, recorded by a ledger.cut entry (hangar-ledger(5) START-UP),
# not adopt them: then every entry on the ledger names a line the record holds, the ledger
# verifies, the replay agrees with the live kernel, and D1 is taken in again and runs once.
. "$(dirname "$0")/lib.sh"
setup 1
FLOG=$T/fault.log
fresh() {
  fresh_spool 1
  rm -f "$FLOG"
  mission D1 script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md ran' | drop D1.json
}

# Counting: the first commit whose entries and lines go together, the ledger's part first.
fresh
HANGAR_FAULT_LOG=$FLOG start_hangard
wait_returned D1 30
stop_hangard
entries=$(awk '$2 == "append" && $3 ~ /\/ledger\/live\/[0-9]+\.jsonl$/ { n = $1; next }
               $2 == "append" && $3 ~ /\/signals\.jsonl$/ && n && $1 == n + 1 { print n; exit }
               { n = 0 }' "$FLOG")
[[ -n "$entries" ]] || fail "no ledger append followed at once by the record's in the fault log: $(grep append "$FLOG" | head -n 8)"

fresh
rc=0
HANGAR_FAULT=crash-after=$entries timeout 30 "$BIN/hangard" --spool "$S" --anchor "$A" </dev/null >>"$LOG" 2>&1 || rc=$?
((rc == 86)) || fail "crash-after=$entries: hangard exited $rc, expected 86"
start_hangard
wait_returned D1 30
stop_hangard

check d1-done test "$(outcome D1)" = done
check d1-ran-once test "$(grep -c '^start D1 ' "$T/starts")" = 1
# The proof: no entry names a line the record lacks (without the cut, the start's catch-up adopts
# the intake's entries, whose lines the crash took).
python3 - "$S/ledger/live" "$S/signals/live/signals.jsonl" >"$T/names.out" 2>&1 <<'PY' ||
import json, os, sys
d, rec = sys.argv[1], sys.argv[2]
lines = {json.loads(l)["hash"] for l in open(rec) if l.strip()}
cuts, missing = [], []
for f in sorted(os.listdir(d)):
    if not f.endswith(".jsonl"):
        continue
    for l in open(os.path.join(d, f)):
        e = json.loads(l)
        if e["kind"] == "ledger.cut":
            cuts.append(e)
        name = e["body"].get("signal_record")
        if name and name not in lines:
            missing.append(f'seq {e["seq"]} {e["kind"]}')
if missing:
    sys.exit("entries naming lines the record lacks: " + ", ".join(missing))
if not any("signal record lacks" in c["body"].get("reason", "") for c in cuts):
    sys.exit("no ledger.cut of entries whose lines were lost: " + json.dumps(cuts))
PY
  fail "$(cat "$T/names.out")"
hangar ledger verify --anchor "$A" >"$T/verify.out" 2>&1 || fail "ledger verify: $(cat "$T/verify.out")"
rc=0
hangar replay --into "$T/replay" >"$T/replay.out" 2>&1 || rc=$?
((rc == 0)) || fail "replay exited $rc: $(tail -n 5 "$T/replay.out")"
pass
