#!/usr/bin/env bash
# Text that came from a mission, a request or the ledger reaches a person's terminal escaped
# (hangar(1), under --json): a requester of "x ESC[1A ESC[2K" would erase the row above it, a bidi
# override would reorder the line, U+2028 would start one. `hangar show`, `ls`, `grants`,
# `grants --all`, `ledger show`, `wait` and `status` print no raw control byte (C0 but the newline,
# DEL, C1), no line separator and no bidi control, and show the escaped form (\x1b, \u202e);
# --json stays JSON that gives the text back exactly.
. "$(dirname "$0")/lib.sh"
setup
mkdir -p "$S/hold/H1"
mission H1 true 1 '' 'nothing to do' >"$S/hold/H1/mission.json"
echo '{"hangar":1,"id":"H1","time":"2026-01-01T00:00:00.000Z"}' >"$S/hold/H1/intake.json"
start_hangard
# Its requester and future hold ESC sequences, OSC, C1, U+2028, U+202E.
mutated X1 "m['requester'] = 'x\x1b[1A\x1b[2K'; m['future'] = 'a\x1b]0;pwned\x07b\u2028c\u202ed\x9bz\x7f'" |
  drop X1.json
# Rejected at intake: the drone names no profile, and `ls` shows the drone.
mutated X2 "m['drone'] = 'd\x1b[2Jq'" | drop X2.json
wait_returned X1 20
wait_until 10 test -d "$S/rejected/X2" || fail "X2 not rejected (state: $(state_of X2))"
USER=$'ev\e[2Kil' hangar grant git.push --requester $'r\e[1A\xe2\x80\xaeq' >/dev/null || fail "hangar grant failed"
USER=$'p\e[1Ae' hangar deny H1 --why $'no\e[2J\xe2\x80\xa8way' >/dev/null || fail "hangar deny failed"
wait_until 10 controls_taken || fail "control requests not all taken"
wait_until 10 test -d "$S/denied/H1" || fail "H1 not denied (state: $(state_of H1))"

# raw_free FILE: no byte that steers a terminal (C0 but \n, DEL, C1 as UTF-8 or alone, U+2028,
# U+2029, bidi controls); else prints what was found.
raw_free() {
  python3 - "$1" <<'PY'
import re, sys
b = open(sys.argv[1], "rb").read()
bad = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8-\xae\x8e\x8f]|"
                 rb"\xe2\x81[\xa6-\xa9]|\xd8\x9c")
m = bad.search(b)
if m:
    print("raw %r at byte %d: %r" % (m.group(), m.start(), b[max(0, m.start() - 20):m.end() + 20]))
    sys.exit(1)
# Any byte >= 0x80 must be part of valid UTF-8 (a lone 0x9b is an 8-bit CSI).
try:
    b.decode("utf-8")
except UnicodeDecodeError as e:
    print("not UTF-8: %s" % e)
    sys.exit(1)
PY
}

# shows NAME FILE FIXED...: FILE is free of raw steering bytes and holds every FIXED string.
shows() {
  local name=$1 file=$2 why s
  shift 2
  if ! why=$(raw_free "$file"); then check "$name" false "$why"; return; fi
  for s in "$@"; do
    if ! grep -qF -- "$s" "$file"; then
      check "$name" false "no \"$s\" in: $(cat -v "$file")"
      return
    fi
  done
  check "$name" true
}

hangar show X1 >"$T/show-x1" || fail "hangar show X1 failed"
shows show-requester "$T/show-x1" 'x\x1b[1A\x1b[2K'
shows show-future "$T/show-x1" 'a\x1b]0;pwned\x07b\u2028c\u202ed\u009bz\x7f'
hangar show H1 >"$T/show-h1" || fail "hangar show H1 failed"
shows show-why "$T/show-h1" 'no\x1b[2J\u2028way'
hangar ls >"$T/ls" || fail "hangar ls failed"
shows ls-drone "$T/ls" 'd\x1b[2Jq'
hangar grants >"$T/grants" || fail "hangar grants failed"
# BY is who granted as the OS says (root here); the hostile $USER is only a claim, on the ledger.
shows grants-subject-by "$T/grants" 'requester r\x1b[1A\u202eq' ' root'
hangar grants --all >"$T/grants-all" || fail "hangar grants --all failed"
shows grants-all "$T/grants-all" 'requester r\x1b[1A\u202eq' ' root'
hangar ledger show >"$T/ledger" || fail "hangar ledger show failed"
shows ledger-show "$T/ledger" '\u001b[1A\u202eq' 'ev\u001b[2Kil'
hangar wait H1 >"$T/wait" 2>&1 || true
shows wait "$T/wait" 'no\x1b[2J\u2028way'
hangar status >"$T/status" || fail "hangar status failed"
shows status "$T/status"
# An error names what it was asked, escaped too.
hangar show 'no-such'$'\e''[2K' >"$T/show-err" 2>&1 && fail "hangar show of no mission succeeded"
shows error "$T/show-err" 'no-such\x1b[2K'

# --json: the same text, exactly, read back by a JSON reader.
hangar --json show X1 >"$T/show.json" || fail "hangar --json show X1 failed"
check json-exact jq_ok "$T/show.json" \
  "d['mission']['requester'] == 'x\x1b[1A\x1b[2K' and d['mission']['future'] == 'a\x1b]0;pwned\x07b\u2028c\u202ed\x9bz\x7f'"
hangar --json grants >"$T/grants.json" || fail "hangar --json grants failed"
check json-grants jq_ok "$T/grants.json" \
  "any(g.get('by') == 'root' and g.get('requester') == 'r\x1b[1A\u202eq' for g in d['grants'])"
alive || fail "hangard is not alive"
finish
