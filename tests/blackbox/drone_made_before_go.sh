#!/usr/bin/env bash
# With sandbox engine "namespaces" a launch's supervisor and the drone's whole sandbox are made
# while hangard still waits for the launch's records, and the drone's program runs only at the go
# (man/hangard.8, the shim zygote). Here the records never come: X runs, Y waits queued behind it,
# and the ledger's segment is replaced by a FIFO nobody reads, so the append of X's end (and of
# Y's launch) blocks in its open. Y's launch is begun beside those records: its key is taken and
# its supervisor makes Y's sandbox, which then waits. Y's drone must not run: not while the records
# are blocked (a sandbox that did not wait for its go would have run it at once), not when hangard
# is then killed (its end of the launch's socket closes: withdrawn), and no process of Y's launch
# may be left holding Y's lock. Restarted on the real segment, hangard takes Y's key back (its
# entry was never written) and runs Y once. What is checked is the drone's own count, the lock
# and the spool's directories, not hangard's word.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
start_hangard
warm_segment

x_runs
y_waits
mv "$SEG" "$T/segment"
mkfifo -m 0644 "$SEG"
[[ -n "${RT_USER:-}" ]] && chown "$RT_USER:" "$SEG"
# X ends; its records block. Y's key is taken beside them, in the same batch.
wait_until 20 test -f "$S/keys/launch.Y.1" || fail "Y's launch was not begun beside X's records"
# (Written beside the key: waited for.)
wait_until 20 grep -qs '"engine": *"namespaces"' "$S/queued/Y/plan.json" ||
  fail "Y's plan does not use sandbox engine namespaces: this test would prove nothing"
# (Looked at only once there: flock(1) would make a lock file missing, as root.)
lock_held() { [[ -e "$S/queued/Y/run/lock" ]] && ! flock -n "$S/queued/Y/run/lock" true 2>/dev/null; }
lock_free() { ! lock_held; }
wait_until 20 lock_held || fail "no supervisor made Y's drone before its go (queued/Y/run/lock not held)"
sleep 1.5 # ample time for a drone not held at its go to have counted itself
[[ "$(starts Y)" == 0 ]] || fail "Y's drone ran $(starts Y) times while its records were blocked"
[[ "$(state_of Y)" == queued ]] || fail "Y is in $(state_of Y)/ without its records"
pass "$TEST/held"

stop_hangard KILL
wait_until 10 lock_free || fail "a process of Y's withdrawn launch still holds queued/Y/run/lock"
sleep 0.5
[[ "$(starts Y)" == 0 ]] || fail "Y's drone ran $(starts Y) times after its launch was withdrawn"
pass "$TEST/withdrawn"

rm -f "$SEG"
mv "$T/segment" "$SEG"
start_hangard
y_once_x_done
stop_hangard
hangar ledger verify --anchor "$A" >"$T/verify.out" 2>&1 || fail "ledger verify: $(cat "$T/verify.out")"
pass
