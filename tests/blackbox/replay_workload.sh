#!/usr/bin/env bash
# hangar replay (hangar(1) REPLAY, hangar-signals(5)): a workload of every kind of decision — done,
# failed, timed out, cancelled, held then approved or denied, denied, rejected, ops allowed, refused
# and repeated, a grant and a revoke, a retry, work states stored, a restart in between — recorded
# by hangard and replayed by the same binary: exit 0 and "0 differ"; the live anchor and the
# spool's tree are unchanged by it; --into the live spool or anchor directory is refused with
# nothing written. Then a policy denying the op the workload used names exactly the missions that
# used it, with the rule; a policy that only adds a rule to the same verdict is "state differs
# only"; one allowing what was held is widening. An edited blob, an edited signal line or a
# ledger that does not verify makes replay refuse with the reason (exit 65), as does a record cut
# short.
# Runs as root and as an unprivileged user (each_identity): hangard writes the record as either.
# blackbox-timeout: 420
. "$(dirname "$0")/lib.sh"
each_identity
setup 12
cat >"$T/policy.json" <<JSON
{"hangar_policy": 1,
 "acts": {"deny": ["post"], "hold": ["push"], "allow": ["read", "write"], "unknown": "hold"},
 "network": {"allow": ["none"], "hold": ["host"]},
 "ops": {"allow": ["post.message"], "grant": ["deploy"], "unknown": "deny"}}
JSON
python3 - "$S/hangar.conf" "$T" <<'PY'
import json, sys
conf, t = sys.argv[1], sys.argv[2]
c = json.load(open(conf))
c["policy"] = t + "/policy.json"
c["ops"] = {op: {"argv": ["/bin/sh", "-c", "cat >/dev/null; echo ran"], "timeout_s": 10}
            for op in ("post.message", "deploy")}
json.dump(c, open(conf, "w"))
PY
as_hangard_user
with() { python3 -c 'import json,sys; m=json.load(sys.stdin); exec(sys.argv[1]); print(json.dumps(m))' "$1"; }
start_hangard

mission R-done script 1 '' 'write REPORT.md ok' | drop R-done.json
mission R-failed script 1 '[{"file":"MISSING.md"}]' 'write REPORT.md half' | drop R-failed.json
mission R-slow script 0.05 '' 'sleep 60' | drop R-slow.json
mission R-cancel script 1 '' 'sleep 30' | drop R-cancel.json
mission R-hold script 1 '' 'write REPORT.md held' | with "m['acts'] = ['push']" | drop R-hold.json
mission R-nohold script 1 '' 'write REPORT.md held' | with "m['acts'] = ['push']" | drop R-nohold.json
mission R-deny script 1 '' 'write REPORT.md no' | with "m['acts'] = ['post']" | drop R-deny.json
printf 'not json' | drop R-reject.json
mission R-ops script 1 '' 'declare ops=post.message,deploy external_acts=post.message' \
  'op a1 post.message k1 {"text":"hi"}' 'op a2 post.message k1 {"text":"hi"}' 'op a3 deploy k2' 'write REPORT.md ops' |
  with "m['ops'] = ['post.message', 'deploy']" | drop R-ops.json
