#!/usr/bin/env bash
# Red team: a hidden path the host replaces while a drone runs, or creates after its launch. bwrap
# hides a file by a mount over it; useradd, passwd and careful editors write a file by rename(2),
# and the kernel then detaches the mount in the drone's namespace, which reads the new file. A
# hidden path that did not exist at launch had nothing mounted over it at all. With Landlock
# (shell/landlock.h) neither is readable. As root and as a user:
#   replaced      deny_read file, replaced by rename after the drone started: not read
#   created       deny_read directory created after the launch in a home (a directory a user other
#                 than root owns, here nobody's), a key in it: not read
#   beside        a file beside the hidden one, not replaced: read (the drone is not blind)
#   moved         a file moved and linked between directories of the room (git mv, a build's
#                 rename into place): a ruleset that left LANDLOCK_ACCESS_FS_REFER out forbids it
# The drone waits for the host's "go" (a file it can read), then reads; what it read lands in its
# room, on the host.
# blackbox-timeout: 240
. "$(dirname "$0")/lib.sh"
need_landlock
each_identity engines
setup 2
mkdir -p "$T/etc" "$T/secrets" "$T/rooms" "$T/home"
echo OLDSECRET >"$T/secrets/key"
echo BESIDE >"$T/secrets/beside"
edit_conf '
c["policy"] = t + "/etc/policy.json"
c["rooms"] = t + "/rooms"
c["profiles"]["attack"] = {"argv": ["/bin/sh", t + "/attack.sh"], "prompt": "stdin",
                           "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"}}
json.dump({"hangar_policy": 1, "deny_read": [t + "/secrets/key", t + "/home/.aws"]},
          open(t + "/etc/policy.json", "w"))
'
cat >"$T/attack.sh" <<EOF
cat "$T/secrets/key" >>before.txt 2>>err.txt
echo ready >ready.txt
i=0
while [ ! -e "$T/go" ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i + 1)); done
cat "$T/secrets/key" >>got.txt 2>>err.txt
cat "$T/home/.aws/key" >>got.txt 2>>err.txt
cat "$T/secrets/beside" >>beside.txt 2>>err.txt
mkdir -p a b && echo moved >a/f && mv a/f b/f 2>>err.txt && ln b/f a/g 2>>err.txt
echo finished >finished.txt
EOF
as_hangard_user
[[ "$(id -u)" == 0 ]] && chown nobody "$T/home"  # a person's home, whoever runs hangard
start_hangard
mission attacker attack 1 '' 'attack' | drop attacker.json
R=$T/rooms/attacker
ready() { [[ -f "$R/ready.txt" ]]; }
wait_until 60 ready || fail "the drone did not start: $(cat "$S"/*/attacker/run/stderr 2>/dev/null)"
# The host writes as useradd does: a new file renamed over the old; and creates the directory.
echo NEWSECRET >"$T/secrets/key.new"
mv -f "$T/secrets/key.new" "$T/secrets/key"
mkdir "$T/home/.aws"
echo LATERSECRET >"$T/home/.aws/key"
[[ -n "$RT_USER" ]] && chown -R "$RT_USER:" "$T/secrets"
chmod -R a+rX "$T/secrets" "$T/home"
touch "$T/go"
wait_returned attacker 60
[[ -f "$R/finished.txt" ]] || fail "the drone did not run to its end: $(cat "$S/returned/attacker/run/stderr" 2>/dev/null)"
check hidden-at-launch test ! -s "$R/before.txt"
check replaced-not-read bash -c "! grep -q NEWSECRET '$R/got.txt' 2>/dev/null"
check created-not-read bash -c "! grep -q LATERSECRET '$R/got.txt' 2>/dev/null"
check nothing-read test ! -s "$R/got.txt"
check beside-read grep -qx BESIDE "$R/beside.txt"
check moved-and-linked test -f "$R/b/f" -a -f "$R/a/g" -a ! -e "$R/a/f"
if ((FAILED)); then
  note "got.txt: $(head -c 300 "$R/got.txt" 2>/dev/null)"
  note "err.txt: $(head -c 600 "$R/err.txt" 2>/dev/null)"
fi
((FAILED == 0)) || exit 1
pass
