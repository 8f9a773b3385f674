#!/usr/bin/env bash
# Red team (issue 17): traps a hostile drone sets for hangard itself, as root and as a user, each
# judged on the host:
#   forged exit     the drone writes a "rc 0" exit record where its supervisor keeps the real one
#                   (it knows the path: the profile hands it {run}), then exits 7: the return says
#                   failed, rc 7, and the run directory holds nothing the drone wrote
#   TIOCSTI         the drone pushes a command line into every terminal it can open (its stdio,
#                   /dev/tty, /dev/pts/*, every descriptor in /proc): hangard runs with a terminal
#                   as its controlling tty, and nothing but the test's own bytes reaches that
#                   terminal's input (a self-test from hangard's session shows an injection would)
#   ops traps       a FIFO as a request (hangard must not block on it), a request that is a
#                   symbolic link to a file only hangard can read (its secret must appear nowhere),
#                   an answer file planted as a symbolic link to a file only hangard can write (it
#                   must stay unwritten): the window still answers the honest request after them
. "$(dirname "$0")/lib.sh"
each_identity engines
setup 3
edit_conf '
c["profiles"]["forger"] = {"argv": ["/bin/sh", t + "/forger.sh"], "prompt": "stdin",
                           "env": {"PATH": "/usr/bin:/bin", "RUN": "{run}"}}
c["profiles"]["tty"] = {"argv": ["/usr/bin/python3", t + "/push.py"], "prompt": "stdin"}
c["profiles"]["opstrap"] = {"argv": ["/bin/sh", t + "/opstrap.sh"], "prompt": "stdin",
                            "env": {"PATH": "/usr/bin:/bin"}}
c["policy"] = t + "/policy.json"
c["ops"] = {"post.message": {"argv": ["/bin/sh", "-c", "cat >>%s/post.runs; echo >>%s/post.runs" % (t, t)],
                             "timeout_s": 10}}
'
cat >"$T/policy.json" <<'JSON'
{"hangar_policy": 1, "ops": {"allow": ["post.message"], "unknown": "deny"}}
JSON
cat >"$T/forger.sh" <<'FORGER'
forged='{"hangar":1,"rc":0,"signal":null,"timed_out":false,"cancelled":false,"started":"2026-01-01T00:00:00.000Z","ended":"2026-01-01T00:00:01.000Z","error":null}'
for f in "$RUN/.forged" "$RUN/exit.json"; do printf '%s' "$forged" >"$f" 2>>err.txt; done
mv "$RUN/.forged" "$RUN/exit.json" 2>>err.txt
exit 7
FORGER
cat >"$T/push.py" <<'TTY'
import fcntl, glob, os, termios
fds = [0, 1, 2]
for p in ["/dev/tty", "/dev/console"] + glob.glob("/dev/pts/*") + glob.glob("/proc/*/fd/*"):
    try:
        fds.append(os.open(p, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK))
    except OSError:
        pass
pushed = 0
for fd in fds:
    try:
        for ch in b"INJECTED-BY-DRONE\n":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
        pushed += 1
    except OSError:
        pass
open("pushed.txt", "w").write("%d of %d\n" % (pushed, len(fds)))
TTY
# The secret only hangard can read and the file only hangard can write sit in the spool, which
# every drone has hidden; the drone names them by path, which is all a symbolic link needs.
SECRET=$S/trap-secret.txt
TARGET=$S/trap-target.txt
echo "TOPSECRET-TRAP-$$" >"$SECRET"
chmod 600 "$SECRET"
echo "untouched" >"$TARGET"
cat >"$T/opstrap.sh" <<OPSTRAP
printf '{"will":[],"will_not":[],"ops":["post.message"],"external_acts":["post.message"]}\n' >DECLARATION.json
mkdir -p ops
mkfifo ops/fifo.json
ln -s "$SECRET" ops/leak.json
ln -s "$TARGET" ops/plant.result.json
printf '{"op":"post.message","args":{"n":"plant"},"key":"kp"}\n' >ops/.p && mv ops/.p ops/plant.json
sleep 0.5
printf '{"op":"post.message","args":{"n":"good"},"key":"kg"}\n' >ops/.g && mv ops/.g ops/good.json
i=0
while [ ! -f ops/good.result.json ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
cat /proc/self/status >status.txt
OPSTRAP
# ttyhold.py OUT CMD...: runs CMD in a new session whose controlling terminal is a fresh pty,
# stdin on it. The session leader first pushes "SELFTEST" with TIOCSTI (what any process of
# hangard's session could do); once CMD has ended, everything in the terminal's input is written
# to OUT. (Bytes written to the master beforehand were once lost in a user pass on a loaded
# machine, so the test's own marker is pushed the same way as an attacker's would be.)
cat >"$T/ttyhold.py" <<'HOLD'
import fcntl, os, pty, sys, termios, tty
out, cmd = sys.argv[1], sys.argv[2:]
master, slave = pty.openpty()
tty.setraw(slave)
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for ch in b"SELFTEST\n":
        fcntl.ioctl(slave, termios.TIOCSTI, bytes([ch]))
    os.dup2(slave, 0)
    os.execv(cmd[0], cmd)
os.waitpid(pid, 0)
os.set_blocking(slave, False)
got = b""
while True:
    try:
        b = os.read(slave, 4096)
    except BlockingIOError:
        break
    if not b:
        break
    got += b
open(out, "wb").write(got)
HOLD
as_hangard_user
apply_engine
"${HANGARD_AS[@]}" "$PY" "$T/ttyhold.py" "$T/tty.out" "$HBIN/hangard" --spool "$S" --anchor "$A" \
  </dev/null >>"$LOG" 2>&1 &
WPID=$!
wait_until 10 jq_ok "$S/hangard.json" "d.get('status') == 'running'" || fail "hangard did not come up under a terminal"
HPID=$(jget "$S/hangard.json" "d['pid']")
mission X-forge forger 1 '' 'forge' | drop X-forge.json
mission X-tty tty 1 '' 'tty' | drop X-tty.json
mission X-ops opstrap 1 '' 'ops' |
  python3 -c 'import json,sys; m=json.load(sys.stdin); m["ops"]=["post.message"]; print(json.dumps(m))' |
  drop X-ops.json
for id in X-forge X-tty X-ops; do wait_returned $id 60; done

check forged-exit-not-believed jq_ok "$S/returned/X-forge/return.json" \
  "d['outcome'] == 'failed' and d['exit']['rc'] == 7"
check forged-exit-not-written test ! -e "$S/returned/X-forge/run/.forged"
check tty-drone-ran test -s "$S/rooms/X-tty/pushed.txt"
check ops-honest-answered jq_ok "$S/rooms/X-ops/ops/good.result.json" "d['status'] == 'executed'"
check ops-handler-ran grep -q good "$T/post.runs"
check ops-fifo-no-hang kill -0 "$HPID"
check ops-planted-answer-unwritten test "$(cat "$TARGET")" == untouched
check ops-planted-answer-left-a-link test -L "$S/rooms/X-ops/ops/plant.result.json"
check ops-secret-nowhere test -z "$(grep -rlF "TOPSECRET-TRAP-$$" "$S" "$A" "$T/post.runs" 2>/dev/null |
  grep -vx "$SECRET")"
stop_hangard
wait "$WPID" 2>/dev/null || true
check tty-selftest-seen grep -q SELFTEST "$T/tty.out"
check tty-nothing-injected test "$(tr -d '\r' <"$T/tty.out")" == SELFTEST
((FAILED == 0)) || exit 1
pass
