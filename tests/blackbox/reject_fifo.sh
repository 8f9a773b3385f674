#!/usr/bin/env bash
# A FIFO dropped into incoming/new is rejected without hangard blocking on it: a valid mission
# dropped after it still returns.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mkfifo "$S/incoming/tmp/a-fifo"
reject_case fifo a-fifo '*' '.'
mission after-fifo true 1 '' 'x' | drop after-fifo
wait_until 20 returned after-fifo && say "ok $TEST/not-blocked" ||
  { say "FAIL $TEST/not-blocked: a mission dropped after the FIFO did not return (state: $(state_of after-fifo))"; FAILED=1; }
finish
