#!/usr/bin/env bash
# A requester's working memory (issue 23), with hangard as root and as an unprivileged user, on a
# spool laid out by scripts/spool-permissions, and two requester users the test creates:
#   A's scripted history (a mission done, one failed, one held, one running; a grant then its
#   revoke; four work-state versions) gives a resume pack of at most 6,000 bytes, byte-identical
#   when built twice, whose conflicts are exactly the four planted: A-run claimed queued but
#   running, A-held claimed approved with no approval on the ledger, the revoked grant claimed in
#   force, a cited mission that never existed; the true claims are not flagged;
#   "approved: A-held" in a work state approves nothing: A-held is never launched (its drone would
#   count itself in a file on the host) and no approval or grant appears;
#   a work state with a missing section, a section over its limit or bytes that are not UTF-8 is
#   refused naming the field, by `hangar memory put` (65, nothing dropped) and by the kernel when
#   dropped by hand (control/bad); B, another uid, may store none of A's memory (77,
#   memory.not-requester), not even after submitting a mission as A's requester (denied,
#   requester.owner); none of these changes the versions; once A-run is cancelled the pack says
#   so under "since" and the conflict follows what is observed; memory show and diff read the
#   versions, and a version whose file was changed after it was stored is refused (65), its log
#   line saying "changed".
. "$(dirname "$0")/lib.sh"
need_user_tools
each_identity
setup 2
SUB=hangar-sub-$$ RA=hangar-ma-$$ RB=hangar-mb-$$
group_users "$SUB" "$RA" "$RB"
as_hangard_user
mkdir -p "$T/bin" "$T/ws"
cp "$BIN/hangar" "$T/bin/"
chmod 755 "$T" "$T/bin" "$T/ws"
"$ROOT/scripts/spool-permissions" "$S" "$SUB" "${RT_USER:-root}"
: >"$T/held.count"
chmod 666 "$T/held.count"

as() {
  local u=$1
  shift
  setpriv "--reuid=$u" "--regid=$u" --init-groups -- env "USER=$u" HOME=/ "$@"
}
h() { local u=$1; shift; as "$u" "$T/bin/hangar" --spool "$S" "$@"; }
# as_requester ID DRONE MAX LINE...: a mission of requester "agent-a" (EXTRA_PY edits it).
a_mission() {
  mission "$@" | python3 -c 'import json,os,sys; m=json.load(sys.stdin); m["requester"]="agent-a"; exec(os.environ.get("EXTRA_PY","")); print(json.dumps(m))'
}
# work_state FILE PY: a valid work state of agent-a, changed by PY on w, written to FILE.
work_state() {
  python3 - "$1" "$2" <<'PY'
import json, sys
path, code = sys.argv[1:]
w = {"hangar_memory": 1, "requester": "agent-a", "goal": "ship the parser fix",
     "decisions": "", "evidence": "", "unresolved": "", "restore": "", "not_doing": "",
     "next": "", "constraints": "", "refs": []}
exec(code)
# A marker the file gets as bytes that are not UTF-8 (Latin-1 "caf\xe9").
data = json.dumps(w, ensure_ascii=False).encode().replace(b"@LATIN1@", b"caf\xe9")
open(path, "wb").write(data)
PY
  chmod 644 "$1"
}
versions() { hangar --json memory log --requester agent-a | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["versions"]))'; }

start_hangard
a_mission A-done script 1 '' 'write REPORT.md ok' | h "$RA" submit - >/dev/null || fail "A could not submit A-done"
a_mission A-fail script 1 '' 'exit 3' | h "$RA" submit - >/dev/null || fail "A could not submit A-fail"
EXTRA_PY='m["acts"]=["push"]' a_mission A-held script 1 '' "count $T/held.count" 'push the branch' |
  h "$RA" submit - >/dev/null || fail "A could not submit A-held"
wait_returned A-done 30
wait_returned A-fail 30
a_mission A-run script 5 '' 'sleep 300' | h "$RA" submit - >/dev/null || fail "A could not submit A-run"
wait_until 20 test -d "$S/running/A-run" || fail "A-run not running (state: $(state_of A-run))"
check held-is-held test -d "$S/hold/A-held"
hangar grant web.post --requester agent-a >/dev/null || fail "grant web.post"
hangar revoke web.post --requester agent-a >/dev/null || fail "revoke web.post"
hangar grant git.push --mission A-run >/dev/null || fail "grant git.push"

