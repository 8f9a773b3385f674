#!/usr/bin/env bash
# A real Claude Code session (@anthropic-ai/claude-code, pinned, offline against
# tests/model-server/messages_server.py) started with the shipped SessionStart hook
# (hangar-resume-hook, as README.md installs it) has the requester's resume pack in its context:
# the model server's log shows the pack, with the work state's Next, in the request Claude Code
# sent. Without HANGAR_REQUESTER the hook says so and the session still starts. The Codex wrapper
# (hangar-codex-resume) puts the same pack before the prompt of the command it runs.
. "$(dirname "$0")/lib.sh"
need_agent_cli CLAUDE claude
setup
start_hangard
mission C-1 script 1 '' 'write REPORT.md ok' |
  python3 -c 'import json,sys; m=json.load(sys.stdin); m["requester"]="agent-c"; print(json.dumps(m))' |
  hangar submit - >/dev/null || fail "could not submit C-1"
wait_returned C-1 30
python3 - "$T/ws.json" <<'PY'
import json, sys
w = {"hangar_memory": 1, "requester": "agent-c", "goal": "keep the parser fixed",
     "decisions": "", "evidence": "", "unresolved": "", "restore": "", "not_doing": "",
     "next": "PLANTED-NEXT-4242: rerun the parser tests", "constraints": "",
     "refs": [{"mission": "C-1", "state": "running"}]}
json.dump(w, open(sys.argv[1], "w"))
PY
hangar memory put --requester agent-c "$T/ws.json" >/dev/null || fail "memory put failed"
echo '[{"text": "I have read the resume pack."}]' >"$T/script.json"
"$PY" "$ROOT/tests/model-server/messages_server.py" --script "$T/script.json" --log "$T/server.log" \
  --log-bodies --port-file "$T/port" >"$T/server.out" 2>&1 &
SERVER=$!
teardown_extra() { kill "$SERVER" 2>/dev/null || true; }
wait_until 10 test -s "$T/port" || fail "the model server did not start: $(cat "$T/server.out")"
cat >"$T/settings.json" <<'JSON'
{"hooks": {"SessionStart": [{"matcher": "startup|resume|compact",
  "hooks": [{"type": "command", "command": "hangar-resume-hook"}]}]}}
JSON
mkdir -p "$T/home" "$T/work"
session() {  # session [ENV...]: one `claude -p` in $T/work with the hook installed
  (cd "$T/work" && env -i PATH="$BIN:/usr/local/bin:/usr/bin:/bin" HOME="$T/home" LANG=C.UTF-8 \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$T/port")" ANTHROPIC_API_KEY=dummy \
    CLAUDE_CODE_MAX_RETRIES=1 DISABLE_TELEMETRY=1 HANGAR_SPOOL="$S" "$@" \
    timeout 120 "$CLAUDE" -p --settings "$T/settings.json" "what next?" </dev/null)
}
session HANGAR_REQUESTER=agent-c >"$T/claude.out" 2>"$T/claude.err" ||
  fail "claude -p failed: $(tail -n 5 "$T/claude.err")"
check session-answered grep -q "I have read the resume pack" "$T/claude.out"
check pack-reached-the-model grep -q "PLANTED-NEXT-4242" "$T/server.log"
check pack-header-reached grep -q "hangar resume pack: requester agent-c" "$T/server.log"
check conflict-reached grep -q "claimed running, observed returned" "$T/server.log"
: >"$T/server.log"
session >"$T/claude2.out" 2>"$T/claude2.err" || fail "claude -p without a requester failed: $(tail -n 5 "$T/claude2.err")"
check no-requester-says-so grep -q "HANGAR_REQUESTER is not set" "$T/server.log"
check no-requester-no-pack sh -c "! grep -q PLANTED-NEXT-4242 '$T/server.log'"
# The Codex wrapper: the pack, then the prompt, as the command's last argument.
HANGAR_SPOOL="$S" PATH="$BIN:$PATH" "$BIN/hangar-codex-resume" --requester agent-c \
  "$PY" -c 'import sys; open(sys.argv[1], "w").write(sys.argv[3])' "$T/codex.prompt" exec "go on" ||
  fail "hangar-codex-resume failed"
check codex-prompt-has-pack grep -q "PLANTED-NEXT-4242" "$T/codex.prompt"
check codex-prompt-ends-with-prompt python3 -c "import sys; sys.exit(0 if open('$T/codex.prompt').read().endswith('\n\ngo on') else 1)"
finish