wait_until 20 test -d "$S/hold/R-hold" || fail "R-hold not held (state: $(state_of R-hold))"
wait_until 20 test -d "$S/hold/R-nohold" || fail "R-nohold not held (state: $(state_of R-nohold))"
hangar approve R-hold --why "looked" >/dev/null || fail "approve failed"
hangar deny R-nohold --why "not now" >/dev/null || fail "deny failed"
wait_until 20 test -d "$S/running/R-cancel" || fail "R-cancel not running (state: $(state_of R-cancel))"
hangar cancel R-cancel >/dev/null || fail "cancel failed"
hangar grant deploy --mission R-other >/dev/null || fail "grant failed"
hangar revoke deploy --mission R-other >/dev/null || fail "revoke failed"
# A requester's work states, one before the restart and one after: the replay folds the second
# start's requester book from the ledger as hangard did.
work_state() {
  python3 -c 'import json,sys; print(json.dumps({"hangar_memory": 1, "requester": "blackbox", "goal": sys.argv[1], "decisions": "", "evidence": "", "unresolved": "", "restore": "", "not_doing": "", "next": "", "constraints": "", "refs": [{"mission": "R-done"}]}))' "$1"
}
work_state "before the restart" >"$T/ws1.json"
hangar memory put --requester blackbox "$T/ws1.json" >/dev/null || fail "memory put failed"
for id in R-done R-failed R-slow R-cancel R-hold R-ops; do wait_returned $id 30; done
[[ "$(outcome R-slow)" == timed_out ]] || fail "R-slow: $(outcome R-slow), expected timed_out"
hangar retry R-failed >/dev/null || fail "retry failed"
wait_until 20 jq_ok "$S/returned/R-failed/return.json" "d['attempt'] == 2" || fail "R-failed not retried"
# A restart in between: the second start's recovery is replayed from a fresh state, as it ran.
stop_hangard
start_hangard
mission R-after script 1 '' 'write REPORT.md after' | drop R-after.json
wait_returned R-after 20
work_state "after the restart" >"$T/ws2.json"
hangar memory put --requester blackbox "$T/ws2.json" >"$T/ws2.out" || fail "memory put failed (2)"
grep -q "stored as v2" "$T/ws2.out" || fail "the second work state: $(cat "$T/ws2.out")"
wait_until 10 controls_taken || fail "control requests not all taken"
stop_hangard

