#!/usr/bin/env bash
# Restore from backup never launches a mission twice (issue 19, point 7; man/hangar-spool.5,
# BACKUP AND RESTORE). The drill: missions flow through a live hangard; the spool is copied with
# `rsync -a` while it runs; more missions run; hangard stops and the copy is restored over the
# spool. hangard then starts failed closed (its anchor, on another mount, vouches for entries the
# restored ledger lacks), launches nothing, and the reanchor returns every mission the backup held
# waiting (queued, held, dropped) as lost instead of launching it; one the backup held running is
# lost too (its supervisor is gone). Every drone counts its start in a file on the host: no
# mission may start twice. A mission dropped after the reanchor runs as usual.
. "$(dirname "$0")/lib.sh"
each_identity
setup 2
starts=$T/starts
: >"$starts"  # before as_hangard_user, which gives $T to hangard's user
as_hangard_user
edit_conf "c['checkpoint'] = {'every': 5}"
start_hangard
for i in $(seq 1 14); do
  mission "R$i" script 1 '' "count $starts" 'sleep 1' | drop "R$i.json"
done
# The backup, taken while drones run and missions wait.
wait_until 30 test -f "$S/returned/R3/return.json" || fail "R3 not returned (state: $(state_of R3))"
# Exit 24: files vanished during the copy (renamed by hangard), as on any live spool.
rc=0; rsync -a "$S/" "$T/backup/" 2>"$T/rsync.err" || rc=$?
((rc == 0 || rc == 24)) || fail "rsync of the live spool: exit $rc: $(cat "$T/rsync.err")"
held_back=$(ls "$T/backup/queued" "$T/backup/running" "$T/backup/hold" "$T/backup/incoming/new" 2>/dev/null | grep -c '^R' || true)
((held_back > 0)) || fail "the backup caught no mission waiting or running: the drill tests nothing"
for i in $(seq 1 14); do wait_returned "R$i" 60; done
for i in 1 2; do mission "P$i" script 1 '' "count $starts" | drop "P$i.json"; done
for i in 1 2; do wait_returned "P$i" 30; done
stop_hangard
before=$(wc -l <"$starts")

# The restore: the copy over the spool, as an admin would (the anchor is another mount).
rsync -a --delete "$T/backup/" "$S/" || fail "rsync restore failed"
start_hangard
check restored-fails-closed jq_ok "$S/hangard.json" "d['ledger']['state'] == 'fail-closed'"
sleep 2
check nothing-launched-before-reanchor test "$(wc -l <"$starts")" == "$before"
# A restart before the reanchor finds the same: the anchor keeps its evidence.
stop_hangard
start_hangard
check still-rolled-back-after-restart jq_ok "$S/hangard.json" "d['ledger']['state'] == 'fail-closed'"
hangar ledger reanchor --why "restored from the drill's backup" >/dev/null || fail "reanchor failed"
# Waiting: an R mission in queued/, running/, hold/ or incoming/new that has not returned. The
# backup may hold a mission twice (rsync saw it in queued/ and, after its rename, in running/); the
# copy furthest on stands and the other is left alone (hangard(8), "a copied spool"): not waiting.
quiet() {
  local id
  for id in $(ls "$S/queued" "$S/running" "$S/hold" "$S/incoming/new" 2>/dev/null | grep '^R'); do
    [[ -e "$S/returned/$id" ]] || return 1
  done
}
wait_until 60 quiet || fail "not quiet after the reanchor: $(ls "$S/queued" "$S/running" "$S/hold")"
mission N1 script 1 '' "count $starts" | drop N1.json
wait_returned N1 30
check after-reanchor-runs test "$(outcome N1)" == done

twice=$(awk '{print $2}' "$starts" | sort | uniq -d | tr '\n' ' ')
check no-mission-started-twice test -z "$twice"
note "$(awk '{print $2}' "$starts" | sort -u | wc -l) missions started once; $held_back waited or ran in the backup; started twice: ${twice:-none}"
lost=0
for d in "$S"/returned/R*; do
  id=${d##*/}
  [[ "$(outcome "$id")" == lost ]] && lost=$((lost + 1))
done
check restored-waiting-returned-lost test "$lost" -gt 0
check reanchor-names-them jq_ok <(hangar --json ledger show --kind ledger.reanchor) \
  "len(d['entries'][-1]['body']['returned_lost']) > 0"
check verify-after-restore hangar ledger verify
((FAILED == 0)) || exit 1
pass
