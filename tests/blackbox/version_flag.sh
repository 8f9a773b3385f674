#!/usr/bin/env bash
# --version on every binary hangar installs (issue 25): each prints its name, the release and the
# kernel build whose decide() it carries (the build a replay compares), on stdout, and exits 0 —
# before doing anything else (hangard needs no spool, hangar-confine drops nothing).
. "$(dirname "$0")/lib.sh"
for b in hangar hangard hangar-shim hangar-confine hangar-egress; do
  rc=0; out=$("$BIN/$b" --version 2>"$T/$b.err") || rc=$?
  check "$b/exit-0" test "$rc" = 0
  check "$b/line" grep -Eqx "$b [0-9]+\.[0-9]+\.[0-9]+ \(hangar-kernel/[0-9]+\)" <<<"$out"
  check "$b/nothing-on-stderr" test ! -s "$T/$b.err"
done
((FAILED == 0)) || fail "see above"
pass