# The same binary replays the record: no difference; nothing live is touched.
tree() { (cd "$1" && find . -path ./rooms -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }
tree "$S" >"$T/tree.before"
anchor_sum=$(sha256sum "$A/live.anchor")
rc=0
hangar replay --into "$T/r1" >"$T/r1.out" 2>&1 || rc=$?
check replay-same test "$rc" -eq 0
check replay-says-0-differ grep -Eq "^[0-9]+ signals replayed, [0-9]+ same, 0 differ$" "$T/r1.out"
check replay-covers-the-workload jq_ok <(hangar --json replay --into "$T/r1j" | tail -n 1) \
  "d['summary']['signals'] > 40 and d['summary']['starts'] == 2 and d['summary']['differ'] == 0"
check replay-own-ledger test -s "$T/r1/replay-live.anchor"
tree "$S" >"$T/tree.after"
check spool-unchanged cmp -s "$T/tree.before" "$T/tree.after"
check anchor-unchanged test "$(sha256sum "$A/live.anchor")" == "$anchor_sum"
check anchor-dir-holds-no-replay test -z "$(ls "$A" | grep -v '^live\.')"
for into in "$A" "$A/sub" "$S" "$S/replay"; do
  rc=0
  hangar replay --into "$into" >"$T/into.out" 2>&1 || rc=$?
  check "into-$(basename "$into")-refused" test "$rc" -eq 64
  check "into-$(basename "$into")-says-why" grep -q "refused: --into" "$T/into.out"
done
check into-refused-wrote-nothing test ! -e "$A/sub" -a ! -e "$S/replay"
tree "$S" >"$T/tree.after"
check spool-unchanged-after-refusals cmp -s "$T/tree.before" "$T/tree.after"

# A candidate policy that does not parse: refused naming the field, before anything is written.
echo '{"hangar_policy":1,"acts":{"deny":"post"}}' >"$T/bad-policy.json"
rc=0
hangar replay --policy "$T/bad-policy.json" --into "$T/r-bad" >"$T/bad.out" 2>&1 || rc=$?
check bad-candidate-refused test "$rc" -eq 65
check bad-candidate-says-field grep -q -- "--policy: .*acts.deny" "$T/bad.out"
check bad-candidate-wrote-nothing test ! -e "$T/r-bad"

# A policy that denies deploy (which R-ops asked for): exactly R-ops differs, with the rule.
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["ops"]["deny"]=["deploy"]; p["ops"]["grant"]=[]; json.dump(p,open(sys.argv[2],"w"))' \
  "$T/policy.json" "$T/no-deploy.json"
rc=0
hangar policy try "$T/no-deploy.json" >"$T/try.out" 2>&1 || rc=$?
check try-differs test "$rc" -eq 1
check try-names-r-ops grep -Eq "^R-ops .*ops\.deny\.deploy" "$T/try.out"
check try-names-only-r-ops test "$(grep -c '^R-' "$T/try.out")" -eq 1
check try-says-judged grep -Eq "^R-ops .*judged otherwise" "$T/try.out" 
# The same verdicts by another rule (push held as an unknown act, not as a listed one): the
# decisions are the same, the gate's rules in the state are not.
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["acts"]["hold"]=[]; json.dump(p,open(sys.argv[2],"w"))' \
  "$T/policy.json" "$T/same.json"
rc=0
hangar --json replay --policy "$T/same.json" --into "$T/r2" >"$T/r2.out" 2>&1 || rc=$?
check same-verdict-policy-no-decision-differs python3 - "$T/r2.out" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
steps = [l["step"] for l in lines if "step" in l]
assert steps and all(s["class"] == "state differs only" for s in steps), steps
assert {m for s in steps for m in s["missions"]} == {"R-hold", "R-nohold"}, steps
PY
# A policy that allows push (held before): widening, R-hold and R-nohold named.
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["acts"]["hold"]=[]; p["acts"]["allow"].append("push"); json.dump(p,open(sys.argv[2],"w"))' \
  "$T/policy.json" "$T/wide.json"
rc=0
hangar replay --policy "$T/wide.json" --into "$T/r3" >"$T/r3.out" 2>&1 || rc=$?
check wide-differs test "$rc" -eq 1
check wide-section grep -q "^widening" "$T/r3.out"
check wide-names-held sh -c "sed -n '/^widening/,/^\$/p' '$T/r3.out' | grep -q R-hold && sed -n '/^widening/,/^\$/p' '$T/r3.out' | grep -q R-nohold"

# Tampering: a blob's bytes, a signal line, the ledger.
rec="$S/signals/live/signals.jsonl"
cp "$rec" "$T/rec.saved"
python3 - "$rec" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
i = t.index("write REPORT.md ok")
open(p, "w").write(t[:i] + "write REPORT.md OK" + t[i + 18:])
PY
rc=0
hangar replay --into "$T/r4" >"$T/r4.out" 2>&1 || rc=$?
check edited-line-refused test "$rc" -eq 65
check edited-line-says-why grep -q "hash does not recompute" "$T/r4.out"
cp "$T/rec.saved" "$rec"
head -n 20 "$T/rec.saved" >"$rec"  # the record cut short: the ledger names lines it lacks
rc=0
hangar replay --into "$T/r4b" >"$T/r4b.out" 2>&1 || rc=$?
check cut-record-refused test "$rc" -eq 65
check cut-record-says-why grep -q "ends early" "$T/r4b.out"
cp "$T/rec.saved" "$rec"
first_entry=$(ls "$S/ledger/live" | head -n 1)
cp "$S/ledger/live/$first_entry" "$T/ledger.saved"
sed -i '1s/"kind":"/"kind":"x/' "$S/ledger/live/$first_entry"
rc=0
hangar replay --into "$T/r5" >"$T/r5.out" 2>&1 || rc=$?
check bad-ledger-refused test "$rc" -eq 65
check bad-ledger-says-why grep -q "does not verify\|refused" "$T/r5.out"
cp "$T/ledger.saved" "$S/ledger/live/$first_entry"
rc=0
hangar replay --into "$T/r6" >/dev/null 2>&1 || rc=$?
check restored-replays-same test "$rc" -eq 0
((FAILED == 0)) || exit 1
pass
