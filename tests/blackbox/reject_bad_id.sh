#!/usr/bin/env bash
# An id outside [A-Za-z0-9][A-Za-z0-9._-]{0,63} is rejected, naming "id".
. "$(dirname "$0")/lib.sh"
setup
start_hangard
i=0
for bad in '-dash' '../escape' 'a/b' '.hidden' '' 'has space' "$(printf 'x%.0s' {1..65})"; do
  i=$((i + 1))
  mutated "x" "m['id'] = $(json_str "$bad")" | drop_tmp "bad-id-$i"
  reject_case "id$i" "bad-id-$i" id 'id|expected|A-Za-z'
done
finish
