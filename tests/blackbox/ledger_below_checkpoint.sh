#!/usr/bin/env bash
# hangard holds its own signed checkpoint against the ledger at start (issue 19, point 3): a ledger
# and anchor both cut back below the last checkpoint's seq, or both wiped while returned/ holds
# missions, start failed closed (a queued mission is not launched) and `hangar ledger verify`
# refuses them without being given --checkpoint; a reanchor then writes a checkpoint of the new
# epoch at once, so the next start is trusted again.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
edit_conf "c['checkpoint'] = {'every': 1}"
start_hangard
for id in C1 C2 C3; do mission "$id" true 1 '' 'nothing' | drop "$id.json"; done
for id in C1 C2 C3; do wait_returned "$id" 20; done
stop_hangard
size=$(jget "$A/live.checkpoint" "d['size']")
((size >= 6)) || fail "the checkpoint covers seq $size only"
cp -a "$S/ledger" "$T/ledger.orig"
cp "$A/live.anchor" "$T/anchor.orig"
seg=$(ls "$S"/ledger/live/*.jsonl | head -n 1)

# 1. Both cut back to 3 entries: they agree with each other, but not with the checkpoint.
head -n 3 "$T/ledger.orig/live/$(basename "$seg")" >"$seg"
head -n 3 "$T/anchor.orig" >"$A/live.anchor"
start_hangard
check cut-fails-closed jq_ok "$S/hangard.json" \
  "d['ledger']['state'] == 'fail-closed' and 'does not extend the checkpoint' in d['ledger']['reason']"
mission C4 true 1 '' 'nothing' | drop C4.json
wait_until 10 test -d "$S/queued/C4" || fail "C4 not taken in (state: $(state_of C4))"
sleep 1
check cut-launches-nothing test ! -e "$S/keys/launch.C4.1"
rc=0; hangar ledger verify >"$T/verify.out" 2>&1 || rc=$?
check verify-refuses-the-cut test "$rc" == 65
check verify-says-rolled-back grep -q "rolled back" "$T/verify.out"
stop_hangard

# 2. Both wiped, returned/ still full.
rm -rf "$S/ledger/live"
: >"$A/live.anchor"
start_hangard
check wiped-fails-closed jq_ok "$S/hangard.json" \
  "d['ledger']['state'] == 'fail-closed' and 'checkpoint' in d['ledger']['reason']"
sleep 1
check wiped-launches-nothing test ! -e "$S/keys/launch.C4.1"

# 3. A person looks, then reanchors. C4 waited in queued/ when hangard started on a ledger behind
# its checkpoint, as a mission of a restored backup does: whether it launched after the backup
# cannot be ruled out, so the reanchor returns it lost (restore_drill); a retry runs it, knowingly.
# The next start is trusted (a fresh checkpoint).
hangar ledger reanchor --why "restored from an old backup; reviewed" >/dev/null || fail "reanchor failed"
wait_returned C4 20
check reanchor-returns-waiting-lost test "$(outcome C4)" == lost
check reanchor-launches-nothing test ! -e "$S/keys/launch.C4.1"
hangar retry C4 >/dev/null || fail "hangar retry C4 failed"
wait_until 20 jq_ok "$S/returned/C4/return.json" "d['outcome'] == 'done'" || fail "C4 not done after the retry (state: $(state_of C4))"
stop_hangard
start_hangard
check next-start-trusted jq_ok "$S/hangard.json" "d['ledger']['state'] == 'ok'"
check verify-after-reanchor hangar ledger verify
((FAILED == 0)) || exit 1
pass
