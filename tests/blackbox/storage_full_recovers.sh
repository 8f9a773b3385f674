#!/usr/bin/env bash
# A drone that fills the spool's disk cannot stop the service or hide its own end (issue 19,
# point 2). The spool (and so the rooms) sits on a 32 MiB tmpfs; F1's drone writes zeros until the
# disk is full, then exits 3. While it is full: hangard stays up, `hangar status` says the storage
# is full (from its own statvfs: hangard may be unable to write hangard.json), F1 stays running
# (its supervisor keeps the exit record it cannot write), and a mission dropped meanwhile is not
# lost. Once the admin frees the space, F1 returns failed with its real exit status 3 (not lost),
# the waiting mission runs, hangard is the same process, and status says work and storage ok.
. "$(dirname "$0")/lib.sh"
each_identity
[[ "$(id -u)" == 0 ]] || skip "skipped: mounting a tmpfs needs root"
setup 2
mkdir "$T/full"
mount -t tmpfs -o size=32m tmpfs "$T/full" || skip "skipped: cannot mount a tmpfs here"
teardown_extra() {
  local f
  for f in "$S"/running/*/run/shim.json; do [[ -f "$f" ]] && kill_run "$f"; done
  umount -l "$T/full"
}
cp -a "$S/." "$T/full/"
S=$T/full
as_hangard_user
start_hangard
pid=$HPID
mission Q1 script 1 '' 'write REPORT.md waited' | drop_tmp Q1.json  # made now, dropped when full
mission F1 script 1 '' 'fill big.bin' 'exit 3' | drop F1.json
storage_full() { hangar status >"$T/status.txt" 2>&1 && grep -q '^storage *FULL' "$T/status.txt"; }
wait_until 30 storage_full || fail "hangar status never said the storage is full: $(cat "$T/status.txt")"
mv "$S/incoming/tmp/Q1.json" "$S/incoming/new/Q1.json"  # a rename needs no space
sleep 4
check hangard-stays-up kill -0 "$pid"
check end-not-lost-while-full test "$(state_of F1)" == running
check status-says-full storage_full
note "while full: $(grep -E '^(work|storage) ' "$T/status.txt" | tr '\n' ' ')"

rm -f "$S/rooms/F1/big.bin"  # the admin frees the space
wait_returned F1 30
check end-kept jq_ok "$S/returned/F1/return.json" "d['outcome'] == 'failed' and d['exit']['rc'] == 3"
wait_returned Q1 30
check waiting-mission-runs test "$(outcome Q1)" == done
check same-process jq_ok "$S/hangard.json" "d['pid'] == $pid"
# The restart in place re-executed hangard: no child of the old image (the shim zygote,
# launch/shim_zygote.h) is left a zombie of the new one.
wait_until 5 no_zombies || fail "hangard has zombie children: $(ps --ppid "$HPID" -o pid=,stat=,args= | grep ' Z')"
kill -0 "$pid" 2>/dev/null || fail "hangard exited"
wait_until 10 work_is ok || fail "work not ok after space returned: $(cat "$T/status.json")"
check storage-ok-again jq_ok "$T/status.json" "d['storage']['state'] == 'ok'"
hangar status | grep -q '^storage *ok, .*rooms are on this filesystem' ||
  fail "status does not warn that the rooms share the spool's filesystem: $(hangar status)"
check verify hangar ledger verify
grep -q 'exit.json written after' "$S/returned/F1/run/shim.log" 2>/dev/null ||
  note "the supervisor's log: $(cat "$S/returned/F1/run/shim.log" 2>/dev/null)"
((FAILED == 0)) || exit 1
pass
