#!/usr/bin/env bash
# Regression: a mission put into incoming/new with link(2) (the other maildir way) raised only
# IN_CREATE and was never taken until a restart. It is taken at once.
. "$(dirname "$0")/lib.sh"
setup 1
start_hangard
mission linked script 1 '' 'say hi' >"$S/incoming/tmp/linked.json"
ln "$S/incoming/tmp/linked.json" "$S/incoming/new/linked.json"
rm "$S/incoming/tmp/linked.json"
wait_returned linked 20
[[ "$(outcome linked)" == done ]] || fail "outcome $(outcome linked), expected done"
pass
