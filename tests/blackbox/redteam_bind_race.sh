#!/usr/bin/env bash
# Red team (issue 17, attack 3): between the launcher's last look at a write and bubblewrap's bind,
# another process swaps the directory for a symlink to a deny-read directory
# (renameat2(RENAME_EXCHANGE) in a tight loop). Binding by path lost 6 of 54 launches: the secret
# directory was bound read-write. Binds are now made from a descriptor opened with no link
# allowed on the way, so in 200 launches (as root and as a user) the drone never reads the secret
# nor writes beside it; each mission is denied at intake, refused at launch, or bound to the real
# directory. RACE_TRIES sets the count.
# blackbox-timeout: 400
. "$(dirname "$0")/lib.sh"
each_identity engines
setup 2
TRIES=${RACE_TRIES:-200}
mkdir -p "$T/secrets" "$T/w" "$T/rooms"
echo TOPSECRET-RACE >"$T/secrets/key"
ln -s "$T/secrets" "$T/evil"
python3 - "$S/hangar.conf" "$T" <<'PY'
import json, sys
conf, t = sys.argv[1], sys.argv[2]
c = json.load(open(conf))
c["policy"] = t + "/policy.json"
c["profiles"]["attack"] = {"argv": ["/bin/sh", t + "/attack.sh"], "prompt": "stdin"}
json.dump(c, open(conf, "w"), indent=2)
json.dump({"hangar_policy": 1, "deny_read": [t + "/secrets", "/etc/shadow"]},
          open(t + "/policy.json", "w"))
PY
cat >"$T/attack.sh" <<ATTACK
cat "$T/w/key" >got.txt 2>/dev/null
echo "\$HANGAR_MISSION" >"$T/w/pwned-\$HANGAR_MISSION" 2>/dev/null
ATTACK
as_hangard_user
# The swapper: exchanges w (a directory) and evil (a link to the secrets) as fast as it can.
python3 - "$T" <<'PY' &
import ctypes, os, sys, time
t = sys.argv[1].encode()
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
end = time.time() + 300
while time.time() < end and not os.path.exists(sys.argv[1] + "/stop-swapping"):
    libc.renameat2(AT_FDCWD, t + b"/w", AT_FDCWD, t + b"/evil", RENAME_EXCHANGE)
PY
SWAPPER=$!
teardown_extra() { kill "$SWAPPER" 2>/dev/null || true; }
start_hangard
for i in $(seq 1 "$TRIES"); do
  python3 -c 'import json,sys; print(json.dumps({"hangar": 1, "id": sys.argv[1], "requester": "rt",
    "drone": "attack", "future": "race", "now": "a race", "max_minutes": 1,
    "writes": [sys.argv[2] + "/w"]}))' "R$i" "$T" | drop "R$i.json"
done
ended() {
  local n
  n=$(find "$S/returned" "$S/denied" "$S/rejected" -mindepth 1 -maxdepth 1 -type d | wc -l)
  ((n >= TRIES))
}
wait_until 300 ended || fail "only $(find "$S/returned" "$S/denied" -mindepth 1 -maxdepth 1 | wc -l) of $TRIES missions ended"
: >"$T/stop-swapping"
wait "$SWAPPER" 2>/dev/null || true
# (Each count may be 0: grep finding nothing is not an error here.)
bound=$( (grep -l '"outcome": "done"' "$S"/returned/*/return.json 2>/dev/null || true) | wc -l)
refused=$( (grep -l 'a symbolic link changed after the gate judged it' "$S"/returned/*/return.json 2>/dev/null || true) | wc -l)
# bwrap checks after its mount that what it bound is the descriptor's file, and dies if not
# ("Race condition binding dirfd"), or fails to resolve a destination swapped under it;
# hangar-confine's own sandbox (engine "namespaces") clones the path and compares it with the
# descriptor before it binds anything ("it is no longer the file hangar opened").
bwrap_refused=$( (grep -l -e '^bwrap: ' -e 'no longer the file hangar opened' "$S"/returned/*/run/stderr 2>/dev/null || true) | wc -l)
denied=$(find "$S/denied" -mindepth 1 -maxdepth 1 -type d | wc -l)
returned=$(find "$S/returned" -mindepth 1 -maxdepth 1 -type d | wc -l)
other=$((returned - bound - refused - bwrap_refused))
note "$TRIES launches: $bound bound to the real directory, $refused refused by the launcher, $bwrap_refused refused by the sandbox (${ENGINE:-bwrap}), $other failed otherwise, $denied denied at intake"
leaked=$(cat "$S"/rooms/*/got.txt 2>/dev/null | grep -c TOPSECRET-RACE || true)
check never-read test "$leaked" == 0
check never-wrote-beside-the-secret test -z "$(find "$T/secrets" -name 'pwned-*')"
check every-try-ended test "$((returned + denied))" -eq "$TRIES"
((FAILED == 0)) || exit 1
pass
