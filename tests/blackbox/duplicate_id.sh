#!/usr/bin/env bash
# A second mission with an id already in the spool is rejected as a duplicate (under a fresh id);
# the first mission's directory and room stay byte-identical.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mission dup1 script 1 '[{"file":"REPORT.md"}]' 'write REPORT.md first' | drop first.json
wait_returned dup1 20
snap() { (cd "$S" && find returned/dup1 rooms/dup1 -printf '%p %y %s %m %l\n' | LC_ALL=C sort &&
  find returned/dup1 rooms/dup1 -type f -exec sha256sum {} + | LC_ALL=C sort); }
snap >"$T/first.before"
(cd "$S/rejected" && find . -mindepth 1 -maxdepth 1 -printf '%f\n') >"$T/rejected.before"
mission dup1 script 1 '' 'write REPORT.md second' | drop second.json
wait_until 10 intake_done second.json "$T/rejected.before" || fail "the duplicate did not land in rejected/ within 10 s"
id=$(new_rejected "$T/rejected.before")
[[ "$id" != dup1 ]] || fail "the duplicate was rejected under the first mission's id"
jq_ok "$S/rejected/$id/why.json" "d.get('field') == 'id' and 'duplicate' in d.get('reason', '').lower()" ||
  fail "why.json does not say duplicate id: $(cat "$S/rejected/$id/why.json" 2>/dev/null)"
grep -q 'write REPORT.md second' "$S/rejected/$id/mission.raw" || fail "rejected/$id/mission.raw is not the second drop"
snap >"$T/first.after"
diff -u "$T/first.before" "$T/first.after" >&2 || fail "the first mission changed"
[[ "$(state_of dup1)" == returned ]] || fail "dup1 is in $(state_of dup1)"
alive || fail "hangard is not alive"
pass
