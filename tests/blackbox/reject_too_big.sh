#!/usr/bin/env bash
# A mission over 1 MiB is rejected even when it is otherwise valid JSON (a long "now").
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mutated '' 'm["now"] = "x" * (1 << 20)' | drop_tmp big
reject_case over-1MiB big '*' 'MiB|large|big|size'
finish
