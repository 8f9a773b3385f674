#!/usr/bin/env bash
# Workspaces against a hostile submitter and a restart (issue 24). hangard as root (as the shipped
# unit runs it), then as an unprivileged user, with a requester the test creates:
#   the requester names a repository only root can read: intake resolves the ref as the uid that
#     dropped the mission, so it is rejected (field workspace.*), and the secret it holds is in no
#     file of the spool and no room — without that, a root hangard would check it out for the drone
#   a workspace mission queued behind another when hangard is SIGKILLed, the branch it named moved
#     while hangard is down: after the restart it runs on the commit intake resolved (intake.json,
#     launch.json, the change's base), and the drone's checkout holds nothing of the later commit
#   a retried workspace mission goes on in the checkout its first attempt left (the room stays, as
#     for every retry): the second attempt's change holds both attempts' edits, on the same base
#   a drone that leaves a smudge filter in its .git (HEAD on no commit) and is retried: the launch
#     fails naming the .git, and the filter never runs on the host (its proof file is absent)
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git is not installed"
need_user_tools
each_identity
setup 1
SUB=hangar-sub-$$ RA=hangar-ra-$$
group_users "$SUB" "$RA"
SRC=$T/src SECRET=$T/secret MARK="TOPSECRET-$$-$RANDOM"
g() { git -C "$1" -c safe.directory="*" -c user.name=t -c user.email=t@t "${@:2}"; }
mkdir -p "$SRC" "$SECRET"
g "$SRC" init -q -b main
printf 'one\n' >"$SRC/a.txt"
g "$SRC" add -A && g "$SRC" commit -q -m base
BASE=$(g "$SRC" rev-parse HEAD)
g "$SECRET" init -q -b main
printf '%s\n' "$MARK" >"$SECRET/secret.txt"
g "$SECRET" add -A && g "$SECRET" commit -q -m secret
python3 - "$S/hangar.conf" "$T" <<'PY'
import json, sys
conf, t = sys.argv[1], sys.argv[2]
c = json.load(open(conf))
c["profiles"]["look"] = {"argv": ["/bin/sh", t + "/look.sh"], "prompt": "stdin",
                         "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"}}
c["profiles"]["twice"] = {"argv": ["/bin/sh", t + "/twice.sh"], "prompt": "stdin",
                          "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"}}
c["profiles"]["smudge"] = {"argv": ["/bin/sh", t + "/smudge.sh"], "prompt": "stdin",
                           "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"}}
json.dump(c, open(conf, "w"), indent=2)
PY
# Says what it was given: the commit it is on, and whether a file of the later commit is there.
cat >"$T/look.sh" <<'EOF'
git rev-parse HEAD >head.txt
if [ -e later.txt ]; then echo yes >saw-later.txt; fi
exit 0
EOF
# Adds a line to a.txt each attempt; fails the first (no $T/second yet).
cat >"$T/twice.sh" <<EOF
echo "attempt \$HANGAR_ATTEMPT" >>a.txt
[ -e "$T/second" ] || exit 3
EOF
# Leaves its .git ready to run code at the next checkout: HEAD on an unborn branch, a smudge
# filter for every file, the work tree emptied; then fails, to be retried.
cat >"$T/smudge.sh" <<EOF
git config filter.x.smudge 'touch $T/smudge-ran; cat'
mkdir -p .git/info && echo '* filter=x' >.git/info/attributes
echo 'ref: refs/heads/none' >.git/HEAD
rm -f .git/index a.txt
exit 3
EOF
as_hangard_user
chown -R root: "$SECRET" && chmod 0700 "$SECRET"
mkdir -p "$T/bin" && cp "$BIN/hangar" "$T/bin/" && chmod 755 "$T" "$T/bin"
"$ROOT/scripts/spool-permissions" "$S" "$SUB" "${RT_USER:-root}"
start_hangard

ws_mission() {  # ws_mission ID PROFILE GIT REF
  python3 - "$@" <<'PY'
import json, sys
id_, drone, git, ref = sys.argv[1:]
print(json.dumps({"hangar": 1, "id": id_, "requester": "ra", "drone": drone,
                  "future": "look at the repository", "now": "a black-box test",
                  "max_minutes": 1, "workspace": {"git": git, "ref": ref}}))
PY
}
submit_as_ra() { setpriv "--reuid=$RA" "--regid=$RA" --init-groups -- env HOME=/ "$T/bin/hangar" --spool "$S" submit -; }

