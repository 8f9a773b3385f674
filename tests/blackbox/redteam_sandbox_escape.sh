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
#   /tmp              write a file in the host's /tmp (read-only)
#   TCP, abstract     connect to a TCP port and an abstract unix socket the host listens on
#                     (a network namespace of its own)
#   hardlink          link a host file into the room (another mount: EXDEV)
#   device node       open a device node outside /dev (a build chroot's): the machine is nodev
#   setuid            leave a setuid or setgid file on the host: in the room (chmod, a file
#                     created with the bit), on its stdout through /proc/self/fd (seccomp: EPERM)
#   descriptors       write beside the room through "..", from each descriptor it inherited (one
#                     opened on the host's mounts leads out of every cover: none is left open)
# blackbox-timeout: 240
. "$(dirname "$0")/lib.sh"
each_identity engines
setup 2
mkdir -p "$T/secrets" "$T/etc" "$T/rooms"
echo TOPSECRET-DENY-READ >"$T/secrets/key"
SOCK=$T/host.sock
ABSTRACT="hangar-rt-$$-$RT_AS"
PORT=$((20000 + RANDOM % 20000))
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
# A device node where no mount says nodev (/dev/null's numbers: harmless when it opens).
[[ "$(id -u)" == 0 ]] && mknod -m 0666 "$T/null-node" c 1 3
cat >"$T/attack.sh" <<EOF
grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status >caps.txt
umount -l "$T/secrets" 2>>err.txt
cat "$T/secrets/key" >>got.txt 2>>err.txt
mount -o remount,bind,rw / 2>>err.txt
echo pwned >"$T/proof-remount" 2>>err.txt
unshare -Urm sh -c 'umount -l "$T/secrets"; cat "$T/secrets/key"; echo x >"$T/proof-nested"' >>got.txt 2>>err.txt
unshare -U true 2>>err.txt && echo "made a nested user namespace" >>got.txt
python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("$SOCK"); s.sendall(b"x")' 2>>err.txt
python3 -c 'import ctypes; p = ctypes.create_string_buffer(120); print("io_uring", ctypes.CDLL(None).syscall(425, 8, p))' >>uring.txt 2>>err.txt
cat "$T/etc/hangar.conf" "$T/etc/policy.json" >>got.txt 2>>err.txt
cat "$T/rooms/victim/victim-secret.txt" >>got.txt 2>>err.txt
ls /proc/1/root/ >/dev/null 2>>err.txt && cat "/proc/1/root$T/secrets/key" >>got.txt 2>>err.txt
echo pwned >"/tmp/hangar-rt-proof-$ABSTRACT" 2>>err.txt
python3 -c 'import socket; s = socket.create_connection(("127.0.0.1", $PORT), 2); s.sendall(b"x")' 2>>err.txt
python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("\0$ABSTRACT"); s.sendall(b"x")' 2>>err.txt
ln "$T/attack.sh" hardlink 2>>err.txt && echo linked >>got.txt
[ -c "$T/null-node" ] && echo x 2>>err.txt >"$T/null-node" && echo "opened a device node" >>got.txt
cp /bin/true suid 2>>err.txt && chmod 4755 suid 2>>err.txt
cp /bin/true sgid 2>>err.txt && chmod g+s sgid 2>>err.txt
python3 -c 'import os; os.close(os.open("made-suid", os.O_CREAT | os.O_WRONLY, 0o6755))' 2>>err.txt
chmod 4755 /proc/self/fd/1 2>>err.txt
for fd in /proc/self/fd/*; do
  for up in .. ../..; do echo pwned >"\$fd/\$up/proof-fd-\${fd##*/}" 2>/dev/null; done
done
kill -9 -1 2>>err.txt
echo finished >finished.txt
EOF
as_hangard_user
# The host's socket servers: a filesystem socket, an abstract one and a TCP port on loopback;
# every connection one accepts leaves a proof file naming it.
python3 - "$SOCK" "$ABSTRACT" "$PORT" "$T/proof-unix" <<'PY' &
import os, select, socket, sys, time
path, abstract, port, proof = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
fs = socket.socket(socket.AF_UNIX)
fs.bind(path)
os.chmod(path, 0o777)
ab = socket.socket(socket.AF_UNIX)
ab.bind("\0" + abstract)
tcp = socket.socket()
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("127.0.0.1", port))
names = {fs: "unix", ab: "abstract", tcp: "tcp"}
for s in names:
    s.listen(4)
end = time.time() + 120
while time.time() < end:
    ready, _, _ = select.select(list(names), [], [], 1)
    for s in ready:
        s.accept()
        open(proof, "a").write(names[s] + "\n")
PY
SERVER=$!
# The servers answer the host itself: each of the three reached once, then the proof emptied.
host_reaches() {
  python3 - "$SOCK" "$ABSTRACT" "$PORT" <<'PY' 2>/dev/null
import socket, sys
for fam, addr in ((socket.AF_UNIX, sys.argv[1]), (socket.AF_UNIX, "\0" + sys.argv[2]),
                  (socket.AF_INET, ("127.0.0.1", int(sys.argv[3])))):
    socket.socket(fam).connect(addr)
PY
}
wait_until 10 host_reaches || fail "the host's socket servers did not come up"
# (The count is taken at each try: the server may record the connections a moment after them.)
proofs_at_least() { test "$(wc -l <"$T/proof-unix" 2>/dev/null || echo 0)" -ge "$1"; }
wait_until 10 proofs_at_least 3 ||
  fail "the host's socket servers did not record the host's own connections"
: >"$T/proof-unix"
teardown_extra() {
  kill "$SERVER" 2>/dev/null || true
  rm -f "/tmp/hangar-rt-proof-$ABSTRACT"
}
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
check no-socket-reached test ! -s "$T/proof-unix"
check no-write-in-host-tmp test ! -e "/tmp/hangar-rt-proof-$ABSTRACT"
check no-write-through-a-descriptor test -z "$(find "$T" -name 'proof-fd-*')"
check no-setuid-file test -z "$(find "$R" "$S/returned/attacker" -perm /6000 2>/dev/null)"
check no-io-uring grep -qx 'io_uring -1' "$R/uring.txt"
check hangard-alive kill -0 "$HPID"
if ((FAILED)); then
  note "got.txt: $(head -c 300 "$R/got.txt" 2>/dev/null)"
  note "err.txt: $(head -c 600 "$R/err.txt" 2>/dev/null)"
fi
((FAILED == 0)) || exit 1
pass
