#!/usr/bin/env bash
# hangar policy check FILE [--json]: exit 0 and "FILE: ok, policy v1, N rules (sha256 HEX)" for a
# valid policy (the shipped spool/policy.json among them); 65 with "FILE: FIELD: reason" for an
# invalid one; 66 for a file that is missing or no regular file. No spool and no hangard needed.
. "$(dirname "$0")/lib.sh"
setup
P=$T/policies
mkdir -p "$P"
# run ARGS...: runs bin/hangar, setting rc, out and err.
run() {
  rc=0
  "$BIN/hangar" "$@" >"$T/out" 2>"$T/err" || rc=$?
  out=$(cat "$T/out") err=$(cat "$T/err")
}
expect() {  # expect NAME RC OUT ERR: the last run exited RC and printed exactly OUT and ERR
  if [[ $rc == "$2" && "$out" == "$3" && "$err" == "$4" ]]; then
    say "ok $TEST/$1"
  else
    say "FAIL $TEST/$1: rc $rc (want $2), out '$out' (want '$3'), err '$err' (want '$4')"
    FAILED=1
  fi
}

run policy check "$S/policy.json"
check shipped-valid [ "$rc" = 0 ]
check shipped-line grep -Eq "^$S/policy.json: ok, policy v1, [0-9]+ rules \(sha256 [0-9a-f]{64}\)$" "$T/out"

printf '{"hangar_policy": 1}\n' >"$P/min.json"
run policy check "$P/min.json"
check minimal-valid grep -Eq "^$P/min.json: ok, policy v1, 7 rules \(sha256 [0-9a-f]{64}\)$" "$T/out"
sha_min=$(sed -E 's/.*sha256 ([0-9a-f]+)\)$/\1/' "$T/out")
# The same meaning written otherwise has the same digest; global options may come after.
printf '{"deny_read": ["/root/", "//etc/shadow", "~*/.ssh/", "~*/.gnupg", "~*/.aws", "~*/.azure", "~*/.config//gcloud", "~*/.kube", "~*/.docker/config.json", "~*/.netrc", "~*/.git-credentials", "~*/.codex", "~*/.claude", "~*/.config/gh"], "hangar_policy": 1, "max_minutes": 1440.0}' >"$P/same.json"
run policy check "$P/same.json" --spool "$T/nowhere"
check same-digest grep -q "sha256 $sha_min)" "$T/out"

printf '{"hangar_policy": 1, "acts": {"deny": ["post"], "hold": ["send", "buy", "Pay"]}}' >"$P/bad-verb.json"
run policy check "$P/bad-verb.json"
expect bad-verb 65 '' "hangar: cannot load policy: $P/bad-verb.json: acts.hold[2]: expected a verb of lower-case letters"

printf '{"hangar_policy": 1, "acts": {"deny": ["post"], "hold": ["post"]}}' >"$P/two-lists.json"
run policy check "$P/two-lists.json"
expect two-lists 65 '' "hangar: cannot load policy: $P/two-lists.json: acts.hold[0]: \"post\" is in acts.deny already (a verb goes in one list)"

printf '{"hangar_policy": 1, "text_rules": [{"id": "sns", "verbs": {"en": ["post"]}, "verdict": "deny", "why": "x"}]}' >"$P/deny-text.json"
run policy check "$P/deny-text.json"
expect text-rule-deny 65 '' "hangar: cannot load policy: $P/deny-text.json: text_rules[0].verdict: a text rule can only raise a verdict to hold: \"deny\" is refused (deny an act by its verb in acts.deny)"

printf '{"hangar_policy": 1, "protected_paths": ["etc"]}' >"$P/relative.json"
run policy check "$P/relative.json"
expect relative-path 65 '' "hangar: cannot load policy: $P/relative.json: protected_paths[0]: expected an absolute path (starting with \"/\"), not \"etc\""

printf '{"hangar_policy": 2}' >"$P/v2.json"
run policy check "$P/v2.json"
expect version 65 '' "hangar: cannot load policy: $P/v2.json: hangar_policy: expected 1 (the only policy format version this hangar reads)"

printf 'not json' >"$P/prose.json"
run policy check "$P/prose.json"
check not-json [ "$rc" = 65 ]

run policy check "$P/missing.json"
expect missing 66 '' "hangar: cannot read policy $P/missing.json: No such file or directory"

run policy check "$P"
expect directory 66 '' "hangar: cannot read policy $P: not a regular file"

run policy check
check no-file-argument [ "$rc" = 64 ]

# --json: one document, the same exit status, nothing on stderr.
run --json policy check "$P/bad-verb.json"
check json-bad [ "$rc" = 65 -a -z "$err" ]
check json-bad-doc jq_ok "$T/out" "d == {'file': '$P/bad-verb.json', 'ok': False, 'rules': None, 'sha256': None, 'error': 'cannot load policy: $P/bad-verb.json: acts.hold[2]: expected a verb of lower-case letters'}"
run policy check --json "$P/min.json"
check json-good [ "$rc" = 0 ]
check json-good-doc jq_ok "$T/out" "d == {'file': '$P/min.json', 'ok': True, 'rules': 7, 'sha256': '$sha_min', 'error': None}"
run --json policy check "$P/missing.json"
check json-missing [ "$rc" = 66 ]
check json-missing-doc jq_ok "$T/out" "d['ok'] is False and d['error'].startswith('cannot read policy')"
finish
