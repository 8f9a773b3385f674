#!/usr/bin/env bash
# Red team (issue 17, attack 2): done-checks ran outside the sandbox, as hangard's user, in the
# room: a submitter's ["/bin/sh","-c",...], a drone-planted ./check.sh, or an innocent
# ["git","status"] after the drone set core.fsmonitor in the room's .git/config read deny-read
# files and the config, and dropped a grant into control/new. Now each check runs in the drone's
# sandbox with the room read-only: as root and as a user, no proof file appears on the host, no
# secret reaches the check's output or the room, nothing lands in control/new, no grant is made;
# and a policy's check_programs denies a check whose program it does not list, at intake.
. "$(dirname "$0")/lib.sh"
each_identity engines
setup 2
mkdir -p "$T/secrets" "$T/etc"
echo TOPSECRET-CHECK >"$T/secrets/key"
python3 - "$S/hangar.conf" "$T" <<'PY'
import json, sys
conf, t = sys.argv[1], sys.argv[2]
c = json.load(open(conf))
c["policy"] = t + "/etc/policy.json"
c["profiles"]["plant"] = {"argv": ["/bin/sh", t + "/plant.sh"], "prompt": "stdin",
                          "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"}}
c["ops"] = {"deploy": {"argv": ["/bin/true"], "env": {"DEPLOY_TOKEN": "TOPSECRET-CONFIG"}}}
json.dump(c, open(t + "/etc/hangar.conf", "w"), indent=2)
json.dump({"hangar_policy": 1, "deny_read": [t + "/secrets", "/etc/shadow"],
           "ops": {"grant": ["deploy"]}}, open(t + "/etc/policy.json", "w"))
PY
# What every hostile check does: read the secrets, write on the host, forge a grant request.
cat >"$T/payload.sh" <<EOF
cat "$T/secrets/key" "$T/etc/hangar.conf"
cat "$T/secrets/key" >"$T/proof-\$HANGAR_MISSION" 2>/dev/null
echo "{\"hangar\":1,\"request\":\"grant\",\"op\":\"deploy\",\"requester\":\"rt\",\"why\":\"x\"}" >"$S/control/new/forged-\$HANGAR_MISSION.json" 2>/dev/null
echo planted >planted 2>/dev/null
EOF
# The drone plants a check script and a git repository whose fsmonitor runs the payload.
cat >"$T/plant.sh" <<EOF
printf '#!/bin/sh\n. "$T/payload.sh"\n' >check.sh && chmod +x check.sh
git init -q . && git config core.fsmonitor "\$PWD/fsmon.sh"
printf '#!/bin/sh\n. "$T/payload.sh" >&2\n' >fsmon.sh && chmod +x fsmon.sh
EOF
as_hangard_user
start_hangard --config "$T/etc/hangar.conf"
with_checks() {
  python3 -c 'import json,sys; m=json.load(sys.stdin); m["done_when"]=json.loads(sys.argv[1]); print(json.dumps(m))' "$1"
}
mission C-shell script 1 '' 'write REPORT.md ok' |
  with_checks "[{\"run\": [\"/bin/sh\", \"-c\", \". $T/payload.sh\"]}]" | drop C-shell.json
mission C-planted plant 1 '' 'plant' | with_checks '[{"run": ["./check.sh"]}]' | drop C-planted.json
mission C-git plant 1 '' 'plant' | with_checks '[{"run": ["git", "status"]}]' | drop C-git.json
for id in C-shell C-planted C-git; do wait_returned "$id" 60; done
for id in C-shell C-planted C-git; do
  out=$(cat "$S/returned/$id/run"/check-*.out 2>/dev/null)
  check "$id/no-secret-read" test -z "$(grep -l TOPSECRET "$S/returned/$id/run"/check-*.out 2>/dev/null)"
  check "$id/no-proof-on-host" test ! -e "$T/proof-$id"
  check "$id/room-read-only" test ! -e "$S/rooms/$id/planted"
  check "$id/the-check-ran" test -n "$out"
done
check no-forged-request test -z "$(ls "$S/control/new")"
check no-grant test -z "$(hangar grants 2>/dev/null | grep deploy || true)"
# check_programs: a check naming an unlisted program is denied at intake; a listed one runs.
python3 - "$T/etc/policy.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["check_programs"] = ["test"]
json.dump(p, open(sys.argv[1], "w"))
PY
stop_hangard
start_hangard --config "$T/etc/hangar.conf"
mission C-unlisted script 1 '' 'write REPORT.md ok' |
  with_checks '[{"run": ["/bin/sh", "-c", "true"]}]' | drop C-unlisted.json
mission C-listed script 1 '' 'write REPORT.md ok' |
  with_checks '[{"run": ["test", "-f", "REPORT.md"]}]' | drop C-listed.json
wait_until 20 test -d "$S/denied/C-unlisted" || fail "C-unlisted not denied (state: $(state_of C-unlisted))"
check unlisted-denied jq_ok "$S/denied/C-unlisted/gate1.json" "d['rules'] == ['checks.program']"
wait_returned C-listed 30
check listed-runs test "$(outcome C-listed)" == done
((FAILED == 0)) || exit 1
pass
