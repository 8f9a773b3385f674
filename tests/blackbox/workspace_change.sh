#!/usr/bin/env bash
# Workspaces (issue 24): a mission on a real git repository made here. Its room is a checkout the
# launch made; the drone edits two files and commits one; return.json's change lists the base, the
# one commit, the uncommitted file, and a patch whose sha256 is run/change.patch's and which `git
# apply --check` takes on the base. A hostile drone (git push, git config, .git/hooks, writes into
# the source) changes nothing of the source: its refs, config, hooks and objects are as before.
# A "changed" check fails a mission that touched a path outside its globs; a workspace inside a
# protected path is denied at stage 1; a ref that names nothing is rejected with field and reason;
# hangar patch prints the patch and hangar apply applies it to a clean checkout of the base.
# As root and as an unprivileged user.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git is not installed"
each_identity
setup 2
SRC=$T/src
mkdir -p "$SRC" "$T/prot" "$T/etc"
g() { git -C "$SRC" -c safe.directory="*" -c user.name=t -c user.email=t@t "$@"; }
g init -q -b main
mkdir -p "$SRC/.github" "$SRC/lib"
printf 'alpha\n' >"$SRC/a.txt"; printf 'beta\n' >"$SRC/b.txt"; printf 'ci: yes\n' >"$SRC/.github/ci.yml"
printf 'keep\n' >"$SRC/lib/keep.txt"
g add -A && g commit -q -m base
BASE=$(g rev-parse HEAD)
git -C "$T/prot" init -q && git -C "$T/prot" -c user.name=t -c user.email=t@t commit -q --allow-empty -m p
python3 - "$S/hangar.conf" "$T" <<'PY'
import json, sys
conf, t = sys.argv[1], sys.argv[2]
c = json.load(open(conf))
c["policy"] = t + "/etc/policy.json"
c["profiles"]["edit"] = {"argv": ["/bin/sh", t + "/edit.sh"], "prompt": "both",
                         "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"}}
c["profiles"]["hostile"] = {"argv": ["/bin/sh", t + "/hostile.sh"], "prompt": "stdin",
                            "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"}}
