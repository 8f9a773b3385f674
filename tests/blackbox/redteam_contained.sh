#!/usr/bin/env bash
# Red team (issue 17): attacks the earlier red team found contained, kept contained, as root and
# as a user, each judged on the host:
#   host processes   read the environment of a host process of the same uid (its secret) through
#                    /proc, or attach to it: the drone's pid namespace shows none of them
#   the deadline     a drone that leaves its session (setsid), ignores SIGTERM and forks 200
#                    processes is stopped at its deadline (timed_out), and none of its processes
#                    outlives it (counted on the host)
#   symlink loops    links to each other and to themselves in the room: the return is written,
#                    each link recorded as a link, never followed
. "$(dirname "$0")/lib.sh"
each_identity engines
setup 2
edit_conf '
c["profiles"]["attack"] = {"argv": ["/bin/sh", t + "/attack.sh"], "prompt": "stdin"}
c["profiles"]["loops"] = {"argv": ["/bin/sh", t + "/loops.sh"], "prompt": "stdin"}
'
cat >"$T/attack.sh" <<'ATTACK'
cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n' | grep TOPSECRET >got.txt
python3 - <<'PY' 2>>err.txt
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for pid in os.listdir("/proc"):
    if pid.isdigit() and int(pid) != os.getpid():
        libc.ptrace(16, int(pid), 0, 0)  # PTRACE_ATTACH: only the drone's own are there
PY
setsid sh -c 'trap "" TERM; while :; do sleep 0.2; done' deadline-marker-6731 &
ATTACK
fork_bomb deadline-marker-6731 >>"$T/attack.sh"
echo 'sleep 600' >>"$T/attack.sh"
cat >"$T/loops.sh" <<'LOOPS'
ln -s a b; ln -s b a; ln -s self self; mkdir d; ln -s ../d d/up; ln -s /proc/self/root root-link
LOOPS
as_hangard_user
# A host process of the drone's own uid, with a secret in its environment.
"${HANGARD_AS[@]}" env HANGAR_RT_SECRET=TOPSECRET-HOST-ENV sleep 300 &
VICTIM=$!
disown "$VICTIM"  # its end at teardown is no job of this shell's to report
teardown_extra() { kill "$VICTIM" 2>/dev/null || true; }
start_hangard
mission C-attack attack 0.05 '' 'attack' | drop C-attack.json
mission C-loops loops 1 '' 'loops' | drop C-loops.json
wait_returned C-attack 60
wait_returned C-loops 30
sleep 1  # what the deadline's SIGKILL left would show now
R=$S/rooms/C-attack
check host-process-env-unread test ! -s "$R/got.txt"
check host-process-not-traced grep -qx $'TracerPid:\t0' "/proc/$VICTIM/status"
check victim-alive kill -0 "$VICTIM"
check stopped-at-the-deadline test "$(outcome C-attack)" == timed_out
check nothing-outlives-the-deadline test "$(pgrep -f -c deadline-marker-6731 || true)" == 0
check loops-returned test "$(outcome C-loops)" == done
check loops-recorded-as-links jq_ok "$S/returned/C-loops/return.json" \
  "sorted(e['path'] for e in d['room']['manifest'] if e['type'] == 'symlink') == ['a', 'b', 'd/up', 'root-link', 'self']"
check hangard-alive kill -0 "$HPID"
((FAILED == 0)) || exit 1
pass
