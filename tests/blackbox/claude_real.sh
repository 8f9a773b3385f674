#!/usr/bin/env bash
# Claude Code (@anthropic-ai/claude-code, pinned, installed test-locally by scripts/install-claude)
# as a drone, offline, against tests/model-server/messages_server.py playing a script: a
# well-behaved session (declaration, a file, one op through the window) returns done with its
# stream-json result kept apart as harness_reported; a session whose model call fails ends with
# the result's is_error, which makes the outcome failed. All run in network "egress": the model
# is reached only through hangar's proxy, and the return lists that connection. A session whose
# model has it curl another 127.0.0.1 port, a name that resolves to 127.0.0.1, the cloud metadata
# address and an unlisted host is refused each time (listed; the internal service on the host
# sees no request). No hangar approve anywhere.
. "$(dirname "$0")/lib.sh"
need_landlock  # network "egress" and hidden paths that stay hidden need it
command -v bwrap >/dev/null || skip "bubblewrap not installed (scripts/install-deps installs it)"
need_agent_cli CLAUDE claude
setup 3
http_servers  # INTERNAL: a service on the host's loopback no drone may reach
op='{"op":"post.message","args":{"text":"hi"},"key":"k1"}'
python3 - "$T" "$op" <<'PY'
import json, sys
t, op = sys.argv[1:]
decl = ('printf %s \'{"will":["write REPORT.md"],"will_not":[],"ops":["post.message"],'
        '"external_acts":["post.message"]}\' > DECLARATION.json')
ask = ("mkdir -p ops && printf %%s '%s' > ops/.a1.tmp && mv ops/.a1.tmp ops/a1.json && "
       "for i in $(seq 200); do [ -f ops/a1.result.json ] && break; sleep 0.05; done; "
       "cat ops/a1.result.json" % op)
json.dump([{"bash": decl}, {"bash": "echo written > REPORT.md"}, {"bash": ask},
           {"text": "REPORT.md written"}], open(t + "/good.script.json", "w"))
# A tool the session does not offer: the server answers 400 and the session ends in error.
json.dump([{"tool": "NoSuchTool", "input": {}}], open(t + "/broken.script.json", "w"))
PY
python3 - "$T" "$INTERNAL" <<'PY'
import json, sys
t, internal = sys.argv[1:]
c = "c() { curl -s -m 5 -o /dev/null -w '%{http_code}' \"$@\" || true; }; "
curls = (c + "c http://127.0.0.1:%s/ >internal.code; c -p http://localhost:%s/ >localhost.code; "
         "c http://169.254.169.254/latest/meta-data/ >metadata.code; "
         "c -p https://unlisted.invalid/ >unlisted.code" % (internal, internal))
json.dump([{"bash": curls}, {"bash": "echo checked > REPORT.md"}, {"text": "checked"}],
          open(t + "/net.script.json", "w"))
PY
for name in good broken net; do
  "$PY" "$ROOT/tests/model-server/messages_server.py" --script "$T/$name.script.json" \
    --log "$T/$name.server.log" --port-file "$T/$name.port" >"$T/$name.server.out" 2>&1 &
  echo $! >>"$T/servers"
done
trap 'kill $(cat "$T/servers") $HTTP_PIDS 2>/dev/null || true; cleanup' EXIT
for name in good broken net; do
  wait_until 10 test -s "$T/$name.port" || fail "the model server for $name did not start: $(cat "$T/$name.server.out")"
done
cat >"$T/policy.json" <<JSON
{"hangar_policy": 1, "network": {"allow": ["none", "egress"]},
 "ops": {"allow": ["post.message"], "unknown": "deny"},
 "env_allow": {"claude-good": ["ANTHROPIC_API_KEY"], "claude-broken": ["ANTHROPIC_API_KEY"],
               "claude-net": ["ANTHROPIC_API_KEY"]}}
