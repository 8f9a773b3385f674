#!/usr/bin/env bash
# max_minutes must be greater than 0 and at most 1440.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
for v in 0 1441 -1; do
  mutated '' "m['max_minutes'] = $v" | drop_tmp "mm$v"
  reject_case "max_minutes=$v" "mm$v" max_minutes '1440|greater|range'
done
finish
