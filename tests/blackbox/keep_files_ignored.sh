#!/usr/bin/env bash
# The shipped spool's .keep files (and any dot name in incoming/new) are not missions: hangard
# leaves them alone and takes in nothing.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
printf 'half written\n' >"$S/incoming/new/.partial"
mission m-keep true 1 '' 'x' | drop m-keep
wait_returned m-keep 20
for d in incoming/tmp incoming/new control/tmp control/new control/bad hold queued running returned \
  denied rejected keys rooms notify; do
  [[ -f "$S/$d/.keep" ]] || fail "$d/.keep is gone"
done
[[ -f "$S/incoming/new/.partial" ]] || fail "incoming/new/.partial was taken"
left=$(find "$S/rejected" "$S/denied" "$S/hold" -mindepth 1 -maxdepth 1 ! -name .keep -printf '%f ')
[[ -z "$left" ]] || fail "dot files were taken in as missions: $left"
pass
