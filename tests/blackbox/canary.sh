#!/usr/bin/env bash
# The canary after a profile change (issue 25), hangard as root and as an unprivileged user, judged
# by launch keys (a key is made before any drone of that attempt can start, so no key: no launch):
#   a mission of profile "script" returns done: its definition is proven (profile.proven);
#   the profile is edited to name a program that does not exist (a model CLI's typo) and hangard
#   restarted with canary_s 3: of C1 C2 C3, only C1 launches; it fails at once; C2 and C3 stay
#   queued with no launch key long after canary_s; `hangar status` names the failed canary and
#   `status --check` exits 1; a retry of C1 runs it alone again; so after a SIGKILL and a restart;
#   a submitter that is not an approver cannot release-canary (77; still no key);
#   an approver's release-canary lets C2 and C3 launch; the ledger holds canary.launched,
#   canary.failed and canary.released and still verifies;
#   the profile is edited again to a working definition: G1 (running 8 s) launches alone, G2 waits
#   with no key while G1 is young, then launches once G1 has run canary_s (canary.passed) while G1
#   still runs.
. "$(dirname "$0")/lib.sh"
each_identity
setup 2
as_hangard_user
submitter_user c
edit_conf 'c["canary_s"] = 3'
start_hangard
key() { test -e "$S/keys/launch.$1.1"; }
kinds() { hangar ledger show --json 2>/dev/null | python3 -c '
import json, sys
print(" ".join(e["kind"] for e in json.load(sys.stdin)["entries"]))'; }
verifies() { hangar ledger verify >/dev/null 2>&1; }

mission P1 script 1 '' 'say proven' | drop P1.json
wait_returned P1 15
check first-done-proves test "$(outcome P1)" == done
check profile-proven-recorded grep -q "profile.proven" <<<"$(kinds)"

# A typo in the profile: nothing that runs it can start.
stop_hangard
edit_conf 'c["profiles"]["script"]["argv"] = ["/nonexistent/model-cli"]'
start_hangard
for id in C1 C2 C3; do mission "$id" script 1 '' 'say hi' | drop "$id.json"; done
wait_returned C1 15
check canary-failed test "$(outcome C1)" == failed
sleep 4  # past canary_s: a canary that failed first still holds its profile
check siblings-not-launched bash -c "! test -e '$S/keys/launch.C2.1' && ! test -e '$S/keys/launch.C3.1'"
check siblings-queued test -d "$S/queued/C2" -a -d "$S/queued/C3"
hangar status >"$T/status.out" 2>&1
check status-names-the-canary grep -q "^canary    profile script: canary C1 FAILED" "$T/status.out"
check status-says-how-to-release grep -q "2 missions wait: hangar release-canary script" "$T/status.out"
rc=0; hangar status --check >"$T/check.out" 2>&1 || rc=$?
check status-check-exits-1 test "$rc" == 1
check status-json jq_ok "$S/hangard.json" \
  "[(c['profile'], c['stage'], c['canary'], c['waiting']) for c in d['canaries']] == [('script', 'failed', 'C1', 2)]"

# A retry of the canary itself runs it as the canary again, alone.
hangar retry C1 >"$T/retry.out" 2>&1 || fail "retry C1 failed: $(cat "$T/retry.out")"
wait_until 15 jq_ok "$S/returned/C1/return.json" "d['attempt'] == 2" || fail "C1 not retried (state: $(state_of C1))"
check retried-canary-launched test -e "$S/keys/launch.C1.2"
check retry-launched-no-sibling bash -c "! test -e '$S/keys/launch.C2.1' && ! test -e '$S/keys/launch.C3.1'"

# It survives a crash: the book is folded from the ledger again.
stop_hangard KILL
start_hangard
sleep 2
check still-held-after-restart bash -c "! test -e '$S/keys/launch.C2.1' && ! test -e '$S/keys/launch.C3.1'"

if [[ -n "${RA:-}" ]]; then
  rc=0
  setpriv "--reuid=$RA" "--regid=$RA" --init-groups -- env "USER=$RA" HOME=/ \
    "$T/bin/hangar" --spool "$S" release-canary script >"$T/ra.out" 2>&1 || rc=$?
  check non-approver-exit-77 test "$rc" == 77
  sleep 1
  check non-approver-released-nothing bash -c "! test -e '$S/keys/launch.C2.1'"
else
  say "skip $TEST/non-approver: skipped: not root (creates a user)"
fi
rc=0; hangar release-canary nosuch >"$T/nosuch.out" 2>&1 || rc=$?
check unknown-profile-refused test "$rc" != 0
check unknown-profile-says-why grep -q 'no drone profile named "nosuch"' "$T/nosuch.out"

hangar release-canary script --why "typo understood; let them fail" >"$T/release.out" 2>&1 ||
  fail "release-canary failed: $(cat "$T/release.out")"
wait_returned C2 15
wait_returned C3 15
check released-siblings-launched bash -c "test -e '$S/keys/launch.C2.1' && test -e '$S/keys/launch.C3.1'"
k=$(kinds)
check ledger-canary-steps python3 -c '
import sys
k = sys.argv[1].split()
want = ["canary.launched", "canary.failed", "canary.released"]
f = [x for x in k if x in want]  # C1, its retry, then the release
sys.exit(0 if f == want[:2] * 2 + want[2:] else 1)' "$k"
check ledger-verifies verifies

# A working change: the canary runs alone until canary_s, then the others go while it still runs.
stop_hangard
edit_conf 'c["profiles"]["script"]["argv"] = ["{bindir}/hangar-fake-drone"]; c["profiles"]["script"]["env"]["MODEL"] = "next"'
start_hangard
mission G1 script 1 '' 'sleep 8' 'say long' | drop G1.json
wait_until 10 key G1 || fail "G1 not launched"
mission G2 script 1 '' 'say hi' | drop G2.json
sleep 1
check young-canary-holds bash -c "! test -e '$S/keys/launch.G2.1'"
wait_until 10 key G2 || fail "G2 not launched after the canary's span"
check canary-still-running test -d "$S/running/G1"
check canary-passed-recorded grep -q "canary.passed" <<<"$(kinds)"
wait_returned G1 20
check ledger-verifies-at-the-end verifies
finish
