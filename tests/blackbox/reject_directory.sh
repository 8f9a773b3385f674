#!/usr/bin/env bash
# A directory renamed into incoming/new is rejected as it is (moved, contents intact).
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mkdir "$S/incoming/tmp/a-dir"
mutated '' 'pass' >"$S/incoming/tmp/a-dir/mission.json"
reject_case directory a-dir '*' '.'
finish
