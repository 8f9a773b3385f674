#!/usr/bin/env bash
# Network "egress" (issue 20): a drone in its own network namespace reaches only what its profile
# and mission list, through hangar's proxy, and every connection is in its return. Two HTTP
# servers on the host's 127.0.0.1 stand for the model's API (listed in the profile as that exact
# ip:port) and an internal service. The drone's curl, with nothing but the proxy variables the plan
# sets, reaches the API (plain HTTP and CONNECT) without a person; its requests to the internal
# service's port, to a listed name that resolves to 127.0.0.1, to the cloud metadata address and
# to an unlisted host, and a POST where the profile allows only GET, are refused with their rule; a direct connection (no proxy) gets nowhere.
# The internal service's access log, on the host, has no request. With network "none" nothing gets
# out. As root and as a user.
. "$(dirname "$0")/lib.sh"
need_landlock  # network "egress" and hidden paths that stay hidden need it
each_identity engines
command -v socat >/dev/null && command -v curl >/dev/null || skip "skipped: socat or curl missing (scripts/install-deps installs them)"
setup 2
http_servers
# shellcheck disable=SC2086
teardown_extra() { kill $HTTP_PIDS 2>/dev/null; }
cat >"$T/net.sh" <<NET
c() { curl -s -m 10 -o /dev/null -w '%{http_code}' "\$@" || true; }
curl -s -m 10 "http://127.0.0.1:$API/index.html" >plain.txt
curl -s -m 10 -p "http://127.0.0.1:$API/index.html" >tunnel.txt
c -X POST -d leak=1 "http://127.0.0.1:$API/index.html" >post.code
c "http://127.0.0.1:$INTERNAL/" >internal.code
c -p "http://localhost:$INTERNAL/" >localhost.code
c "http://169.254.169.254/latest/meta-data/" >metadata.code
c -p "https://unlisted.invalid/" >unlisted.code
curl -s -m 3 --noproxy '*' "http://127.0.0.1:$API/index.html" >direct.txt 2>&1; echo \$? >direct.rc
exit 0
NET
edit_conf "c['profiles']['net'] = {'argv': ['/bin/sh', t + '/net.sh'], 'prompt': 'stdin', 'egress': ['127.0.0.1:$API', 'localhost:$INTERNAL'], 'egress_methods': ['GET']}"
as_hangard_user
start_hangard
mk() {  # mk ID NETWORK
  python3 -c 'import json,sys; print(json.dumps({"hangar":1,"id":sys.argv[1],"requester":"t","drone":"net","future":"fetch the page","now":"a test","max_minutes":1,"network":sys.argv[2]}))' "$1" "$2" | drop "$1.json"
}
mk E1 egress
wait_returned E1 60
r=$S/rooms/E1
check no-person-needed test "$(outcome E1)" == done
check plain-through-proxy test "$(cat "$r/plain.txt" 2>/dev/null)" == "model says hi"
check tunnel-through-proxy test "$(cat "$r/tunnel.txt" 2>/dev/null)" == "model says hi"
check post-method-refused test "$(cat "$r/post.code")" == 403
check api-saw-no-post test "$(grep -c '"POST' "$T/api.log")" == 0
check internal-port-refused test "$(cat "$r/internal.code")" == 403
check name-to-loopback-refused test "$(cat "$r/localhost.code")" == 000  # CONNECT refused: curl's 000
check metadata-refused test "$(cat "$r/metadata.code")" == 403
check unlisted-refused test "$(cat "$r/unlisted.code")" == 000
check direct-gets-nowhere grep -qvx 0 "$r/direct.rc"
check internal-never-reached test "$(grep -c 'HTTP/1' "$T/internal.log")" == 0
check api-saw-both test "$(grep -c '"GET /index.html' "$T/api.log")" == 2
check return-lists-connections python3 - "$S/returned/E1/return.json" "$API" "$INTERNAL" <<'PY'
import json, sys
ret = json.load(open(sys.argv[1]))
api, internal = sys.argv[2], sys.argv[3]
rows = ret["connections"]["list"]
got = {(r["asked"], r["verdict"], r["rule"]) for r in rows}
want = {("127.0.0.1:%s" % api, "allowed", None),
        ("127.0.0.1:%s" % internal, "refused", "egress.unlisted"),
        ("localhost:%s" % internal, "refused", "egress.internal"),
        ("169.254.169.254:80", "refused", "egress.unlisted"),
        ("unlisted.invalid:443", "refused", "egress.unlisted"),
        ("127.0.0.1:%s" % api, "refused", "egress.method")}
assert want <= got, (want - got, rows)
assert len([r for r in rows if r["verdict"] == "allowed"]) == 2, rows
assert all(r["address"] is None for r in rows if r["verdict"] == "refused"), rows
PY
mk N1 none
wait_returned N1 60
check none-gets-nothing test ! -s "$S/rooms/N1/plain.txt" -a ! -s "$S/rooms/N1/tunnel.txt"
check none-lists-no-connections jq_ok "$S/returned/N1/return.json" "d['connections'] is None"
((FAILED == 0)) || exit 1
pass
