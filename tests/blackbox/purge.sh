#!/usr/bin/env bash
# Purge and retention (issue 25), hangard as root and as an unprivileged user, on a spool laid out
# as `make install` lays it, judged by what is on disk:
#   a returned mission (its room holding a link to a host directory, as a hostile drone leaves
#   it), a rejected and a denied one, and one still running;
#   `hangar purge --dry-run` lists the three ended ones and changes nothing;
#   a submitter that is not an approver asks to purge: refused (exit 77), everything still there;
#   an approver purges: the three directories and the room go, the host directory behind the link
#   survives, the running one is untouched, each id leaves a tombstone, the launch key stays, the
#   ledger records mission.purged first and still verifies;
#   the purged id is refused by `hangar submit` naming the purge, a raw drop of it is rejected as a
#   duplicate (nothing runs), `hangar retry` of it says it was purged; all the same after SIGKILL
#   and a restart;
#   retention: with "retention": {"returned": "1h"}, hangard purges by itself a mission that ended
#   two hours ago and keeps one that ended now.
. "$(dirname "$0")/lib.sh"
each_identity
setup 2
as_hangard_user
submitter_user p
start_hangard
count() { if [[ -f "$T/runs" ]]; then grep -c "^start $1 " "$T/runs" || true; else echo 0; fi; }

mission R1 script 1 '[{"file":"REPORT.md"}]' "count $T/runs" 'write REPORT.md done' | drop R1.json
printf 'not json' | drop J1.json
mission D1 script 1 '' 'say hi' |
  python3 -c 'import json,sys; m=json.load(sys.stdin); m["network"]="host"; print(json.dumps(m))' |
  drop D1.json
mission L1 script 1 '' 'sleep 60' | drop L1.json
wait_returned R1 15
wait_until 10 test -d "$S/hold/D1" || fail "D1 not held (state: $(state_of D1))"
hangar deny D1 --why "not today" >/dev/null 2>&1 || fail "hangar deny D1 failed"
wait_until 10 test -d "$S/denied/D1" || fail "D1 not denied (state: $(state_of D1))"
wait_until 10 test -d "$S/rejected/J1" || fail "J1 not rejected (state: $(state_of J1))"
wait_until 10 test -d "$S/running/L1" || fail "L1 not running (state: $(state_of L1))"
mkdir -p "$T/outside" && echo keep >"$T/outside/secret"
ln -s "$T/outside" "$S/rooms/R1/escape"  # what a drone may leave in its room
[[ -f "$S/keys/launch.R1.1" ]] || fail "no launch key for R1"
(($(count R1) == 1)) || fail "R1 ran $(count R1) times before any purge"

# --dry-run: the three ended missions, nothing changed.
before=$(listing)
hangar purge --dry-run --older-than 0s >"$T/dry.out" 2>&1 || fail "purge --dry-run failed: $(cat "$T/dry.out")"
check dry-run-lists-the-ended test "$(awk '/^[A-Z]/ {print $1}' "$T/dry.out" | sort | tr '\n' ' ')" == "D1 J1 R1 "
check dry-run-changes-nothing test "$before" == "$(listing)"
hangar --json purge --dry-run --state returned --older-than 0s >"$T/dry.json" 2>&1
check dry-run-json jq_ok "$T/dry.json" "d['dry_run'] and [m['id'] for m in d['missions']] == ['R1']"
rc=0; hangar purge >/dev/null 2>&1 || rc=$?
check no-ids-no-age-is-usage test "$rc" == 64
rc=0; hangar purge --state running L1 >/dev/null 2>&1 || rc=$?
check live-state-is-usage test "$rc" == 64

# A submitter that is not an approver: refused by the kernel, nothing removed.
if [[ -n "${RA:-}" ]]; then
  rc=0
  setpriv "--reuid=$RA" "--regid=$RA" --init-groups -- env "USER=$RA" HOME=/ \
    "$T/bin/hangar" --spool "$S" purge R1 D1 J1 >"$T/ra.out" 2>&1 || rc=$?
  check non-approver-exit-77 test "$rc" == 77
  check non-approver-removed-nothing test -d "$S/returned/R1" -a -d "$S/rooms/R1" -a -d "$S/denied/D1" \
    -a -d "$S/rejected/J1" -a ! -e "$S/purged/R1.json"
