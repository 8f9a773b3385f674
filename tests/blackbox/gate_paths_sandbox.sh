#!/usr/bin/env bash
# Paths and the sandbox, end to end (man/hangar-policy.5, PATHS and SANDBOX): a mission asking to
# write into a protected directory through a symlink, or by "..", is denied at intake and no drone
# starts; a harmless write outside the room is bound into the sandbox and written; a deny-read
# directory is empty to the drone, and the rest of the machine is read-only to it; a plan passing a
# variable the policy holds (env_hold) waits at stage 2 until a person approves that plan; a write
# whose path turns into a symlink elsewhere after intake is refused at launch, never bound.
. "$(dirname "$0")/lib.sh"
setup 1
mkdir -p "$T/prod" "$T/secrets" "$T/work/ok" "$T/work/real"
echo TOPSECRET >"$T/secrets/key.txt"
ln -s "$T/prod" "$T/work/cfg"
: >"$T/work/out.txt"
cat >"$T/probe.sh" <<EOF2
ls -A "$T/secrets" | wc -l >seen.txt
cat "$T/secrets/key.txt" >>seen.txt 2>/dev/null || echo unreadable >>seen.txt
echo outside 2>/dev/null >"$T/work/stray.txt" || echo readonly >>seen.txt
test -e "$S/hangar.conf" || echo spool-hidden >>seen.txt
echo bound >>"$T/work/out.txt"
EOF2
python3 - "$S/hangar.conf" "$T" <<'PY'
import json, sys
conf, t = sys.argv[1], sys.argv[2]
c = json.load(open(conf))
c["policy"] = t + "/policy.json"
c["profiles"]["proxied"] = dict(c["profiles"]["script"])
c["profiles"]["proxied"]["env"] = dict(c["profiles"]["script"]["env"], HTTPS_PROXY="http://proxy:3128")
c["profiles"]["probe"] = {"argv": ["/bin/sh", t + "/probe.sh"], "prompt": "stdin"}
json.dump(c, open(conf, "w"), indent=2)
json.dump({"hangar_policy": 1, "protected_paths": [t + "/prod"],
           "deny_read": [t + "/secrets", "/etc/shadow"], "env_hold": ["HTTPS_PROXY"]},
          open(t + "/policy.json", "w"))
PY
start_hangard
# probe names no sandbox (bwrap, the built-in default); the shipped spool's profiles name
# hangar-confine's own.
hangar status | grep -Eq "^sandbox +/usr/bin/bwrap for probe; namespaces \(hangar-confine\) for proxied, script, true$" ||
  fail "hangar status does not name the sandbox: $(hangar status)"
# script-profile missions whose lines are fake-drone directives, with extra fields from Python
scripted() {
  local id=$1 py=$2
  shift 2
  mission "$id" script 1 '' "$@" |
    python3 -c 'import json,sys; m=json.load(sys.stdin); exec(sys.argv[1]); sys.stdout.write(json.dumps(m))' "$py"
}
scripted P-link "m['writes'] = ['$T/work/cfg/app.conf']" "count $T/starts" | drop P-link.json
scripted P-dots "m['writes'] = ['$T/work/ok/../../prod/x']" "count $T/starts" | drop P-dots.json
for id in P-link P-dots; do
  wait_until 10 test -d "$S/denied/$id" || fail "$id not denied (state: $(state_of $id))"
  jq_ok "$S/denied/$id/gate1.json" "d['rules'] == ['paths.protected'] and '$T/prod' in d['reason']" ||
    fail "$id gate1.json: $(cat "$S/denied/$id/gate1.json")"
  ! grep -q "start $id " "$T/starts" || fail "a drone started for $id"
done
jq_ok "$S/denied/P-link/gate1.json" "d['writes'] == ['$T/prod/app.conf']" ||
  fail "gate1.json does not give the resolved write: $(cat "$S/denied/P-link/gate1.json")"
mission P-ok probe 1 '' 'probe' |
  python3 -c "import json,sys; m=json.load(sys.stdin); m['writes']=['$T/work/out.txt']; print(json.dumps(m))" |
  drop P-ok.json

# Allowed: one write outside the room. The probe drone (plain sh) reports what it can do.
wait_returned P-ok 30
[[ "$(outcome P-ok)" == done ]] || fail "P-ok outcome $(outcome P-ok)"
[[ "$(cat "$T/work/out.txt")" == bound ]] || fail "the write outside the room: $(cat "$T/work/out.txt")"
[[ "$(cat "$S/rooms/P-ok/seen.txt")" == $'0\nunreadable\nreadonly\nspool-hidden' ]] ||
  fail "inside the sandbox: $(cat "$S/rooms/P-ok/seen.txt")"
[[ ! -e "$T/work/stray.txt" ]] || fail "the drone wrote outside its room and writes"

# env_hold: held at stage 2 for a person, who approves that plan; then it runs.
mission P-proxy proxied 1 '' 'write REPORT.md via proxy' | drop P-proxy.json
wait_until 10 test -d "$S/hold/P-proxy" || fail "P-proxy not held (state: $(state_of P-proxy))"
jq_ok "$S/hold/P-proxy/gate2.json" "d['verdict'] == 'hold' and d['rules'] == ['env.hold'] and len(d['plan_sha256']) == 64" ||
  fail "P-proxy gate2.json: $(cat "$S/hold/P-proxy/gate2.json")"
[[ ! -e "$S/keys/launch.P-proxy.1" ]] || fail "a drone started for the held P-proxy"
hangar ls hold --json | python3 -c 'import json,sys; r={m["id"]: m["rules"] for m in json.load(sys.stdin)}; sys.exit(0 if r.get("P-proxy") == ["env.hold"] else 1)' ||
  fail "hangar ls hold --json does not give P-proxy's rule: $(hangar ls hold --json)"
hangar ls denied | grep -Eq "^P-link +denied .* paths\.protected( |$)" ||
  fail "hangar ls denied does not say why P-link was denied: $(hangar ls denied)"
hangar approve P-proxy --why "the proxy is ours" >/dev/null || fail "hangar approve P-proxy failed"
wait_returned P-proxy 30
[[ "$(outcome P-proxy)" == done ]] || fail "P-proxy outcome $(outcome P-proxy)"

# A write judged harmless at intake whose path becomes a symlink into a protected directory
# before launch: the launcher resolves it again and refuses; nothing is bound, nothing written.
mission P-swap proxied 1 '' "write $T/work/real/x pwned" |
  python3 -c "import json,sys; m=json.load(sys.stdin); m['writes']=['$T/work/real']; print(json.dumps(m))" |
  drop P-swap.json
wait_until 10 test -d "$S/hold/P-swap" || fail "P-swap not held (state: $(state_of P-swap))"
mv "$T/work/real" "$T/work/real.old" && ln -s "$T/prod" "$T/work/real"
hangar approve P-swap >/dev/null || fail "hangar approve P-swap failed"
wait_returned P-swap 30
[[ "$(outcome P-swap)" == failed ]] || fail "P-swap outcome $(outcome P-swap)"
grep -q "now resolves to $T/prod" "$S/returned/P-swap/return.json" ||
  fail "P-swap's return does not say why: $(cat "$S/returned/P-swap/return.json")"
[[ ! -e "$T/prod/x" && ! -e "$S/rooms/P-swap/x" ]] || fail "P-swap wrote"
pass
