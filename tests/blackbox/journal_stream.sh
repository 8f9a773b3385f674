#!/usr/bin/env bash
# hangard under the journal (issue 25): when $JOURNAL_STREAM names its stderr, as systemd sets it,
# each line starts with its sd-daemon priority (<6> information, <4> a warning, <3> an error) and
# carries no time of its own, so `journalctl -p err` finds the errors; with JOURNAL_STREAM naming
# another stream (stderr redirected elsewhere), lines keep their time.
. "$(dirname "$0")/lib.sh"
each_identity
setup 1
as_hangard_user
: >"$LOG"
[[ -n "${RT_USER:-}" ]] && chown "$RT_USER:" "$LOG"
JOURNAL_STREAM=$(stat -c '%d:%i' "$LOG") start_hangard
mission J1 script 1 '' 'say hi' | drop J1.json
wait_returned J1 20
check info-prefixed grep -q '^<6>hangard: started on ' "$LOG"
check warning-prefixed grep -q "^<4>hangard: warning: anchor .* is on the spool's filesystem" "$LOG"
check no-time-of-its-own test "$(grep -c '^20[0-9][0-9]-' "$LOG")" = 0
check every-line-prefixed test "$(grep -vc '^<[346]>hangard: ' "$LOG")" = 0
stop_hangard
: >"$LOG"
JOURNAL_STREAM=1:1 start_hangard
check elsewhere-time-kept grep -Eq '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T.* hangard: started on ' "$LOG"
check elsewhere-no-prefix test "$(grep -c '^<[0-9]>' "$LOG")" = 0
((FAILED == 0)) || fail "see above"
pass