else
  say "skip $TEST/non-approver: skipped: not root (creates a user)"
fi

# An approver purges everything that ended.
hangar purge --older-than 0s --why "disk is full" >"$T/purge.out" 2>&1 ||
  fail "hangar purge failed: $(cat "$T/purge.out")"
for x in returned/R1 rejected/J1 denied/D1 rooms/R1; do
  check "gone-$(dirname "$x")" test ! -e "$S/$x"
done
check link-target-survives test "$(cat "$T/outside/secret" 2>/dev/null)" == keep
check running-untouched test -d "$S/running/L1" -a -d "$S/rooms/L1"
for id in R1 J1 D1; do
  check "tombstone-$id" jq_ok "$S/purged/$id.json" "d['id'] == '$id' and d['ledger_seq'] > 0"
done
check tombstone-keeps-keys jq_ok "$S/purged/R1.json" "d['keys'] == ['launch.R1.1'] and d['state'] == 'returned'"
check key-stays test -f "$S/keys/launch.R1.1"
hangar --json status >"$T/status.json" 2>&1
check status-counts-tombstones jq_ok "$T/status.json" "d['counts']['purged'] == 3 and d['counts']['returned'] == 0"
check trash-empty test -z "$(ls -A "$S/purged/.trash")"
hangar ledger show --json >"$T/ledger.json" 2>&1
check ledger-has-purge jq_ok "$T/ledger.json" \
  "([sorted(e['body']['ids']) for e in d['entries'] if e['kind'] == 'mission.purged'] == [['D1','J1','R1']] and
    [e['body']['why'] for e in d['entries'] if e['kind'] == 'mission.purged'] == ['disk is full'])"
verifies() { hangar ledger verify >/dev/null 2>&1; }
check ledger-verifies verifies

# The id stays taken.
rc=0; mission R1 script 1 '' "count $T/runs" 'say again' | hangar submit - >"$T/resub.out" 2>&1 || rc=$?
check submit-refused test "$rc" == 65
check submit-names-purge grep -q "was purged" "$T/resub.out"
rc=0; hangar retry R1 >"$T/retry.out" 2>&1 || rc=$?
check retry-refused test "$rc" != 0
check retry-names-purge grep -q "was purged" "$T/retry.out"
dups() { grep -l "was used by a mission purged" "$S"/rejected/*/why.json 2>/dev/null | wc -l; }
raw_drop_refused() {  # NAME: a raw drop of id R1 as file NAME is rejected as a duplicate
  local n
  n=$(dups)
  mission R1 script 1 '' "count $T/runs" 'say again' | drop "$1"
  more() { (($(dups) > n)); }
  wait_until 10 more || return 1
  [[ ! -e "$S/returned/R1" && ! -e "$S/queued/R1" && ! -e "$S/running/R1" ]]
}
check raw-drop-duplicate raw_drop_refused again-1.json
stop_hangard KILL
start_hangard
check after-restart-tombstone test -f "$S/purged/R1.json"
check after-restart-raw-drop-duplicate raw_drop_refused again-2.json
(($(count R1) == 1)) || fail "R1's drone ran $(count R1) times in all, expected 1"

# Retention: hangard purges by itself what ended longer ago than its state's span.
hangar cancel L1 >/dev/null 2>&1 || fail "hangar cancel L1 failed"
wait_returned L1 15
mission N1 script 1 '' 'say new' | drop N1.json
wait_returned N1 15
touch -d '2 hours ago' "$S/returned/L1/return.json"
stop_hangard
edit_conf "c['retention'] = {'returned': '1h', 'every_s': 60}"
start_hangard
# The tombstone is written before the directory goes: wait for both, not for the first.
purged_old() { [[ -f "$S/purged/L1.json" && ! -e "$S/returned/L1" ]]; }
check retention-purged-old wait_until 15 purged_old
check retention-kept-new test -d "$S/returned/N1" -a ! -e "$S/purged/N1.json"
hangar ledger show --json >"$T/ledger2.json" 2>&1
check retention-ledgered jq_ok "$T/ledger2.json" \
  "([e['body']['ids'] for e in d['entries'] if e['kind'] == 'mission.purged'][-1] == ['L1'] and
    [e['body']['why'] for e in d['entries'] if e['kind'] == 'mission.purged'][-1].startswith('retention: returned 1h'))"
check ledger-verifies-after-retention verifies
finish
