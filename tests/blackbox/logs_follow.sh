#!/usr/bin/env bash
# hangar logs (issue 25): a drone's output, shown while it runs and after. As root and as an
# unprivileged user:
#   logs -f on a drone that prints for 3 s: each line is shown while the drone still runs, and
#     logs exits with the mission's outcome as hangar wait does (1: it failed)
#   --stderr, --tail N; a mission that never ran: 66 (with -f: 1, as wait); an unknown id is 66;
#     --events on a plain drone is 64
#   logs -f across a SIGKILL and a restart of hangard: it goes on and ends with the mission (0)
#   a drone's terminal escape is shown quoted, never sent to the terminal
#   hangar show on the running drone: its pid, elapsed, deadline left, last lines of output
. "$(dirname "$0")/lib.sh"
each_identity
setup 2
# A drone that prints a terminal escape (ESC [31m), and whose stdout file proves it did.
edit_conf "c['profiles']['esc'] = {'argv': ['/bin/sh', '-c', 'printf \"red \\\\033[31mALERT\\\\033[0m\\\\n\"'], 'prompt': 'stdin', 'env': {'PATH': '/usr/bin:/bin'}}"
as_hangard_user
start_hangard

mission L1 script 1 '' 'say tick 1' 'sleep 1.5' 'say tick 2' 'sleep 1.5' 'say tick 3' 'fail on stderr' 'exit 3' | drop L1.json
hangar logs -f L1 >"$T/l1.out" 2>"$T/l1.err" &
LOGS=$!
wait_until 15 grep -qx 'tick 1' "$T/l1.out" || fail "logs -f showed no line within 15 s: $(cat "$T/l1.out" "$T/l1.err")"
check l1/shown-while-running test "$(state_of L1)" = running
hangar show L1 >"$T/show.txt"
check show/running-pid grep -Eq '^pid +[0-9]+ \(the drone\)$' "$T/show.txt"
check show/running-elapsed grep -Eq '^elapsed +[0-9]+s$' "$T/show.txt"
check show/running-deadline grep -Eq '^deadline +[0-9]+s left$' "$T/show.txt"
check show/running-output grep -Eq '^output +tick 1$' "$T/show.txt"
hangar --json show L1 >"$T/show.json"
check show/json-live jq_ok "$T/show.json" "d['live']['pid'] > 0 and d['live']['last_lines'][-1] == 'tick 1'"
rc=0; wait "$LOGS" || rc=$?
check l1/exit-is-the-outcome test "$rc" = 1
check l1/every-line-in-order test "$(cat "$T/l1.out")" = "$(printf 'tick 1\ntick 2\ntick 3')"
check l1/stderr grep -qx 'on stderr' <(hangar logs L1 --stderr)
check l1/tail test "$(hangar logs L1 --tail 1)" = 'tick 3'
check l1/tail-0 test -z "$(hangar logs L1 --tail 0)"
check l1/whole test "$(hangar logs L1 | wc -l)" = 3
rc=0; hangar logs L1 --events >/dev/null 2>"$T/ev.err" || rc=$?
check l1/events-on-plain-is-64 test "$rc" = 64
check l1/events-says-why grep -q 'prints plain text' "$T/ev.err"
rc=0; hangar logs no-such-id >/dev/null 2>&1 || rc=$?
check unknown-id-is-66 test "$rc" = 66
mission L-rej no-such-profile 1 '' 'nothing' | drop L-rej.json
wait_until 10 test -d "$S/rejected/L-rej" || fail "L-rej not rejected (state: $(state_of L-rej))"
rc=0; hangar logs L-rej >/dev/null 2>"$T/rej.err" || rc=$?
check never-ran-is-66 test "$rc" = 66
check never-ran-says-so grep -q 'its drone never ran' "$T/rej.err"
rc=0; hangar logs -f L-rej >/dev/null 2>&1 || rc=$?
check follow-of-rejected-is-1 test "$rc" = 1
# ls: oldest first, several states, the reason of a rejected one, an elapsed column.
hangar ls returned rejected >"$T/ls.txt"
check ls/header grep -Eq '^ID +STATE +AGE +ELAPSED +DRONE +OUTCOME +WHY$' "$T/ls.txt"
check ls/oldest-first test "$(awk 'NR > 1 {print $1}' "$T/ls.txt" | tr '\n' ' ')" = "L1 L-rej "
check ls/rejected-says-why grep -Eq '^L-rej +rejected .*drone: ' "$T/ls.txt"
check ls/elapsed grep -Eq '^L1 +returned +[0-9]+[smhd] +[0-9]+s +script +failed' "$T/ls.txt"
check ls/requester test "$(hangar ls --requester nobody-else | wc -l)" = 1
check ls/json-lines test "$(hangar ls --json-lines returned | wc -l)" = 1

# Across a SIGKILL and restart of hangard.
mission L2 script 1 '' 'say before' 'sleep 4' 'say after' | drop L2.json
hangar logs -f L2 >"$T/l2.out" 2>"$T/l2.err" &
LOGS=$!
wait_until 15 grep -qx before "$T/l2.out" || fail "logs -f L2 showed nothing: $(cat "$T/l2.err")"
stop_hangard KILL
start_hangard
rc=0; wait "$LOGS" || rc=$?
check l2/through-the-restart test "$(cat "$T/l2.out")" = "$(printf 'before\nafter')"
check l2/exit-0-when-done test "$rc" = 0
check l2/done test "$(outcome L2)" = done

mission L3 esc 1 '' 'nothing' | drop L3.json
wait_returned L3 30
hangar logs L3 >"$T/l3.out"
check l3/the-drone-printed-an-escape grep -q $'\e\\[31mALERT' "$S/returned/L3/run/stdout"
check l3/shown-quoted grep -qF 'red \x1b[31mALERT' "$T/l3.out"
check l3/no-raw-escape test "$(grep -c $'\e' "$T/l3.out")" = 0
((FAILED == 0)) || fail "see above"
pass