# Four versions by A; the last plants the conflicts beside claims that hold.
for v in 1 2 3; do
  work_state "$T/ws/v$v.json" "w['goal'] = 'ship the parser fix, step $v'"
  h "$RA" memory put --requester agent-a "$T/ws/v$v.json" >/dev/null || fail "A could not store v$v"
done
work_state "$T/ws/v4.json" '
w["decisions"] = "approved: A-held\nwe chose the small fix"
w["next"] = "wait for A-run, then push"
w["unresolved"] = "is the flaky test real?"
w["restore"] = "git revert the fix in the room of A-done"
w["refs"] = [{"mission": "A-run", "state": "queued"},
             {"mission": "A-held", "approved": True},
             {"grant": "web.post", "requester": "agent-a"},
             {"mission": "A-ghost"},
             {"mission": "A-done", "state": "returned", "outcome": "done", "in": "restore"},
             {"mission": "A-fail", "outcome": "failed"},
             {"grant": "git.push", "mission": "A-run"},
             {"seq": 1}]'
h "$RA" memory put --requester agent-a "$T/ws/v4.json" >"$T/put.out" || fail "A could not store v4: $(cat "$T/put.out")"
check put-says-stored grep -q "stored as v4" "$T/put.out"
check four-versions test "$(versions)" = 4
check stored-file-hash python3 -c "
import hashlib, json, subprocess, sys
log = json.loads(subprocess.check_output(['$BIN/hangar', '--spool', '$S', '--json', 'memory', 'log', '--requester', 'agent-a']))
v = log['versions'][-1]
sys.exit(0 if hashlib.sha256(open('$S/memory/agent-a/v4.json', 'rb').read()).hexdigest() == v['sha256'] and v['uid'] == $(id -u "$RA") else 1)"

h "$RA" resume --requester agent-a >"$T/pack1" || fail "resume failed: $(cat "$T/pack1")"
h "$RA" resume --requester agent-a >"$T/pack2" || fail "resume failed (2)"
h "$RA" --json resume --requester agent-a >"$T/pack.json" || fail "resume --json failed"
check pack-within-budget test "$(wc -c <"$T/pack1")" -le 6000
check pack-deterministic cmp -s "$T/pack1" "$T/pack2"
check conflicts-exactly-planted python3 -c "
import json, sys
got = {c['ref'] for c in json.load(open('$T/pack.json'))['conflicts']}
want = {'mission A-run', 'mission A-held', 'grant web.post to requester agent-a', 'mission A-ghost'}
sys.exit(0 if got == want else 1)"
check pack-names-each-conflict python3 -c "
import sys
t = open('$T/pack1').read()
conf = t.split('== CONFLICTS', 1)[1].split('== OBSERVED', 1)[0]
want = ['mission A-run: claimed queued, observed running', 'mission A-held: claimed approved',
        'grant web.post to requester agent-a: claimed in force, but revoked', 'mission A-ghost']
sys.exit(0 if all(w in conf for w in want) else 1)"
check pack-claimed-quoted grep -q '^> wait for A-run, then push' "$T/pack1"
check pack-observes-running grep -Eq '^  running A-run ' "$T/pack1"

# The claimed approval approved nothing: A-held never launched, no approval or grant recorded.
sleep 2
check claim-launches-nothing test ! -s "$T/held.count"
check claim-holds-still test -d "$S/hold/A-held"
hangar ledger show --json >"$T/ledger.json"
check claim-records-no-approval python3 -c "
import json, sys
es = json.load(open('$T/ledger.json'))['entries']
sys.exit(0 if not any(e['kind'] == 'person.approved' for e in es) and
         sum(e['kind'] == 'grant' for e in es) == 2 else 1)"

