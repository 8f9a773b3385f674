#!/usr/bin/env bash
# return.json records what was observed: the declaration (content and sha256), the last message
# and stdout/stderr hashes, the done-checks, times and the exit, for a drone that says things.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mission rec script 1 '[{"file":"REPORT.md"},{"run":["test","-s","REPORT.md"],"rc":0,"timeout_s":10}]' \
  'declare will=report will_not=network ops= external_acts=' 'write REPORT.md hello' 'fail a warning' \
  'say all tests pass' | drop rec.json
wait_returned rec 20
r=$S/returned/rec/return.json
sha() { sha256sum "$1" | cut -d' ' -f1; }
check outcome-done jq_ok "$r" "d['outcome'] == 'done' and d['done_checks']['passed'] is True and len(d['done_checks']['results']) == 2"
check declaration jq_ok "$r" "d['declaration']['valid'] is True and d['declaration']['content']['will'] == ['report'] and d['declaration']['sha256'] == '$(sha "$S/rooms/rec/DECLARATION.json")'"
check last-message jq_ok "$r" "d['files']['last_message']['sha256'] == '$(sha "$S/returned/rec/run/last-message.txt")'"
check last-message-text test "$(cat "$S/returned/rec/run/last-message.txt")" = "all tests pass"
check stdout jq_ok "$r" "d['files']['stdout']['sha256'] == '$(sha "$S/returned/rec/run/stdout")'"
check stderr-kept grep -qx 'a warning' "$S/returned/rec/run/stderr"
check exit jq_ok "$r" "d['exit'] == {'rc': 0, 'signal': None, 'timed_out': False, 'cancelled': False, 'error': None}"
check times jq_ok "$r" "all(d['times'][k] for k in ('accepted', 'started', 'ended', 'returned'))"
check report-hash jq_ok "$r" "[e['sha256'] for e in d['room']['manifest'] if e['path'] == 'REPORT.md'] == ['$(sha "$S/rooms/rec/REPORT.md")']"
finish
