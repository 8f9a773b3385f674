#!/usr/bin/env bash
# Red team (issue 17): a hostile drone tries to leave its sandbox, with hangard as root (as the
# shipped unit runs it) and as an unprivileged user. Each attack succeeds only by a side effect
# hangar cannot forge: a secret copied into the room, a proof file on the host, a connection
# the host's own socket server records. Contained:
#   capabilities      CapEff/CapPrm/CapBnd/CapAmb all 0 (bwrap as root kept every capability)
#   umount -l         the tmpfs hiding a deny-read directory stays (needs CAP_SYS_ADMIN)
#   remount / rw      then write on the host (needs CAP_SYS_ADMIN)
#   unshare -Urm      a nested user namespace with every capability in it (--disable-userns)
#   unix socket       connect to a filesystem socket of the host with network "none" (seccomp)
#   io_uring          io_uring_setup, which no system-call filter sees through (seccomp)
#   config, policy    read hangard's config (op handlers' credentials) and policy, outside the spool
#   another room      read a file another mission left in its room, rooms outside the spool
#   /proc/1/root      the host's root through pid 1 (a pid namespace of its own)
#   kill -9 -1        signal every process it may (only its own pid namespace)
# blackbox-timeout: 240
. "$(dirname "$0")/lib.sh"
each_identity
setup 2
mkdir -p "$T/secrets" "$T/etc" "$T/rooms"
echo TOPSECRET-DENY-READ >"$T/secrets/key"
SOCK=$T/host.sock
python3 - "$S/hangar.conf" "$T" <<'PY'
import json, sys
conf, t = sys.argv[1], sys.argv[2]
c = json.load(open(conf))
c["policy"] = t + "/etc/policy.json"
c["rooms"] = t + "/rooms"
c["profiles"]["attack"] = {"argv": ["/bin/sh", t + "/attack.sh"], "prompt": "stdin",
                           "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"}}
c["ops"] = {"deploy": {"argv": ["/bin/true"], "env": {"DEPLOY_TOKEN": "TOPSECRET-CONFIG"}}}
json.dump(c, open(t + "/etc/hangar.conf", "w"), indent=2)
json.dump({"hangar_policy": 1, "deny_read": [t + "/secrets", "/etc/shadow"],
           "protected_paths": ["/TOPSECRET-POLICY"]}, open(t + "/etc/policy.json", "w"))
PY
grep -q TOPSECRET-CONFIG "$T/etc/hangar.conf" || fail "the test config has no secret"
cat >"$T/attack.sh" <<EOF
grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status >caps.txt
umount -l "$T/secrets" 2>>err.txt
cat "$T/secrets/key" >>got.txt 2>>err.txt
mount -o remount,bind,rw / 2>>err.txt
echo pwned >"$T/proof-remount" 2>>err.txt
unshare -Urm sh -c 'umount -l "$T/secrets"; cat "$T/secrets/key"; echo x >"$T/proof-nested"' >>got.txt 2>>err.txt
python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("$SOCK"); s.sendall(b"x")' 2>>err.txt
python3 -c 'import ctypes; p = ctypes.create_string_buffer(120); print("io_uring", ctypes.CDLL(None).syscall(425, 8, p))' >>uring.txt 2>>err.txt
cat "$T/etc/hangar.conf" "$T/etc/policy.json" >>got.txt 2>>err.txt
cat "$T/rooms/victim/victim-secret.txt" >>got.txt 2>>err.txt
ls /proc/1/root/ >/dev/null 2>>err.txt && cat "/proc/1/root$T/secrets/key" >>got.txt 2>>err.txt
kill -9 -1 2>>err.txt
echo finished >finished.txt
EOF
as_hangard_user
# The host's socket server: every connection it accepts leaves a proof file.
python3 - "$SOCK" "$T/proof-unix" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(4)
s.settimeout(120)
try:
    c, _ = s.accept()
    open(sys.argv[2], "w").write("connected\n")
except socket.timeout:
    pass
PY
SERVER=$!
teardown_extra() { kill "$SERVER" 2>/dev/null || true; }
start_hangard --config "$T/etc/hangar.conf"
mission victim script 1 '' 'write victim-secret.txt TOPSECRET-OTHER-ROOM' | drop victim.json
wait_returned victim 30
[[ "$(cat "$T/rooms/victim/victim-secret.txt")" == TOPSECRET-OTHER-ROOM ]] ||
  fail "the victim left no secret in its room"
mission attacker attack 1 '' 'attack' | drop attacker.json
wait_returned attacker 60
R=$T/rooms/attacker
[[ -f "$R/finished.txt" ]] || fail "the attacker did not run to its end: $(cat "$S/returned/attacker/run/stderr" 2>/dev/null)"
check capabilities test "$(cat "$R/caps.txt")" == \
  "$(printf 'CapPrm:\t%016d\nCapEff:\t%016d\nCapBnd:\t%016d\nCapAmb:\t%016d' 0 0 0 0)"
check no-secret test ! -s "$R/got.txt"
check no-remount test ! -e "$T/proof-remount"
check no-nested-namespace test ! -e "$T/proof-nested"
check no-unix-socket test ! -e "$T/proof-unix"
check no-io-uring grep -qx 'io_uring -1' "$R/uring.txt"
check hangard-alive kill -0 "$HPID"
if ((FAILED)); then
  note "got.txt: $(head -c 300 "$R/got.txt" 2>/dev/null)"
  note "err.txt: $(head -c 600 "$R/err.txt" 2>/dev/null)"
fi
((FAILED == 0)) || exit 1
pass
