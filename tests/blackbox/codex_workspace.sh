#!/usr/bin/env bash
# The real Codex CLI (pinned, test-local; its model tests/model-server/responses_server.py playing
# a script, offline) on a workspace mission (issue 24): the room is a checkout of a repository the
# test made; the model edits parse.py with codex's apply_patch tool and ends saying it changed only
# README.md. The return's change, computed by hangar in the room after the drone ended, lists
# parse.py and not README.md; the claim stays the drone's (run/last-message.txt,
# harness_reported); the patch applies on the base; the source repository is unchanged.
. "$(dirname "$0")/lib.sh"
need_landlock  # network "egress" and hidden paths that stay hidden need it
command -v bwrap >/dev/null || skip "bubblewrap not installed (scripts/install-deps installs it)"
command -v git >/dev/null || skip "git is not installed"
need_agent_cli CODEX codex
setup 2
SRC=$T/src
mkdir -p "$SRC"
g() { git -C "$SRC" -c safe.directory="*" -c user.name=t -c user.email=t@t "$@"; }
g init -q -b main
printf 'def parse(s):\n    return s.split(",")\n' >"$SRC/parse.py"
printf '# the project\n' >"$SRC/README.md"
g add -A && g commit -q -m base
BASE=$(g rev-parse HEAD)
before=$(cd "$SRC" && find .git -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)

python3 - "$T/model.json" <<'PY'
import json, sys
patch = ("*** Begin Patch\n*** Update File: parse.py\n@@\n def parse(s):\n"
         "-    return s.split(\",\")\n+    return [x.strip() for x in s.split(\",\")]\n*** End Patch\n")
json.dump([{"patch": patch}, {"message": "Done: I changed only README.md."}], open(sys.argv[1], "w"))
PY
"$PY" "$ROOT/tests/model-server/responses_server.py" --script "$T/model.json" --log "$T/server.log" \
  --port-file "$T/port" >"$T/server.out" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; cleanup' EXIT
wait_until 10 test -s "$T/port" || fail "the model server did not start: $(cat "$T/server.out")"

cat >"$T/policy.json" <<JSON
{"hangar_policy": 1, "network": {"allow": ["none", "egress"]},
 "env_allow": {"codex-ws": ["SCRIPTED_API_KEY"]}}
JSON
python3 - "$S/hangar.conf" "$T" "$CODEX" <<'PY'
import json, sys
conf, t, codex = sys.argv[1:]
c = json.load(open(conf))
c["policy"] = t + "/policy.json"
port = open(t + "/port").read().strip()
provider = ('{name="scripted",base_url="http://127.0.0.1:%s/v1",wire_api="responses",'
            'env_key="SCRIPTED_API_KEY"}' % port)
c["profiles"]["codex-ws"] = {
    "harness": "codex", "program": codex,
    "args": ["-c", "model_provider=scripted", "-c", "model=gpt-5.5",
             "-c", "model_providers.scripted=" + provider],
    "env": {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "SCRIPTED_API_KEY": "scripted"},
    "egress": ["127.0.0.1:" + port]}
json.dump(c, open(conf, "w"))
PY
start_hangard
python3 - "$SRC" <<'PY' | drop CW-edit.json
import json, sys
print(json.dumps({"hangar": 1, "id": "CW-edit", "requester": "blackbox", "drone": "codex-ws",
                  "future": "parse() strips spaces", "now": "a black-box test", "max_minutes": 1,
                  "network": "egress", "workspace": {"git": sys.argv[1]},
                  "done_when": [{"changed": {"paths": ["*.py"], "max_files": 1}}]}))
PY
wait_returned CW-edit 90
D=$S/returned/CW-edit R=$S/returned/CW-edit/return.json
check done jq_ok "$R" "d['outcome'] == 'done'"
check base jq_ok "$R" "d['change']['base'] == '$BASE'"
check change-lists-parse jq_ok "$R" "[(f['status'], f['path'], f['added'], f['deleted']) for f in d['change']['files']] == [('M', 'parse.py', 1, 1)]"
check drone-claimed-readme grep -q 'README.md' "$D/run/last-message.txt"
check claim-not-the-change jq_ok "$R" "'README.md' not in json.dumps(d['change'])"
check uncommitted jq_ok "$R" "[u['path'] for u in d['change']['uncommitted']] == ['parse.py'] and d['change']['commits'] == []"
check changed-check-passed jq_ok "$R" "d['done_checks']['results'][0]['passed'] is True"
check edit-in-patch grep -q '^+    return \[x.strip() for x in s.split(",")\]$' "$D/run/change.patch"
cp -r "$SRC" "$T/take"
check applies-on-base git -C "$T/take" -c safe.directory="*" apply --check "$D/run/change.patch"
after=$(cd "$SRC" && find .git -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
check source-unchanged test "$before" = "$after"
check source-worktree-unchanged grep -qx '    return s.split(",")' "$SRC/parse.py"
hangar logs CW-edit --events >"$T/events.txt"
check logs-events-file grep -qx 'file: update .*/CW-edit/parse.py' "$T/events.txt"
check logs-events-message grep -qx 'message: Done: I changed only README.md.' "$T/events.txt"
hangar show CW-edit >"$T/show.txt"
check show-last-message grep -Eq '^message +Done: I changed only README.md.$' "$T/show.txt"
check show-elapsed grep -Eq '^elapsed +[0-9]+s$' "$T/show.txt"
((FAILED == 0)) || fail "see above; return: $(jget "$R" "[d['outcome'], d['reason'], d.get('change'), d['harness_reported']]")"
pass