JSON
python3 - "$S/hangar.conf" "$T" "$CLAUDE" "$INTERNAL" <<'PY'
import json, sys
conf, t, claude, internal = sys.argv[1:]
c = json.load(open(conf))
c["policy"] = t + "/policy.json"
for name in ("good", "broken", "net"):
    port = open("%s/%s.port" % (t, name)).read().strip()
    c["profiles"]["claude-" + name] = {
        "harness": "claude", "program": claude, "allowed_tools": ["Bash", "Write", "Read"],
        "env": {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
                "ANTHROPIC_BASE_URL": "http://127.0.0.1:" + port, "ANTHROPIC_API_KEY": "dummy",
                "CLAUDE_CODE_MAX_RETRIES": "1"},
        # Its model, and nothing else, through hangar's proxy (network "egress"); the net
        # session's profile also lists a name that resolves to 127.0.0.1, refused once resolved.
        "egress": ["127.0.0.1:" + port] + (["localhost:" + internal] if name == "net" else [])}
c["ops"] = {"post.message": {"argv": ["/bin/sh", "-c", "cat >/dev/null; echo ran >>%s/runs" % t]}}
json.dump(c, open(conf, "w"))
PY
start_hangard
for name in good broken net; do
  python3 -c 'import json,sys; print(json.dumps({"hangar": 1, "id": "CL-" + sys.argv[1], "requester": "blackbox", "drone": "claude-" + sys.argv[1], "future": "REPORT.md exists", "now": "a test", "max_minutes": 2, "network": "egress", "ops": ["post.message"], "done_when": [{"file": "REPORT.md"}]}))' "$name" |
    drop "CL-$name.json"
done
wait_returned CL-good 120
wait_returned CL-broken 120
wait_returned CL-net 120
R() { echo "$S/returned/$1/return.json"; }
jq_ok "$(R CL-good)" "d['outcome'] == 'done' and d['verdict']['verdict'] == 'allow' and d['ops']['answered'][0]['status'] == 'executed'" ||
  fail "CL-good: $(jget "$(R CL-good)" "[d['outcome'], d['reason'], d['verdict'], d['ops']]")"
jq_ok "$(R CL-good)" "d['harness_reported']['harness'] == 'claude' and d['harness_reported']['report']['is_error'] is False and [u['name'] for u in d['harness_reported']['report']['tool_uses']] == ['Bash', 'Bash', 'Bash']" ||
  fail "CL-good harness report: $(jget "$(R CL-good)" "d['harness_reported']")"
[[ $(wc -l <"$T/runs") == 1 ]] || fail "the op ran $(wc -l <"$T/runs") times"
# Its model reached only through hangar's proxy: the connection is the proxy's record.
good_port=$(cat "$T/good.port")
jq_ok "$(R CL-good)" "any(c['asked'] == '127.0.0.1:$good_port' and c['verdict'] == 'allowed' for c in d['connections']['list'])" ||
  fail "CL-good: its model connection is not listed: $(jget "$(R CL-good)" "d['connections']")"
jq_ok "$(R CL-broken)" "d['outcome'] == 'failed' and d['harness_reported']['report']['is_error'] is True" ||
  fail "CL-broken: $(jget "$(R CL-broken)" "[d['outcome'], d['reason'], d['harness_reported']]")"
# The refusals: curl's codes in the room, the proxy's records in the return, nothing at the
# internal service.
r=$S/rooms/CL-net
[[ "$(cat "$r/internal.code" 2>/dev/null)" == 403 && "$(cat "$r/metadata.code" 2>/dev/null)" == 403 &&
  "$(cat "$r/localhost.code" 2>/dev/null)" == 000 && "$(cat "$r/unlisted.code" 2>/dev/null)" == 000 ]] ||
  fail "CL-net: curl got $(cat "$r"/*.code 2>/dev/null | tr '\n' ' ')(expected 403 403 000 000 in internal, metadata, localhost, unlisted order)"
jq_ok "$(R CL-net)" "d['outcome'] == 'done' and {(c['asked'], c['rule']) for c in d['connections']['list'] if c['verdict'] == 'refused'} >= {('127.0.0.1:$INTERNAL', 'egress.unlisted'), ('localhost:$INTERNAL', 'egress.internal'), ('169.254.169.254:80', 'egress.unlisted'), ('unlisted.invalid:443', 'egress.unlisted')}" ||
  fail "CL-net: $(jget "$(R CL-net)" "[d['outcome'], d['connections']]")"
[[ "$(grep -c 'HTTP/1' "$T/internal.log")" == 0 ]] || fail "the internal service was reached: $(cat "$T/internal.log")"
pass
