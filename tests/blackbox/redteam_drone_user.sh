#!/usr/bin/env bash
# Red team (issue 17): under a hangard run as root, a drone without capabilities is still uid 0,
# and a root-owned file no deny-read path hides (an ssh host key, a daemon's 0600 file) is
# readable to it by its owner bits; RLIMIT_NPROC binds no process of uid 0. With the config's
# drone_user the supervisor changes to that user before bubblewrap runs: the drone's files in its
# room belong to that uid (stat on the host), a root-only file stays unreadable to it and to its
# done-checks, and 200 forks run at most `limits.processes` at once (counted on the host). Its
# supervisor killed, its drone dies with it: a heartbeat the drone writes stops, and no process of
# the drone's user is left (the change of user cleared the death signal the supervisor's child had
# set, and with engine "namespaces" the sandbox and its drone ran on with no deadline).
# Only a hangard run as root can change users: skipped otherwise.
. "$(dirname "$0")/lib.sh"
[[ "$(id -u)" == 0 ]] || skip "skipped: drone_user needs hangard run as root"
command -v useradd >/dev/null || skip "skipped: useradd missing"
each_engine
setup 2
DRONE_USER="hangar-dr-$$"
passwd_db useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$DRONE_USER" ||
  fail "useradd $DRONE_USER"
teardown_extra() {
  pkill -KILL -u "$DRONE_USER" 2>/dev/null || true
  passwd_db userdel "$DRONE_USER" 2>/dev/null || true
}
DUID=$(id -u "$DRONE_USER")
# The drone's user reaches the rooms directory through the scratch directory (x only), as it must
# reach /var/spool/hangar's parent in production (man hangar.conf.5, drone_user).
chmod 711 "$T"
echo TOPSECRET-ROOT-ONLY >"$T/root-only.txt"
chmod 600 "$T/root-only.txt"
python3 - "$S/hangar.conf" "$T" "$DRONE_USER" <<'PY'
import json, sys
conf, t, user = sys.argv[1:]
c = json.load(open(conf))
c["drone_user"] = user
c["limits"] = {"processes": 64}
c["profiles"]["attack"] = {"argv": ["/bin/sh", t + "/attack.sh"], "prompt": "stdin"}
c["profiles"]["beat"] = {"argv": ["/bin/sh", t + "/beat.sh"], "prompt": "stdin"}
json.dump(c, open(conf, "w"), indent=2)
PY
cat >"$T/attack.sh" <<ATTACK
id -u >uid.txt
cat "$T/root-only.txt" >got.txt 2>>err.txt
grep -E '^Cap(Eff|Bnd)' /proc/self/status >caps.txt
ATTACK
fork_bomb fork-marker-5731 >>"$T/attack.sh"
echo 'while :; do date +%s%N >>beat.txt; sleep 0.1; done' >"$T/beat.sh"
start_hangard
hangar status | grep -q "drones as uid $DUID; processes 64 (RLIMIT_NPROC)" ||
  fail "hangar status does not say the drones' user and limit: $(hangar status | grep limits)"
mission U-attack attack 1 '' 'attack' |
  python3 -c 'import json,sys; m=json.load(sys.stdin); m["done_when"]=[{"run": ["sh", "-c", "id -u; cat '"$T"'/root-only.txt"]}]; print(json.dumps(m))' |
  drop U-attack.json
most=$(most_at_once fork-marker-5731 "$S/rooms/U-attack/forked.txt")
wait_returned U-attack 60
R=$S/rooms/U-attack
check room-files-belong-to-the-drone-user test "$(stat -c %u "$R/uid.txt")" == "$DUID"
check root-only-file-unread test ! -s "$R/got.txt"
check no-capability test "$(cat "$R/caps.txt")" == "$(printf 'CapEff:\t%016d\nCapBnd:\t%016d' 0 0)"
check processes-limited test "$most" -le 64
check processes-ran test "$most" -ge 1
check check-ran-as-the-drone-user grep -qx "$DUID" "$S/returned/U-attack/run/check-1.out"
check check-read-nothing test -z "$(grep -l TOPSECRET "$S/returned/U-attack/run/check-1.out")"
mission U-beat beat 5 '' 'beat' | drop U-beat.json
for _ in $(seq 300); do [[ -s "$S/rooms/U-beat/beat.txt" ]] && break; sleep 0.1; done
[[ -s "$S/rooms/U-beat/beat.txt" ]] || fail "the heartbeat drone did not start (state: $(state_of U-beat))"
kill -KILL "$(jget "$S/running/U-beat/run/shim.json" 'd["shim_pid"]')"
sleep 1
beats=$(wc -l <"$S/rooms/U-beat/beat.txt")
sleep 2
check drone-dies-with-its-supervisor test "$(wc -l <"$S/rooms/U-beat/beat.txt")" == "$beats"
check no-process-of-the-drone-user-left test -z "$(pgrep -u "$DRONE_USER")"
note "drone as uid $DUID: at most $most forked processes at once"
((FAILED == 0)) || exit 1
pass
