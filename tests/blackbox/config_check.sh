#!/usr/bin/env bash
# hangar config check (issue 25), as `postfix check`: the shipped config passes; a profile whose
# program is missing, one whose program is not executable, a template with a placeholder hangar
# does not expand, a policy that is not there and an unknown launcher are each named with their
# field, exit 78, and nothing in the spool changes.
. "$(dirname "$0")/lib.sh"
setup 1
rc=0; hangar config check >"$T/ok.out" 2>&1 || rc=$?
check shipped-config-ok test "$rc" = 0
check says-ok grep -q ': ok, [0-9]* profiles, ' "$T/ok.out"
printf '#!/bin/sh\n' >"$T/not-exec.sh" && chmod 644 "$T/not-exec.sh"
python3 - "$S/hangar.conf" "$T" <<'PY'
import json, sys
conf, t = sys.argv[1:]
c = json.load(open(conf))
c["profiles"]["gone"] = {"argv": ["/usr/bin/hangar-no-such-drone"], "prompt": "stdin"}
c["profiles"]["noexec"] = {"argv": [t + "/not-exec.sh"], "prompt": "stdin"}
c["profiles"]["tmpl"] = {"argv": ["/bin/true", "{roomz}/x"], "prompt": "stdin"}
c["policy"] = t + "/no-such-policy.json"
json.dump(c, open(t + "/bad.conf", "w"))
c = json.load(open(conf))
c["profiles"]["engine"] = {"argv": ["/bin/true"], "launcher": "kubernetes"}
json.dump(c, open(t + "/launcher.conf", "w"))
PY
before=$(listing)
rc=0; hangar config check "$T/bad.conf" >/dev/null 2>"$T/bad.err" || rc=$?
check bad-is-78 test "$rc" = 78
check missing-program grep -q 'profiles.gone.argv\[0\]: /usr/bin/hangar-no-such-drone: No such file' "$T/bad.err"
check not-executable grep -q "profiles.noexec.argv\[0\]: $T/not-exec.sh: not executable" "$T/bad.err"
check bad-template grep -q 'profiles.tmpl.argv\[1\]: {roomz} is no placeholder' "$T/bad.err"
check missing-policy grep -q 'policy: cannot read .*no-such-policy.json' "$T/bad.err"
rc=0; hangar config check "$T/launcher.conf" >/dev/null 2>"$T/launcher.err" || rc=$?
check launcher-is-78 test "$rc" = 78
check unknown-launcher grep -q 'profiles.engine.launcher: expected "direct", "systemd" or "slurm"' "$T/launcher.err"
hangar --json config check "$T/bad.conf" >"$T/bad.json" 2>/dev/null || true
check json-lists-them jq_ok "$T/bad.json" "d['ok'] is False and len(d['problems']) == 4"
check spool-unchanged test "$before" = "$(listing)"
((FAILED == 0)) || fail "see above"
pass
