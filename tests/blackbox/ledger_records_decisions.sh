#!/usr/bin/env bash
# Every decision is in the ledger, and the mission files name their entries: intake.json,
# gate2.json and return.json carry the ledger_seq of mission.accepted, mission.launched and
# mission.returned, whose body holds return.json's sha256. The anchor vouches for every entry,
# `hangar ledger verify` says ok, and a notified requester gets the signed checkpoint with the
# return and can check the ledger extends it (hangar-ledger(5)).
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mkdir -p "$T/inbox/tmp" "$T/inbox/new"  # the requester makes the maildir
mutated L1 "m['notify'] = {'dir': '$T/inbox'}" | drop L1.json
wait_returned L1 20
hangar ledger show --json >"$T/ledger.json" || fail "hangar ledger show failed"
python3 - "$T/ledger.json" "$S" <<'PY' || fail "the mission files and the ledger disagree"
import hashlib, json, sys
entries = json.load(open(sys.argv[1]))["entries"]
spool = sys.argv[2]
by_seq = {e["seq"]: e for e in entries}
assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1)), "seqs not 1..n"
def entry(path, kind):
    seq = json.load(open(path))["ledger_seq"]
    e = by_seq[seq]
    assert e["kind"] == kind and e["body"]["id"] == "L1", (path, e)
    return e
entry(f"{spool}/returned/L1/intake.json", "mission.accepted")
launched = entry(f"{spool}/returned/L1/gate2.json", "mission.launched")
assert launched["body"]["key"] == "launch.L1.1", launched
ret = entry(f"{spool}/returned/L1/return.json", "mission.returned")
raw = open(f"{spool}/returned/L1/return.json", "rb").read()
assert ret["body"]["sha256"] == hashlib.sha256(raw).hexdigest(), "return.json sha256 differs"
assert ret["body"]["outcome"] == json.loads(raw)["outcome"]
PY
lines=$(grep -c '"ledger":"live"' "$A/live.anchor")
entries=$(cat "$S"/ledger/live/*.jsonl | wc -l)
((lines == entries)) || fail "the anchor has $lines lines for $entries entries"
hangar ledger verify >"$T/verify.out" 2>&1 || fail "hangar ledger verify: $(cat "$T/verify.out")"
wait_until 10 test -f "$T/inbox/new/L1.json" || fail "the return was not delivered"
[[ -f "$T/inbox/new/L1.checkpoint" ]] || fail "no signed checkpoint delivered with the return"
hangar ledger verify --checkpoint "$T/inbox/new/L1.checkpoint" >"$T/cp.out" 2>&1 ||
  fail "the delivered checkpoint does not verify: $(cat "$T/cp.out")"
# A checkpoint whose signed size was changed is refused.
sed -E 's/"size":[0-9]+/"size":1/' "$A/live.checkpoint" >"$T/forged.checkpoint"
cmp -s "$A/live.checkpoint" "$T/forged.checkpoint" && sed -i -E 's/"size":1/"size":2/' "$T/forged.checkpoint"
rc=0
hangar ledger verify --checkpoint "$T/forged.checkpoint" >"$T/forged.out" 2>&1 || rc=$?
((rc == 65)) || fail "a forged checkpoint gave exit $rc, expected 65: $(cat "$T/forged.out")"
grep -q "signature does not verify" "$T/forged.out" || fail "forged checkpoint: $(cat "$T/forged.out")"
pass
