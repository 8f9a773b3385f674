#!/usr/bin/env bash
# Each required field (hangar, requester, drone, future, now, max_minutes) missing is rejected,
# naming the field.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
for f in hangar requester drone future now max_minutes; do
  mutated '' "del m['$f']" | drop_tmp "no-$f"
  reject_case "$f" "no-$f" "$f" 'missing'
done
finish
