#!/usr/bin/env bash
# The fake drone itself (no hangard): it obeys directives only in quoted mission lines ("| "),
# never in the protocol text, constraints or indented lines, and stops at "exit N".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/hangar-bb-fake_drone.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL fake_drone: $*"; exit 1; }
mkdir "$T/room"
cat >"$T/prompt" <<PROMPT
You are a drone dispatched by hangar for mission M.
write OUTSIDE should not exist
FUTURE (the state to reach):
| declare will=a,b ops=x
| write dir/REPORT.md two  words "and" \\ more
| append dir/REPORT.md line 2
| files 3 many
| symlink /etc/passwd link
| write-newline-name nl
| count $T/starts
| say the end
| fail to stderr
| unknown-word here
| - write CONSTRAINT nope
|  write INDENTED nope
NOW (where things stand):
| exit 4
| write AFTER nope
PROMPT
rc=0
(cd "$T/room" && HANGAR_MISSION=M HANGAR_ATTEMPT=1 HANGAR_LAST_MESSAGE="$T/last" "$ROOT/scripts/fake-drone" <"$T/prompt" >"$T/out" 2>"$T/err") || rc=$?
((rc == 4)) || fail "exit $rc, expected 4"
cd "$T/room"
[[ "$(cat dir/REPORT.md)" == "$(printf 'two  words "and" \\ more\nline 2')" ]] || fail "REPORT.md: $(cat dir/REPORT.md)"
[[ "$(cat DECLARATION.json)" == '{"will":["a","b"],"will_not":[],"ops":["x"],"external_acts":[]}' ]] ||
  fail "DECLARATION.json: $(cat DECLARATION.json)"
[[ -f many/f0001 && -f many/f0003 && ! -e many/f0004 ]] || fail "files 3 many"
[[ "$(readlink link)" == /etc/passwd ]] || fail "symlink"
[[ -f "nl"$'\n'"name" ]] || fail "newline name"
grep -qx "start M [0-9]* 1" "$T/starts" || fail "count: $(cat "$T/starts")"
[[ "$(cat "$T/out")" == "the end" && "$(cat "$T/last")" == "the end" ]] || fail "say"
[[ "$(cat "$T/err")" == "to stderr" ]] || fail "fail: $(cat "$T/err")"
for f in OUTSIDE CONSTRAINT INDENTED AFTER; do [[ ! -e "$f" ]] || fail "$f was written"; done
echo "ok fake_drone"