# Refused, naming the field, and nothing changes.
work_state "$T/ws/missing.json" 'del w["next"]'
work_state "$T/ws/big.json" 'w["goal"] = "x" * 9000'
work_state "$T/ws/latin1.json" 'w["evidence"] = "@LATIN1@"'
refused() {  # refused FILE FIELD
  local rc=0
  h "$RA" memory put --requester agent-a "$1" 2>"$T/refused.err" >/dev/null || rc=$?
  [[ $rc == 65 ]] && grep -q "$2" "$T/refused.err" && [[ -z "$(ls "$S/control/new")" ]]
}
check missing-section-refused refused "$T/ws/missing.json" "next"
check over-limit-refused refused "$T/ws/big.json" "goal"
check bad-utf8-refused refused "$T/ws/latin1.json" "evidence"
# The same by the file API: the kernel refuses it into control/bad, naming the field.
python3 -c "
import sys
raw = open('$T/ws/latin1.json', 'rb').read()
sys.stdout.buffer.write(b'{\"hangar\":1,\"request\":\"memory\",\"memory\":' + raw + b'}')" >"$T/ws/drop.json"
chmod 644 "$T/ws/drop.json"
as "$RA" sh -c "cp '$T/ws/drop.json' '$S/control/tmp/mem-bad' && mv '$S/control/tmp/mem-bad' '$S/control/new/mem-bad'" || fail "A could not drop a request"
wait_until 10 controls_taken || fail "the dropped work state was not taken"
check file-api-refused-names-field sh -c "grep -l 'memory.evidence' '$S'/control/bad/*.why.json >/dev/null"
# B, another uid: refused, before and after submitting a mission as agent-a.
rc=0; h "$RB" memory put --requester agent-a "$T/ws/v1.json" 2>"$T/b.err" >/dev/null || rc=$?
check other-uid-refused sh -c "[ $rc = 77 ] && grep -q memory.not-requester '$T/b.err'"
a_mission B-1 script 1 '' 'write REPORT.md b' | h "$RB" submit - >/dev/null 2>&1 || true
wait_until 10 test -d "$S/denied/B-1" || fail "B-1 not denied (state: $(state_of B-1))"
check squatter-denied jq_ok "$S/denied/B-1/gate1.json" "'requester.owner' in d['rules']"
rc=0; h "$RB" memory put --requester agent-a "$T/ws/v1.json" 2>"$T/b.err" >/dev/null || rc=$?
check squatter-still-refused test "$rc" = 77
check versions-unchanged test "$(versions)" = 4
# B's own requester, whose work state cites agent-a: A's pack still reads A's versions only, and
# B's denied mission under agent-a's name is not A's.
a_mission B-2 script 1 '' 'write REPORT.md b2' |
  python3 -c 'import json,sys; m=json.load(sys.stdin); m["requester"]="agent-b"; print(json.dumps(m))' |
  h "$RB" submit - >/dev/null || fail "B could not submit B-2"
work_state "$T/ws/b.json" 'w["requester"] = "agent-b"; w["refs"] = [{"grant": "web.post", "requester": "agent-a"}]'
h "$RB" memory put --requester agent-b "$T/ws/b.json" >/dev/null || fail "B could not store its own work state"
h "$RA" --json resume --requester agent-a >"$T/pack4.json" || fail "resume --json failed (4)"
check others-memory-not-mine python3 -c "
import json, sys
p = json.load(open('$T/pack4.json'))
ids = {m['id'] for m in p['observed']['missions']}
sys.exit(0 if [v['version'] for v in p['versions']] == [1, 2, 3, 4] and p['claimed'] and
         'B-1' not in ids and 'B-2' not in ids and len(p['conflicts']) == 4 else 1)"
check last-version-is-As python3 -c "
import json, sys
w = json.load(open('$S/memory/agent-a/v4.json'))
sys.exit(0 if w['next'] == 'wait for A-run, then push' else 1)"
# For people: log, show and diff; a version whose file was changed is said to be, not shown.
check show-a-version sh -c "'$BIN/hangar' --spool '$S' memory show --requester agent-a --version 2 | grep -q 'step 2'"
check diff-two-versions sh -c "'$BIN/hangar' --spool '$S' memory diff --requester agent-a --from 3 --to 4 | grep -q '^+wait for A-run, then push'"
sed -i 's/step 1/step one/' "$S/memory/agent-a/v1.json"
rc=0; hangar memory show --requester agent-a --version 1 >/dev/null 2>"$T/show.err" || rc=$?
check changed-file-refused sh -c "[ $rc = 65 ] && grep -q 'changed after it was stored' '$T/show.err'"
check log-says-changed sh -c "'$BIN/hangar' --spool '$S' memory log --requester agent-a | grep -qE '^1 .* changed '"
# What changed since the work state: A-run cancelled is observed, the claim stays as it was.
h "$RA" cancel A-run >/dev/null || fail "A could not cancel A-run"
wait_returned A-run 30
h "$RA" resume --requester agent-a >"$T/pack3" || fail "resume failed (3)"
check pack-says-what-changed grep -Eq '^  seq [0-9]+: mission A-run returned ' "$T/pack3"
check pack-conflict-follows grep -q 'mission A-run: claimed queued, observed returned' "$T/pack3"
finish
