#!/usr/bin/env bash
# Regression: a mission put into incoming/new with link(2) (the other maildir way) raised only
# IN_CREATE and was never taken until a restart. It is taken at once. And the maildir way done
# fast — link, then unlink the tmp name — before hangard looks at the new name: it sees a regular
# file with one link, as a file still being written in place looks, and no close will ever come.
# Without the settle rule it waited for a restart; it is taken once left alone (2 s). hangard is
# stopped (SIGSTOP) across the link and the unlink, so the test sees that case every time.
. "$(dirname "$0")/lib.sh"
setup 1
start_hangard
mission linked script 1 '' 'say hi' >"$S/incoming/tmp/linked.json"
ln "$S/incoming/tmp/linked.json" "$S/incoming/new/linked.json"
rm "$S/incoming/tmp/linked.json"
wait_returned linked 20
[[ "$(outcome linked)" == done ]] || fail "outcome $(outcome linked), expected done"
mission unlinked-first script 1 '' 'say hi' >"$S/incoming/tmp/unlinked-first.json"
kill -STOP "$HPID"
ln "$S/incoming/tmp/unlinked-first.json" "$S/incoming/new/unlinked-first.json"
rm "$S/incoming/tmp/unlinked-first.json"
kill -CONT "$HPID"
wait_returned unlinked-first 20
[[ "$(outcome unlinked-first)" == done ]] || fail "outcome $(outcome unlinked-first), expected done"
pass
