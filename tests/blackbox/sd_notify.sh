#!/usr/bin/env bash
# What hangard tells systemd (hangard(8) SYSTEMD), without systemd: this test listens on
# NOTIFY_SOCKET itself. STATUS=running and READY=1 at start, WATCHDOG=1 every half WATCHDOG_USEC
# (never more often) and none when WATCHDOG_PID names another process, STATUS= when the ledger
# fails closed and when a reanchor ends it, STATUS=stopping and STOPPING=1 at SIGTERM.
. "$(dirname "$0")/lib.sh"
setup 1
SOCK=$T/notify
NLOG=$T/notify.log
# The listener: one line per datagram, "MONOTONIC_SECONDS TEXT" (a newline in TEXT as \n); it ends
# by itself after 30 s without a datagram, or when stopped by its pid.
python3 - "$SOCK" "$NLOG" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(30)
with open(sys.argv[2], "a") as log:
    while True:
        try:
            d = s.recv(4096)
        except socket.timeout:
            break
        log.write("%.3f %s\n" % (time.monotonic(), d.decode().replace("\n", "\\n")))
        log.flush()
PY
LPID=$!
stop_listener() { [[ -z "$LPID" ]] || { kill "$LPID" 2>/dev/null || true; wait "$LPID" 2>/dev/null || true; LPID=''; }; }
trap 'stop_listener; cleanup' EXIT
wait_until 5 test -S "$SOCK" || fail "the listener did not bind $SOCK"
: >"$NLOG"

said() { grep -q -F -x -- "$1" <(cut -d' ' -f2- "$NLOG"); }
pings() { grep -c ' WATCHDOG=1$' "$NLOG" || true; }
four_pings() { (($(pings) >= 4)); }
# The datagrams other than pings, one per line, in order.
states() { cut -d' ' -f2- "$NLOG" | grep -v -x 'WATCHDOG=1' || true; }

NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=1000000 start_hangard
wait_until 5 said READY=1 || fail "no READY=1: $(cat "$NLOG")"
mission N1 true 1 '' 'nothing to do' | drop N1.json
wait_returned N1 20
kill -HUP "$HPID"
wait_until 10 four_pings || fail "fewer than 4 WATCHDOG=1 in 10 s: $(cat "$NLOG")"
# Every half interval (0.5 s), never more often: the loop turns far more often than that.
gaps=$(grep ' WATCHDOG=1$' "$NLOG" | awk 'NR > 1 && $1 - t < 0.45 { print $1 - t } { t = $1 }')
[[ -z "$gaps" ]] || fail "WATCHDOG=1 less than half an interval after the last: $gaps s"
stop_hangard TERM
want=$'STATUS=running\nREADY=1\nSTATUS=stopping; running drones are left to their supervisors\nSTOPPING=1'
[[ "$(states)" == "$want" ]] || fail "first run said: $(states)"

# WATCHDOG_PID of another process: its pings, not ours. An empty anchor mount: failed closed.
: >"$NLOG"
mkdir -p "$T/empty-mount"
A=$T/empty-mount
NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=1000000 WATCHDOG_PID=1 start_hangard
wait_until 5 said READY=1 || fail "no READY=1 on the second start: $(cat "$NLOG")"
hangar ledger reanchor --why "new anchor disk" >/dev/null || fail "reanchor failed"
wait_until 10 said STATUS=running || fail "no STATUS=running after the reanchor: $(cat "$NLOG")"
sleep 1.5
stop_hangard TERM
(($(pings) == 0)) || fail "pinged though WATCHDOG_PID is not hangard's: $(cat "$NLOG")"
[[ "$(states | head -n 2)" =~ ^STATUS=failed\ closed:\ .*anchor-missing.*\;\ no\ launch,\ op\ or\ grant\ until\ hangar\ ledger\ reanchor$'\n'READY=1$ ]] ||
  fail "second start said: $(states)"
[[ "$(states | tail -n 3)" == $'STATUS=running\nSTATUS=stopping; running drones are left to their supervisors\nSTOPPING=1' ]] ||
  fail "after the reanchor: $(states)"
stop_listener
pass
