#!/usr/bin/env bash
# The README's Codex profile on the shipped config and policy, unchanged (issue 20, "shipped
# defaults that work"): the spool's hangar.conf names spool/policy.json, and a mission for the
# profile "codex" that names no network runs unattended — allowed at both stages, never held —
# in network "egress", reaching its model (the offline scripted server on 127.0.0.1, listed in the
# profile as that exact ip:port, as the README says a profile with another base URL does) only
# through hangar's proxy. Side effects on the host: the model server's log has the drone's
# requests, and the room has the file the model told the real Codex CLI to write.
. "$(dirname "$0")/lib.sh"
need_landlock  # network "egress" and hidden paths that stay hidden need it
command -v bwrap >/dev/null || skip "bubblewrap not installed (scripts/install-deps installs it)"
command -v socat >/dev/null || skip "socat not installed (scripts/install-deps installs it)"
need_agent_cli CODEX codex
setup 2
check shipped-config-names-shipped-policy jq_ok "$S/hangar.conf" "d['policy'] == 'policy.json'"
cmp -s "$S/policy.json" "$ROOT/spool/policy.json" || fail "the spool's policy.json is not the shipped one"

python3 -c 'import json; print(json.dumps([{"exec": "echo fixed > REPORT.md"}, {"message": "REPORT.md written"}]))' >"$T/script.json"
"$PY" "$ROOT/tests/model-server/responses_server.py" --script "$T/script.json" --log "$T/server.log" \
  --port-file "$T/port" >"$T/server.out" 2>&1 &
SERVER=$!
# shellcheck disable=SC2329
teardown_extra() { kill "$SERVER" 2>/dev/null; }
wait_until 10 test -s "$T/port" || fail "the model server did not start: $(cat "$T/server.out")"
PORT=$(cat "$T/port")
# The README's profile; only the model's base URL is the offline server's (and so its egress).
edit_conf "c['profiles']['codex'] = {'harness': 'codex', 'program': '$CODEX',
  'args': ['-c', 'model_provider=local', '-c', 'model=gpt-5.5', '-c',
           'model_providers.local={name=\"local\",base_url=\"http://127.0.0.1:$PORT/v1\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\"}'],
  'env': {'PATH': '/usr/local/bin:/usr/bin:/bin', 'OPENAI_API_KEY': 'sk-offline'},
  'egress': ['127.0.0.1:$PORT']}"
start_hangard
check hangard-judges-by-shipped-policy jq_ok "$S/hangard.json" "d['policy']['file'] == '$S/policy.json'"
# The README's mission, with a done-check the room can meet offline.
cat <<'JSON' | drop fix-parse.json
{"hangar": 1, "id": "fix-parse", "requester": "alice", "drone": "codex",
 "future": "REPORT.md says what was fixed", "now": "test_parse fails on empty input",
 "max_minutes": 2, "done_when": [{"file": "REPORT.md"}]}
JSON
wait_returned fix-parse 120
check done-unattended test "$(outcome fix-parse)" == done
check never-held test -z "$(ls "$S/hold")"
check stage1-allowed jq_ok "$S/returned/fix-parse/gate1.json" "d['verdict'] == 'allow'"
check ran-in-egress jq_ok "$S/returned/fix-parse/plan.json" "d['network'] == 'egress' and d['egress']['allow'] == ['127.0.0.1:$PORT']"
check model-reached test "$(grep -c '"/v1/responses"' "$T/server.log")" -ge 2
check model-made-the-file test "$(cat "$S/rooms/fix-parse/REPORT.md" 2>/dev/null)" == fixed
check connections-listed jq_ok "$S/returned/fix-parse/return.json" \
  "len(d['connections']['list']) >= 1 and all(r['asked'] == '127.0.0.1:$PORT' and r['verdict'] == 'allowed' for r in d['connections']['list'])"
hangar ledger show --kind person.approved --json >"$T/approved.json"
check no-person-on-ledger jq_ok "$T/approved.json" "d['entries'] == []"
((FAILED == 0)) || exit 1
pass
