#!/usr/bin/env bash
# Red team: two drones running at once, with the network cut, try to reach each other through
# what a network namespace holds: a TCP port on the loopback (unix sockets, abstract ones too, the
# system-call filter refuses with the network cut). Each drone has a network namespace of its
# own, made for it by its sandbox or made ahead by the shim zygote (root, engine "namespaces":
# launch/shim_zygote.h) and given to one launch only; a namespace given twice, or one shared by
# every drone, would let the caller in, and the listener writes each connection it accepts from
# outside itself into its room. Both first reach a listener of their own (the loopback is up in
# each), so that nothing is proved by a network that is down.
# blackbox-timeout: 240
. "$(dirname "$0")/lib.sh"
each_identity engines
setup 2
mkdir -p "$T/rooms"
PORT=$((20000 + RANDOM % 20000))
edit_conf '
c["rooms"] = t + "/rooms"
env = {"PATH": "/usr/local/bin:/usr/bin:/bin"}
c["profiles"]["listener"] = {"argv": ["/bin/sh", t + "/listen.sh"], "prompt": "stdin", "env": env}
c["profiles"]["caller"] = {"argv": ["/bin/sh", t + "/call.sh"], "prompt": "stdin", "env": env}
'
# The listener: its TCP port, reached once by itself (self.txt), then every other connection
# written to reached.txt until the host says stop.
cat >"$T/listen.sh" <<EOF
exec python3 - <<'PY' 2>>err.txt
import os, select, socket, time
tcp = socket.socket()
tcp.bind(("127.0.0.1", $PORT))
tcp.listen(4)
own = socket.create_connection(("127.0.0.1", $PORT), 2)
tcp.accept()
open("self.txt", "w").write("tcp\n")
end = time.time() + 60
while time.time() < end and not os.path.exists("$T/stop"):
    ready, _, _ = select.select([tcp], [], [], 0.2)
    if ready:
        tcp.accept()
        open("reached.txt", "a").write("tcp\n")
PY
EOF
# The caller: its own loopback works (a listener of its own reached), then the listener's port
# tried for two seconds; reached, it writes connected.txt.
cat >"$T/call.sh" <<EOF
exec python3 - <<'PY' 2>>err.txt
import socket, time
mine = socket.socket()
mine.bind(("127.0.0.1", 0))
mine.listen(1)
socket.create_connection(mine.getsockname(), 2)
mine.accept()
open("self.txt", "w").write("tcp\n")
end = time.time() + 2
while time.time() < end:
    try:
        socket.create_connection(("127.0.0.1", $PORT), 1)
        open("connected.txt", "a").write("tcp\n")
    except OSError as e:
        open("refused.txt", "a").write("tcp " + str(e) + "\n")
    time.sleep(0.1)
open("finished.txt", "w").write("finished\n")
PY
EOF
as_hangard_user
start_hangard
mission listener listener 2 '' 'listen' | drop listener.json
L=$T/rooms/listener
C=$T/rooms/caller
wait_until 30 test -s "$L/self.txt" ||
  fail "the listener did not reach its own listeners: $(cat "$L/err.txt" "$S"/*/listener/run/stderr 2>/dev/null | head -c 600)"
mission caller caller 1 '' 'call' | drop caller.json
wait_returned caller 60
[[ -f "$C/finished.txt" ]] ||
  fail "the caller did not run to its end: $(cat "$C/err.txt" "$S/returned/caller/run/stderr" 2>/dev/null | head -c 600)"
touch "$T/stop"
wait_returned listener 60
check listener-reached-itself test "$(cat "$L/self.txt")" == "tcp"
check caller-reached-itself test "$(cat "$C/self.txt")" == "tcp"
check caller-tried grep -q '^tcp ' "$C/refused.txt"
check no-drone-reached-another test ! -s "$L/reached.txt"
check caller-connected-nowhere test ! -e "$C/connected.txt"
check hangard-alive kill -0 "$HPID"
((FAILED == 0)) || exit 1
pass
