#!/usr/bin/env bash
# Grants, revocations and a person's approval or denial exist only in the ledger: each CLI request
# is recorded by the kernel and shows in `hangar ledger show`; `hangar grants` folds them (a
# revocation wins over an older grant); approve moves a held mission on, deny ends it; a grant
# whose "until" is past and an approve of a mission that is not held are refused, on record.
. "$(dirname "$0")/lib.sh"
setup
# Two missions held from before (as the gate leaves them): the spool is the truth at start.
for id in H1 H2; do
  mkdir -p "$S/hold/$id"
  mission "$id" true 1 '' 'nothing to do' >"$S/hold/$id/mission.json"
  echo '{"hangar":1,"id":"'$id'","time":"2026-01-01T00:00:00.000Z"}' >"$S/hold/$id/intake.json"
done
start_hangard
hangar grant git.push --mission M1 >/dev/null || fail "hangar grant failed"
hangar grant web.post --requester alice --until 2999-01-01T00:00:00Z >/dev/null || fail "grant --until failed"
hangar revoke git.push --mission M1 >/dev/null || fail "hangar revoke failed"
hangar approve H1 --why "reviewed the diff" >/dev/null || fail "hangar approve H1 failed"
hangar deny H2 --why "not this week" >/dev/null || fail "hangar deny H2 failed"
wait_returned H1 20
[[ "$(outcome H1)" == done ]] || fail "H1 outcome $(outcome H1), expected done"
wait_until 10 test -d "$S/denied/H2" || fail "H2 not denied (state: $(state_of H2))"
jq_ok "$S/denied/H2/why.json" "'not this week' in d['reason'] and d['ledger_seq'] > 0" ||
  fail "denied/H2/why.json: $(cat "$S/denied/H2/why.json")"
jq_ok "$S/returned/H1/approve.json" "d['ledger_seq'] > 0" || fail "no approve.json with its seq"
hangar show H1 | grep -Eq "^approved +by .*\(ledger seq [0-9]+\)" || fail "hangar show H1 does not show the approval: $(hangar show H1)"
wait_until 10 controls_taken || fail "control requests not all taken"
hangar ledger show --json >"$T/ledger.json" || fail "hangar ledger show failed"
python3 - "$T/ledger.json" <<'PY' || fail "the ledger lacks the person's acts: $(cat "$T/ledger.json")"
import json, sys
kinds = [(e["kind"], e["body"]) for e in json.load(open(sys.argv[1]))["entries"]]
def has(kind, **kv):
    assert any(k == kind and all(b.get(x) == y for x, y in kv.items()) for k, b in kinds), (kind, kv)
has("grant", op="git.push", mission="M1", until=None)
has("grant", op="web.post", requester="alice", until="2999-01-01T00:00:00.000Z")
has("revoke", op="git.push", mission="M1")
has("person.approved", id="H1", why="reviewed the diff")
has("person.denied", id="H2", why="not this week")
PY
hangar --json grants >"$T/grants.json" || fail "hangar grants failed"
jq_ok "$T/grants.json" "[(g['op'], g.get('mission'), g.get('requester')) for g in d['grants']] == [('web.post', None, 'alice')]" ||
  fail "grants in force: $(cat "$T/grants.json")"
hangar grants --all | grep -q revoke || fail "hangar grants --all does not list the revocation"
# Refused requests: a grant already expired, an approve of a returned mission (dropped by hand:
# the CLI would refuse it before the kernel sees it).
rc=0
hangar grant x.y --mission M1 --until 2001-01-01T00:00:00Z >/dev/null 2>"$T/past.err" || rc=$?
((rc == 65)) && grep -q "is past" "$T/past.err" ||
  fail "a grant whose until is past: exit $rc, expected 65 with the reason: $(cat "$T/past.err")"
printf '{"hangar":1,"request":"approve","id":"H1"}' >"$S/control/tmp/approve-again"
mv "$S/control/tmp/approve-again" "$S/control/new/approve-again"
wait_until 10 controls_taken || fail "refused requests not taken"
hangar ledger show --kind control.refused --json >"$T/refused.json"
jq_ok "$T/refused.json" "len(d['entries']) == 2 and any('past' in e['body']['reason'] for e in d['entries']) and any('not held' in e['body']['reason'] for e in d['entries'])" ||
  fail "refusals not recorded: $(cat "$T/refused.json")"
[[ $(ls "$S/control/bad" | grep -vc '\.why\.json$') == 2 ]] || fail "refused requests not kept in control/bad"
rc=0
hangar approve H1 >/dev/null 2>&1 || rc=$?
((rc == 66)) || fail "hangar approve of a returned mission: exit $rc, expected 66"
rc=0
hangar grant git.push --mission M1 --requester bob >/dev/null 2>&1 || rc=$?
((rc == 64)) || fail "grant with two subjects: exit $rc, expected 64"
hangar ledger verify >/dev/null || fail "the ledger does not verify"
pass
