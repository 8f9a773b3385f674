#!/usr/bin/env bash
# One writer per anchor (issue 19, point 5): a second hangard on another spool — a fresh one, or a
# copy of the running one — pointed at the same anchor directory is refused before it writes: its
# exit is non-zero and names the anchor, the anchor file is byte for byte as it was, and the first
# hangard runs on. Once the first has stopped, the anchor is free again.
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
# Free again: the same spool starts on it.
start_hangard
check restart-takes-the-anchor kill -0 "$HPID"
((FAILED == 0)) || exit 1
pass