# 1. A repository the requester cannot read.
ws_mission W-secret look "$SECRET" main | submit_as_ra >/dev/null 2>"$T/secret.err" &&
  fail "hangar submit exited 0 for a mission the kernel rejects"
check secret/submit-says-why grep -q 'rejected as W-secret: workspace' "$T/secret.err"
wait_until 15 test -d "$S/rejected/W-secret" || fail "W-secret not rejected (state: $(state_of W-secret))"
check secret/rejected-on-workspace jq_ok "$S/rejected/W-secret/why.json" "d['field'] in ('workspace.git', 'workspace.ref')"
check secret/never-launched test -z "$(hangar ledger show --kind mission.launched | grep W-secret)"
check secret/not-in-the-spool test -z "$(grep -rl -- "$MARK" "$S" 2>/dev/null)"

# 2. Queued behind a blocker; hangard killed; the branch moved; hangard started again.
mission B-block script 1 '' 'sleep 4' | drop B-block.json
wait_until 15 test -f "$S/running/B-block/launch.json" || fail "B-block is not running (state: $(state_of B-block))"
ws_mission W-moved look "$SRC" main | submit_as_ra >/dev/null || fail "the requester could not submit W-moved"
wait_until 15 test -d "$S/queued/W-moved" || fail "W-moved not queued (state: $(state_of W-moved))"
check moved/intake-resolved jq_ok "$S/queued/W-moved/intake.json" "d['workspace']['commit'] == '$BASE'"
stop_hangard KILL
printf 'later\n' >"$SRC/later.txt"
g "$SRC" add -A && g "$SRC" commit -q -m later
[[ "$(g "$SRC" rev-parse main)" != "$BASE" ]] || fail "the branch did not move"
start_hangard
wait_returned W-moved 60
R=$S/returned/W-moved
check moved/done test "$(outcome W-moved)" = done
check moved/launch-on-intake-commit jq_ok "$R/launch.json" "d['workspace']['commit'] == '$BASE'"
check moved/base jq_ok "$R/return.json" "d['change']['base'] == '$BASE'"
check moved/drone-was-on-base grep -qx "$BASE" "$S/rooms/W-moved/head.txt"
check moved/nothing-of-later test ! -e "$S/rooms/W-moved/saw-later.txt"
check moved/change-is-the-drones jq_ok "$R/return.json" "sorted(f['path'] for f in d['change']['files']) == ['head.txt']"
check moved/no-secret test -z "$(grep -rl -- "$MARK" "$S" 2>/dev/null)"

# 3. A retry goes on in the checkout the first attempt left: the change holds both attempts' lines.
ws_mission W-twice twice "$SRC" "$BASE" | drop W-twice.json
wait_returned W-twice 60
check retry/first-failed test "$(outcome W-twice)" = failed
touch "$T/second" && chmod 644 "$T/second"
hangar retry W-twice >/dev/null || fail "hangar retry W-twice failed"
wait_until 60 jq_ok "$S/returned/W-twice/return.json" "d['attempt'] == 2" || fail "W-twice's attempt 2 did not return (state: $(state_of W-twice))"
R=$S/returned/W-twice/return.json
check retry/second-done jq_ok "$R" "d['outcome'] == 'done'"
check retry/same-base jq_ok "$R" "d['change']['base'] == '$BASE'"
check retry/both-attempts jq_ok "$R" "[(f['path'], f['added']) for f in d['change']['files']] == [('a.txt', 2)]"
check retry/room-kept grep -qx 'attempt 1' "$S/rooms/W-twice/a.txt"

# 4. A retry never runs git in the .git a drone left: its smudge filter does not run on the host.
ws_mission W-smudge smudge "$SRC" "$BASE" | drop W-smudge.json
wait_returned W-smudge 60
hangar retry W-smudge >/dev/null || fail "hangar retry W-smudge failed"
wait_until 60 jq_ok "$S/returned/W-smudge/return.json" "d['attempt'] == 2" || fail "W-smudge's attempt 2 did not return (state: $(state_of W-smudge))"
check smudge/no-filter-ran test ! -e "$T/smudge-ran"
check smudge/launch-failed-naming-git jq_ok "$S/returned/W-smudge/return.json" "d['outcome'] == 'failed' and 'remove $S/rooms/W-smudge/.git' in d['reason']"
((FAILED == 0)) || fail "see above"
pass
