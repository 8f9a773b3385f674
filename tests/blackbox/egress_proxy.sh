#!/usr/bin/env bash
# The egress proxy alone (issue 20: bin/hangar-egress, launch/egress_proxy.h), driven as a drone
# in network mode "egress" will drive it: curl on a loopback port that socat forwards to the
# proxy's unix socket. Two HTTP servers on 127.0.0.1 stand for the model's API and an internal
# service. Listed destinations are reached (plain HTTP and CONNECT); an unlisted port, an unlisted
# name, the cloud metadata address, a listed name that resolves to 127.0.0.1, and a method not
# allowed are each refused with 403 and their rule, and the refused ones never reach a server (its
# access log, on the host, has no line for them). Every connection is in the proxy's log.
. "$(dirname "$0")/lib.sh"
setup 0
command -v socat >/dev/null && command -v curl >/dev/null || skip "skipped: socat or curl missing (scripts/install-deps installs them)"
http_servers
FWD=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$T/rules.json" <<JSON
{"allow": ["127.0.0.1:$API", "localhost:$INTERNAL"], "methods": ["GET", "HEAD"]}
JSON
"$BIN/hangar-egress" --socket "$T/egress.sock" --rules "$T/rules.json" --log "$T/connections.jsonl" \
  </dev/null >"$T/egress.out" 2>&1 &
EGRESS_PID=$!
wait_until 5 test -S "$T/egress.sock" || fail "no proxy socket: $(cat "$T/egress.out")"
socat "TCP-LISTEN:$FWD,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$T/egress.sock" </dev/null &
SOCAT_PID=$!
wait_until 5 tcp_listening "$FWD" || fail "socat does not listen on 127.0.0.1:$FWD"
# shellcheck disable=SC2086
teardown_extra() { kill $HTTP_PIDS "$EGRESS_PID" "$SOCAT_PID" 2>/dev/null; }
px=(-s -x "http://127.0.0.1:$FWD")
check plain-listed test "$(curl "${px[@]}" "http://127.0.0.1:$API/index.html")" == "model says hi"
check tunnel-listed test "$(curl "${px[@]}" -p "http://127.0.0.1:$API/index.html")" == "model says hi"
# refused WHAT RULE CURL_ARGS...: 403 with that rule.
refused() {
  local what=$1 rule=$2
  shift 2
  curl "${px[@]}" -D "$T/h.$what" -o /dev/null "$@" || true  # a refused CONNECT: curl exits 56
  check "refused-$what" grep -qi "^X-Hangar-Rule: $rule" "$T/h.$what"
}
refused unlisted-port egress.unlisted "http://127.0.0.1:$INTERNAL/"
refused unlisted-name egress.unlisted -p "http://evil.invalid:443/"
refused metadata egress.unlisted "http://169.254.169.254/latest/meta-data/"
refused name-to-loopback egress.internal -p "http://localhost:$INTERNAL/"
refused method egress.method -X POST "http://127.0.0.1:$API/"
check internal-never-reached test "$(grep -c 'HTTP/1' "$T/internal.log")" == 0  # no request line
check api-saw-two test "$(grep -c '"GET /index.html' "$T/api.log")" == 2
check api-saw-no-post test "$(grep -c POST "$T/api.log")" == 0
check every-connection-logged test "$(wc -l <"$T/connections.jsonl")" == 7
check log-says-what python3 - "$T/connections.jsonl" "$API" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in rows if r["verdict"] == "allowed"]
assert len(ok) == 2 and all(r["address"] == "127.0.0.1" and r["bytes_down"] > 0 for r in ok), ok
assert {r["rule"] for r in rows if r["verdict"] == "refused"} == \
    {"egress.unlisted", "egress.internal", "egress.method"}, rows
assert all(r["address"] is None for r in rows if r["verdict"] == "refused"), rows
PY
((FAILED == 0)) || exit 1
pass