json.dump(c, open(t + "/etc/hangar.conf", "w"), indent=2)
json.dump({"hangar_policy": 1, "protected_paths": [t + "/prot"]}, open(t + "/etc/policy.json", "w"))
PY
# Edits a.txt and commits it; edits b.txt and leaves it; declares; claims another file changed.
cat >"$T/edit.sh" <<'EOF'
set -e
printf 'alpha, edited\n' >>a.txt
git add a.txt && git commit -q -m 'drone: edit a'
printf 'beta, edited\n' >>b.txt
echo '{"will":["edit"],"will_not":[],"ops":[],"external_acts":[]}' >DECLARATION.json
echo "I changed only README.md"
EOF
# Tries every way back into the source, then edits .github/ci.yml (outside its check's globs).
cat >"$T/hostile.sh" <<EOF
git config core.hooksPath /tmp 2>/dev/null
git config --file "$SRC/.git/config" evil.key yes 2>/dev/null
printf '#!/bin/sh\ntouch "$T/hook-ran"\n' >.git/hooks/post-commit 2>/dev/null; chmod +x .git/hooks/post-commit 2>/dev/null
printf '#!/bin/sh\ntouch "$T/hook-ran"\n' >"$SRC/.git/hooks/post-commit" 2>/dev/null
git commit -q --allow-empty -m evil 2>/dev/null
git push -q "$SRC" HEAD:refs/heads/evil 2>/dev/null
git push -q -f "$SRC" HEAD:refs/heads/main 2>/dev/null
echo junk >"$SRC/.git/objects/junk" 2>/dev/null
printf 'owned\n' >>"$SRC/a.txt" 2>/dev/null
printf 'ci: pwned\n' >.github/ci.yml
EOF
as_hangard_user
# What the source is before: every file of its .git with its hash, and its refs.
source_state() { (cd "$SRC" && find .git -type f -print0 | sort -z | xargs -0 sha256sum; git -C "$SRC" -c safe.directory="*" for-each-ref; cat a.txt); }
source_state >"$T/before"
start_hangard --config "$T/etc/hangar.conf"
ws_mission() {  # ws_mission ID PROFILE GIT REF DONE_WHEN
  python3 - "$@" <<'PY'
import json, sys
id_, drone, git, ref, dw = sys.argv[1:]
m = {"hangar": 1, "id": id_, "requester": "blackbox", "drone": drone, "future": "edit the repo",
     "now": "a black-box test", "max_minutes": 1, "workspace": {"git": git, "ref": ref}}
if dw:
    m["done_when"] = json.loads(dw)
print(json.dumps(m))
PY
}
ws_mission W-edit edit "$SRC" main '[{"changed": {"paths": ["a.txt", "b.txt"], "max_files": 2}}]' | drop W-edit.json
ws_mission W-hostile hostile "$SRC" "$BASE" '[{"changed": {"paths": ["*.txt", "lib/*"]}}]' | drop W-hostile.json
ws_mission W-prot edit "$T/prot" HEAD '' | drop W-prot.json
ws_mission W-noref edit "$SRC" no-such-branch '' | drop W-noref.json
for id in W-edit W-hostile; do wait_returned "$id" 60; done
wait_until 10 test -d "$S/denied/W-prot" || fail "W-prot not denied (state: $(state_of W-prot))"
wait_until 10 test -d "$S/rejected/W-noref" || fail "W-noref not rejected (state: $(state_of W-noref))"
R=$S/returned/W-edit/return.json
check edit/done test "$(outcome W-edit)" = done
check edit/base jq_ok "$R" "d['change']['base'] == '$BASE'"
check edit/launch-names-commit jq_ok "$S/returned/W-edit/launch.json" "d['workspace']['commit'] == '$BASE'"
check edit/ledger-names-commit grep -q "$BASE" <(hangar ledger show --kind mission.launched)
check edit/one-commit jq_ok "$R" "[c['subject'] for c in d['change']['commits']] == ['drone: edit a']"
check edit/uncommitted-b jq_ok "$R" "[(u['status'], u['path']) for u in d['change']['uncommitted']] == [('M', 'b.txt')]"
check edit/files jq_ok "$R" "sorted((f['status'], f['path'], f['added'], f['deleted']) for f in d['change']['files']) == [('M', 'a.txt', 1, 0), ('M', 'b.txt', 1, 0)]"
check edit/patch-sha jq_ok "$R" "d['change']['patch']['sha256'] == '$(sha256sum <"$S/returned/W-edit/run/change.patch" | cut -d' ' -f1)'"
check edit/claim-is-not-the-change jq_ok "$R" "'README.md' not in str(d['change']['files'])"
check edit/hangar-files-left-out jq_ok "$R" "not any(f['path'] in ('MISSION.md', 'DECLARATION.json') for f in d['change']['files'])"
check edit/mission-file-was-there test -f "$S/rooms/W-edit/MISSION.md"
hangar show W-edit >"$T/show.txt"
check edit/show-summarises-the-change grep -q '^change *2 files changed (+2 -0), 1 commit, 1 uncommitted; base '"$BASE" "$T/show.txt"
check edit/show-lists-a-file grep -q '^ *M b.txt +1 -0$' "$T/show.txt"
cp -r "$SRC" "$T/take" && git -C "$T/take" checkout -q "$BASE"  # a copy the test's user owns
check edit/applies-on-base git -C "$T/take" apply --check "$S/returned/W-edit/run/change.patch"
check edit/hangar-patch-prints-it cmp -s <(hangar patch W-edit) "$S/returned/W-edit/run/change.patch"
check edit/hangar-apply hangar apply W-edit --to "$T/take"
check edit/applied grep -q 'beta, edited' "$T/take/b.txt"
check edit/apply-refuses-dirty test "$(hangar apply W-edit --to "$T/take" >/dev/null 2>&1; echo $?)" = 65
rc=0; hangar patch W-prot >/dev/null 2>&1 || rc=$?
check patch-of-no-change-is-66 test "$rc" = 66
H=$S/returned/W-hostile/return.json
check hostile/changed-check-fails test "$(outcome W-hostile)" = failed
check hostile/names-the-path jq_ok "$H" "'.github/ci.yml changed, outside' in d['done_checks']['results'][0]['detail']"
check hostile/room-commit-seen jq_ok "$H" "[c['subject'] for c in d['change']['commits']] == ['evil']"
source_state >"$T/after"
check hostile/source-unchanged cmp -s "$T/before" "$T/after"
check hostile/no-hook-ran test ! -e "$T/hook-ran"
check prot/denied-stage1 jq_ok "$S/denied/W-prot/gate1.json" "'workspace.protected' in d['rules']"
check noref/field jq_ok "$S/rejected/W-noref/why.json" "d['field'] == 'workspace.ref' and 'no-such-branch' in d['reason']"
((FAILED == 0)) || fail "see above"
pass
