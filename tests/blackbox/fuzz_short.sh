#!/usr/bin/env bash
# blackbox-heavy
# Every parser's libFuzzer target (fuzz/README) for a few seconds: FUZZ_SECONDS each (default 3),
# from its checked-in seeds, under ASan and UBSan. Builds them first (make fuzz-build, into
# build/fuzz/ only: the first build takes a few minutes on 2 cores, later ones only relink what
# changed). Each target must run more than 0 inputs and find no crash, leak, hang or broken
# promise; and first, a run planted to fail (a 1 MB memory limit) must be reported as a crash.
# A crash's input is copied to build/fuzz/crashes/ (scripts/fuzz names it); `make fuzz
# FUZZ_SECONDS=N` runs the targets longer.
# blackbox-timeout: 900
. "$(dirname "$0")/lib.sh"
command -v "${FUZZ_CXX:-clang++}" >/dev/null || skip "skipped: no clang++ (scripts/install-deps installs clang)"
W=$(mktemp -d "${TMPDIR:-/tmp}/hangar-bb-$TEST.XXXXXX")
trap 'rm -rf "$W"' EXIT
export FUZZ_WORK=$W

start=$(date +%s)
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$ROOT" -s --no-print-directory fuzz-build \
  >"$W/make.log" 2>&1 || fail "make fuzz-build: $(tail -n 5 "$W/make.log")"
note "make fuzz-build: $(($(date +%s) - start)) s"

# The check can fail: a target run out of its memory limit is a crash, and the script says so.
rc=0
FUZZ_FLAGS=-rss_limit_mb=1 "$ROOT/scripts/fuzz" --seconds 2 timefmt >"$W/planted.out" 2>&1 || rc=$?
planted_reported() {
  ((rc == 1)) && grep -q '^fuzz timefmt: CRASH after [0-9]* execs: .*out-of-memory' "$W/planted.out" &&
    grep -q '^fuzz: 1 targets, 1 crashed$' "$W/planted.out"
}
planted_reported || note "$(cat "$W/planted.out")"
check planted-crash-reported planted_reported
rm -rf "$W/crashes" "$W/logs"

rc=0
"$ROOT/scripts/fuzz" --seconds "${FUZZ_SECONDS:-3}" >"$W/fuzz.out" 2>&1 || rc=$?
sed 's/^/  /' "$W/fuzz.out" >&2
n=0
for f in "$ROOT"/fuzz/*_fuzz.cc; do
  t=$(basename "$f" _fuzz.cc)
  n=$((n + 1))
  line=$(grep "^fuzz $t: " "$W/fuzz.out" || true)
  if [[ "$line" =~ ^fuzz\ $t:\ ([0-9]+)\ execs\ in\ .*,\ no\ crash$ ]] && ((BASH_REMATCH[1] > 0)); then
    say "ok $TEST/$t (${line#fuzz "$t": })"
  else
    say "FAIL $TEST/$t: ${line:-no result line} (log: $(tail -n 3 "$W/logs/$t.log" 2>/dev/null | tr '\n' ' '))"
    FAILED=1
  fi
done
grep -q "^fuzz: $n targets, 0 crashed\$" "$W/fuzz.out" && ((rc == 0)) ||
  { say "FAIL $TEST/summary: exit $rc, $(tail -n 1 "$W/fuzz.out")"; FAILED=1; }
if [[ "$FAILED" == 1 && -d "$W/crashes" ]]; then
  mkdir -p "$ROOT/build/fuzz/crashes"
  cp "$W"/crashes/* "$ROOT/build/fuzz/crashes/" 2>/dev/null || true
fi
finish
