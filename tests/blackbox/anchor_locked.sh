#!/usr/bin/env bash
# One writer per anchor (issue 19, point 5): a second hangard on another spool — a fresh one, or a
# copy of the running one — pointed at the same anchor directory is refused before it writes: its
# exit is non-zero and names the anchor, the anchor file is byte for byte as it was, and the first
# hangard runs on. Once the first has stopped, the anchor is free again for the first; a copy
# started on it then is told apart by the checkpoint's origin (its home) and writes nothing.
. "$(dirname "$0")/lib.sh"
each_identity
setup
as_hangard_user
start_hangard
mission A1 true 1 '' 'nothing' | drop A1.json
wait_returned A1 20
before=$(sha256sum "$A/live.anchor")
mkdir -p "$T/other"
cp -a "$ROOT/spool/." "$T/other/"
cp -a "$S" "$T/copy"
rm -f "$T/copy/hangard.lock" "$T/copy/hangard.json"
for second in "$T/other" "$T/copy"; do
  rc=0
  timeout 10 "$BIN/hangard" --spool "$second" --anchor "$A" </dev/null >"$T/second.out" 2>&1 || rc=$?
  check "refused-$(basename "$second")" test "$rc" != 0 -a "$rc" != 124
  check "says-why-$(basename "$second")" grep -q "another hangard writes this anchor" "$T/second.out"
done
check anchor-unchanged test "$(sha256sum "$A/live.anchor")" == "$before"
check first-alive kill -0 "$HPID"
mission A2 true 1 '' 'nothing' | drop A2.json
wait_returned A2 20
check first-still-works test "$(outcome A2)" == done
stop_hangard

# Not at once but after: the copy started on the anchor while the original is stopped. It extends
# the same ledger, so only its home (the checkpoint's origin) tells it apart: it starts failed
# closed, launches nothing, and writes no line on the original's anchor.
before=$(sha256sum "$A/live.anchor")
cp -a "$S" "$T/copy2"
rm -f "$T/copy2/hangard.lock" "$T/copy2/hangard.json"
orig=$S
S=$T/copy2
mission A3 true 1 '' 'nothing' | drop A3.json
start_hangard
check copy-fails-closed jq_ok "$S/hangard.json" \
  "d['ledger']['state'] == 'fail-closed' and 'vouches for the ledger kept at' in d['ledger']['reason']"
wait_until 10 test -d "$S/queued/A3" || fail "A3 not taken in by the copy (state: $(state_of A3))"
sleep 1
check copy-launches-nothing test ! -e "$S/keys/launch.A3.1"
stop_hangard
check copy-wrote-nothing test "$(sha256sum "$A/live.anchor")" == "$before"
S=$orig

# Free again: the same spool starts on it, trusted.
start_hangard
check restart-takes-the-anchor kill -0 "$HPID"
check original-trusted jq_ok "$S/hangard.json" "d['ledger']['state'] == 'ok'"
((FAILED == 0)) || exit 1
pass
