#!/usr/bin/env bash
# A symlink in incoming/new is rejected and not followed, even when it points at a valid mission;
# the file it points at is left as it was.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mutated 'via-link' 'pass' >"$T/target.json"
cp "$T/target.json" "$T/target.orig"
ln -s "$T/target.json" "$S/incoming/tmp/a-link"
reject_case symlink a-link '*' '.'
check target-untouched cmp -s "$T/target.json" "$T/target.orig"
check not-accepted test -z "$(state_of via-link)"
finish
