# shellcheck shell=bash
# lib.sh — shared by the black-box tests. Each test sources it, calls `setup`, drives the real
# bin/hangard and bin/hangar in a scratch spool, and ends with `pass` (or `fail REASON`, `skip REASON`).
# A test prints "ok NAME", "FAIL NAME: reason" or "skip NAME: reason"; tests/blackbox/run counts them.
# Environment: HANGAR_KEEP=1 keeps the scratch directory of a failed test.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=$ROOT/bin
TEST=$(basename "$0" .sh)
# The sandbox engine the spool's profiles get (hangar.conf(5) "sandbox"): a pass of each_identity
# engines or each_engine (RT_ENGINE), else HANGAR_TEST_SANDBOX, else the shipped spool's own
# (namespaces; bwrap for a profile a test adds without one).
ENGINE=${RT_ENGINE:-${HANGAR_TEST_SANDBOX:-}}
# A pass of each_identity: TEST[root], TEST[user]; with engine "namespaces", TEST[root,namespaces]
# (of each_engine: TEST[namespaces]).
if [[ -n "${RT_AS:-}" || ( -n "$ENGINE" && "$ENGINE" != bwrap ) ]]; then
  TEST="$TEST[${RT_AS:-}${RT_AS:+${ENGINE:+,}}${ENGINE}]"
  TEST=${TEST/,bwrap]/]}
  TEST=${TEST/\[bwrap]/}
fi
HBIN=$BIN  # where hangard runs from (as_hangard_user copies the binaries where its user reaches)
HANGARD_AS=()  # the command hangard runs under (as_hangard_user: setpriv to the test's user)
RT_USER=''     # the unprivileged user as_hangard_user created (removed at cleanup)
T=''     # the test's scratch directory
S=''     # the spool in it
LOG=''   # hangard's stderr
HPID=''  # the running hangard
FAILED=0

say() { printf '%s\n' "$*"; }
note() { printf '  %s\n' "$*" >&2; }

# --- results --------------------------------------------------------------------------------------

# pass [NAME]: in a pass of one engine (RT_ENGINE), only once a plan in the spool names it (a pass
# in which no drone ran in that engine's sandbox would prove nothing of it).
pass() {
  if [[ -n "${RT_ENGINE:-}" && -n "$S" ]] &&
    ! grep -rqs --include=plan.json "\"engine\": *\"$RT_ENGINE\"" "$S"; then
    fail "no plan in the spool names sandbox engine $RT_ENGINE"
  fi
  say "ok ${1:-$TEST}"
}
skip() { say "skip $TEST: $*"; exit 0; }
# fail REASON: reports, shows hangard's log, exits (cleanup runs from the EXIT trap).
fail() {
  say "FAIL $TEST: $*"
  FAILED=1
  if [[ -n "$LOG" && -s "$LOG" ]]; then
    note "--- hangard stderr (last 30 lines) ---"
    tail -n 30 "$LOG" | sed 's/^/  /' >&2
  fi
  exit 1
}
# check NAME COND...: a sub-result inside a test that checks several cases; failures do not exit.
check() {
  local name=$1
  shift
  if "$@"; then say "ok $TEST/$name"; else say "FAIL $TEST/$name: $*"; FAILED=1; fi
}

# --- scratch spool and hangard --------------------------------------------------------------------

[[ -x "$BIN/hangard" && -x "$BIN/hangar" && -x "$BIN/hangar-shim" ]] || {
  say "skip $TEST: bin/hangard, bin/hangar or bin/hangar-shim not built"
  exit 0
}
# python3 for JSON; the interpreter itself, not a wrapper (a pyenv shim costs a second per call).
if [[ -x /usr/bin/python3 ]]; then PY=/usr/bin/python3
elif command -v python3 >/dev/null; then PY=$(python3 -c 'import sys; print(sys.executable)')
else say "skip $TEST: python3 missing (scripts/install-deps installs it)"; exit 0; fi
python3() { "$PY" "$@"; }

# setup [SLOTS]: a fresh copy of spool/ in a scratch directory, with the given slot count.
setup() {
  # (No bracket nor comma in the path: socat, the egress forwarder, reads a comma as a separator.)
  T=$(mktemp -d "${TMPDIR:-/tmp}/hangar-bb-${TEST//[],[]/-}.XXXXXX")
  S=$T/spool
  A=$T/anchor  # the ledger's anchor directory (another mount in production)
  LOG=$T/hangard.log
  mkdir -p "$S" "$A"
  cp -a "$ROOT/spool/." "$S/"
  set_slots "${1:-0}"
  trap cleanup EXIT
  trap 'exit 130' INT TERM
}

# edit_conf PYTHON: runs PYTHON (statements) with c the scratch config as a dict and t the scratch
# directory, then writes c back to $S/hangar.conf.
edit_conf() {
  python3 - "$S/hangar.conf" "$T" "$1" <<'PY'
import json, sys
conf, t, code = sys.argv[1:]
c = json.load(open(conf))
exec(code)
json.dump(c, open(conf, "w"), indent=2)
PY
}

# --- identities (the red-team tests) ---------------------------------------------------------------

# each_identity [engines]: runs the calling test with hangard as root (as the shipped unit runs it)
# and as an unprivileged user the test creates, passes with RT_AS=root|user and results named
# TEST[root] and TEST[user]; returns at once inside a pass. Not root: one pass as the caller
# (RT_AS=self). With "engines" (a test of the sandbox), each with both sandbox engines too:
# RT_ENGINE=bwrap, and RT_ENGINE=namespaces (hangar-confine's own, which must keep every guarantee
# bwrap keeps: TEST[root,namespaces], TEST[user,namespaces]). HANGAR_TEST_SANDBOX=ENGINE: that
# engine's passes only. Call it first, before setup.
each_identity() {
  [[ -n "${RT_AS:-}" ]] && return 0
  local rc=0 engine engines=('')  # '': the spool's own, or HANGAR_TEST_SANDBOX's
  if [[ "${1:-}" == engines ]]; then
    engines=(bwrap namespaces)
    [[ -n "${HANGAR_TEST_SANDBOX:-}" ]] && engines=("$HANGAR_TEST_SANDBOX")
  fi
  for engine in "${engines[@]}"; do
    if [[ "$(id -u)" == 0 ]]; then
      RT_AS=root RT_ENGINE=$engine bash "$0" || rc=1
      if command -v useradd >/dev/null && command -v setpriv >/dev/null; then
        RT_AS=user RT_ENGINE=$engine bash "$0" || rc=1
      else
        say "skip $TEST[user]: skipped: useradd or setpriv missing"
      fi
    else
      RT_AS=self RT_ENGINE=$engine bash "$0" || rc=1
    fi
  done
  exit "$rc"
}

# each_engine: runs the calling test once with each sandbox engine (RT_ENGINE=bwrap, then
# RT_ENGINE=namespaces: TEST and TEST[namespaces]), for a sandbox test that runs as one identity
# only; returns at once inside a pass. HANGAR_TEST_SANDBOX=ENGINE: that engine's pass only. Call it
# first, before setup.
each_engine() {
  [[ -n "${RT_ENGINE:-}" ]] && return 0
  local rc=0 engine engines=(bwrap namespaces)
  [[ -n "${HANGAR_TEST_SANDBOX:-}" ]] && engines=("$HANGAR_TEST_SANDBOX")
  for engine in "${engines[@]}"; do RT_ENGINE=$engine bash "$0" || rc=1; done
  exit "$rc"
}

# need_agent_cli VAR NAME: sets VAR to the path of the pinned agent CLI NAME (codex or claude)
# that scripts/install-NAME installs test-locally; skips the test when npm cannot be reached
# (exit 69), fails it on any other error.
need_agent_cli() {
  local rc=0 path log="$ROOT/build/install-$2.log"
  path=$("$ROOT/scripts/install-$2" 2>"$log") || rc=$?
  ((rc == 69)) && skip "$(tail -n 1 "$log")"
  ((rc == 0)) || fail "scripts/install-$2 failed ($rc): $(tail -n 3 "$log")"
  printf -v "$1" '%s' "$path"
}

# passwd_db COMMAND...: useradd, userdel, groupadd or groupdel, tried again for up to 5 s while
# it fails: tests run side by side, and another one may hold the user database's lock a moment.
passwd_db() {
  local tries
  for tries in $(seq 17); do
    "$@" && return 0
    ((tries < 17)) && sleep 0.3
  done
  return 1
}

# need_landlock: skips the test unless the kernel offers Landlock ABI 2 or later, which hidden
# paths that stay hidden (shell/landlock.h) and network "egress" (its forwarder) need.
need_landlock() {
  local abi
  abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))' 2>/dev/null) || abi=-1
  ((abi >= 2)) || skip "skipped: no Landlock ABI 2 on this kernel (landlock_create_ruleset says $abi)"
}

# need_user_tools: skips the test unless it runs as root with useradd, groupadd and setpriv (it
# creates users, group_users).
need_user_tools() {
  [[ "$(id -u)" == 0 ]] || skip "skipped: needs root (creates users)"
  command -v useradd >/dev/null && command -v groupadd >/dev/null && command -v setpriv >/dev/null ||
    skip "skipped: useradd, groupadd or setpriv missing"
}

# Records that fail: the ledger's last segment made immutable (chattr +i), so that the next append
# cannot open it (EPERM), and made mutable again at the test's end (teardown_extra).
# frozen_ledger_test: skips unless root with chattr; call after setup and as_hangard_user.
frozen_ledger_test() {
  [[ $(id -u) -eq 0 ]] || skip "skipped: needs root (chattr +i)"
  command -v chattr >/dev/null || skip "skipped: chattr missing (e2fsprogs)"
  FROZEN=''
  teardown_extra() { [[ -z "$FROZEN" ]] || chattr -i "$FROZEN" 2>/dev/null || true; }
}
# warm_segment: runs mission W to its return, so that the ledger has its segment; SEG is its path.
warm_segment() {
  mission W script 1 '' 'write REPORT.md warm' | drop w.json
  wait_returned W 30
  SEG=$(find "$S/ledger/live" -maxdepth 1 -name '*.jsonl' | sort | tail -n 1)
  [[ -n "$SEG" ]] || fail "no ledger segment after a mission returned"
}
# freeze SEG: chattr +i, or skip where the scratch filesystem keeps no immutable flag.
# thaw: chattr -i of what freeze froze.
freeze() {
  chattr +i "$1" 2>/dev/null ||
    skip "skipped: the scratch filesystem keeps no immutable flag ($(findmnt -n -o FSTYPE -T "$S"))"
  FROZEN=$1
}
thaw() {
  chattr -i "$FROZEN" || fail "chattr -i $FROZEN"
  FROZEN=''
}

# group_users GROUP USER...: a system group and system users in it (no home, no shell), made for
# the test and removed at its end (teardown_extra).
group_users() {
  local group=$1 u
  shift
  TEST_GROUP=$group TEST_USERS=("$@")
  teardown_extra() {
    for u in "${TEST_USERS[@]}"; do passwd_db userdel "$u" 2>/dev/null || true; done
    passwd_db groupdel "$TEST_GROUP" 2>/dev/null || true
  }
  passwd_db groupadd --system "$group" || fail "groupadd $group"
  for u in "$@"; do
    passwd_db useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
      -G "$group" "$u" || fail "useradd $u"
  done
}

# submitter_user TAG: when run as root with useradd and setpriv (after as_hangard_user), a
# submitters' group hangar-TAGsub-PID holding a user RA=hangar-TAGra-PID that is no approver, a copy
# of bin/hangar it may run in $T/bin, and the spool's permissions for that group as
# scripts/spool-permissions sets them. Otherwise RA stays unset (the test skips what needs it).
submitter_user() {
  [[ "$(id -u)" == 0 ]] && command -v useradd >/dev/null && command -v setpriv >/dev/null || return 0
  SUB=hangar-$1sub-$$ RA=hangar-$1ra-$$
  group_users "$SUB" "$RA"
  mkdir -p "$T/bin" && cp "$BIN/hangar" "$T/bin/" && chmod 755 "$T" "$T/bin"
  "$ROOT/scripts/spool-permissions" "$S" "$SUB" "${RT_USER:-root}"
}

# as_hangard_user: in the user pass of each_identity (after setup, before start_hangard), creates
# a system user with no home and no shell, gives it the scratch directory, and has start_hangard
# run hangard as that user (setpriv, no supplementary group) from a copy of the binaries in the
# scratch directory (the checkout may sit where the user cannot enter). Elsewhere nothing.
as_hangard_user() {
  [[ "${RT_AS:-}" == user ]] || return 0
  export RT_USER="hangar-rt-$$"  # mission() gives it the count files it makes
  passwd_db useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
    "$RT_USER" 2>>"$T/useradd.err" || fail "useradd $RT_USER: $(cat "$T/useradd.err")"
  mkdir -p "$T/bin"
  cp "$BIN/hangard" "$BIN/hangar-shim" "$BIN/hangar-confine" "$BIN/hangar-egress" "$BIN/hangar-fake-drone" \
    "$T/bin/"
  HBIN=$T/bin
  chown -R "$RT_USER:" "$T"
  chmod 755 "$T"
  HANGARD_AS=(setpriv "--reuid=$RT_USER" "--regid=$RT_USER" --clear-groups --)
}

# http_servers: two HTTP servers (python3 http.server) on free 127.0.0.1 ports, both serving
# $T/www/index.html ("model says hi"): API, standing for a model's API, and INTERNAL, for an internal
# service; their access logs are $T/api.log and $T/internal.log (a request line holds "HTTP/1").
# Their pids are HTTP_PIDS, for the test's teardown_extra. Returns once API answers.
http_servers() {
  free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
  API=$(free_port) INTERNAL=$(free_port)
  mkdir -p "$T/www"
  echo "model says hi" >"$T/www/index.html"
  (cd "$T/www" && exec python3 -m http.server "$API" --bind 127.0.0.1 >"$T/api.log" 2>&1) &
  HTTP_PIDS=$!
  (cd "$T/www" && exec python3 -m http.server "$INTERNAL" --bind 127.0.0.1 >"$T/internal.log" 2>&1) &
  HTTP_PIDS+=" $!"
  wait_until 5 curl -s -o /dev/null "http://127.0.0.1:$API/" || fail "the test's HTTP server did not start"
  : >"$T/api.log"
}

# tcp_listening PORT: something listens on 127.0.0.1:PORT (the kernel's /proc/net/tcp says so; no
# connection is made, so a proxy behind it logs nothing).
tcp_listening() {
  python3 - "$1" <<'PY'
import sys
want = "0100007F:%04X" % int(sys.argv[1])
for line in open("/proc/net/tcp").readlines()[1:]:
    f = line.split()
    if f[1] == want and f[3] == "0A":
        sys.exit(0)
sys.exit(1)
PY
}

# fork_bomb MARKER: the lines of a hostile drone's shell script that fork 200 times (each child
# sleeps 4 s; a failed fork is counted, not fatal), MARKER in the command line of every process,
# and write how many forks succeeded into forked.txt in the room.
fork_bomb() {
  cat <<EOF
python3 - $1 <<'PY'
import os, time
kids = []
for _ in range(200):
    try:
        pid = os.fork()
    except OSError:
        continue
    if pid == 0:
        time.sleep(4)
        os._exit(0)
    kids.append(pid)
open("forked.txt", "w").write("%d\n" % len(kids))
for k in kids:
    os.waitpid(k, 0)
PY
EOF
}

# most_at_once MARKER DONE: the most processes with MARKER in their command line seen at once on
# the host, sampling every 0.1 s until the file DONE exists (6 s at most).
most_at_once() {
  local most=0 n
  for _ in $(seq 60); do
    n=$(pgrep -f -c "$1" || true)
    ((n > most)) && most=$n
    [[ -f "$2" ]] && break
    sleep 0.1
  done
  echo "$most"
}

# start_slurm: a one-node Slurm cluster in $T/slurm (scripts/slurm-test-cluster), stopped at the
# end of the test, with SLURM_CONF exported for hangard and the tools; where it cannot start, the
# test is skipped: "skipped: slurm unavailable: REASON".
start_slurm() {
  local conf line why
  chmod 755 "$T"  # munged refuses a socket below a directory not everyone can enter
  teardown_extra() { "$ROOT/scripts/slurm-test-cluster" stop "$T/slurm" >/dev/null 2>&1; }
  if ! conf=$("$ROOT/scripts/slurm-test-cluster" start "$T/slurm" 2>"$T/slurm.err"); then
    why=$(grep -m1 'slurm unavailable' "$T/slurm.err" || tail -n 1 "$T/slurm.err")
    skip "skipped: slurm unavailable: ${why#*slurm unavailable: }"
  fi
  while IFS= read -r line; do
    [[ "$line" == *=* ]] && export "${line?}"
  done <<<"$conf"
  [[ -n "${SLURM_CONF:-}" ]] || fail "slurm-test-cluster printed no SLURM_CONF (got: $conf)"
}

# engine_profile NAME LAUNCHER: adds profile NAME to the spool's config, the "script" profile (the
# fake drone) run by LAUNCHER ("systemd", "slurm"), whose engine hangard asks every second.
engine_profile() {
  python3 - "$S/hangar.conf" "$1" "$2" <<'PY'
import json, sys
path, name, launcher = sys.argv[1:]
c = json.load(open(path))
p = dict(c["profiles"]["script"])
p["launcher"] = launcher
c["profiles"][name] = p
c["launchers"] = {"poll_s": 1}
json.dump(c, open(path, "w"), indent=2)
PY
}

set_slots() { sed -i -E "s/\"slots\": *[0-9]+/\"slots\": $1/" "$S/hangar.conf"; }

# apply_engine [HANGARD_ARGS...]: every sandboxed profile (those the test added too) runs its
# drones in ENGINE's sandbox, in the config hangard reads (--config FILE, else the spool's).
# start_hangard does it; a test that starts hangard itself calls it.
apply_engine() {
  [[ -n "$ENGINE" ]] || return 0
  local conf=$S/hangar.conf
  while (($# > 0)); do
    [[ "$1" == --config && $# -gt 1 ]] && conf=$2
    shift
  done
  "$ROOT/scripts/sandbox-engine" "$conf" "$ENGINE" || fail "cannot set sandbox engine $ENGINE"
}

# start_hangard [ARGS...]: starts bin/hangard (as $RT_USER under as_hangard_user) in the
# background, with ARGS after --spool and --anchor, and waits until hangard.json says it runs.
start_hangard() {
  apply_engine "$@"
  "${HANGARD_AS[@]}" "$HBIN/hangard" --spool "$S" --anchor "$A" "$@" </dev/null >>"$LOG" 2>&1 &
  HPID=$!
  wait_until 10 hangard_up || fail "hangard did not come up within 10 s (hangard.json: $(cat "$S/hangard.json" 2>/dev/null))"
}

hangard_up() {
  kill -0 "$HPID" 2>/dev/null || fail "hangard exited at start"
  [[ -f "$S/hangard.json" ]] &&
    jq_ok "$S/hangard.json" "d.get('status') == 'running' and d.get('pid') == $HPID"
}

# stop_hangard [SIGNAL]: SIGTERM (or the signal given) and wait up to 10 s, then SIGKILL.
stop_hangard() {
  local sig=${1:-TERM}
  [[ -n "$HPID" ]] || return 0
  kill -s "$sig" "$HPID" 2>/dev/null || true
  if ! wait_until 10 dead "$HPID"; then
    note "hangard $HPID ignored SIG$sig for 10 s; killing it"
    kill -KILL "$HPID" 2>/dev/null || true
  fi
  wait "$HPID" 2>/dev/null || true
  HPID=''
}

dead() { ! kill -0 "$1" 2>/dev/null; }

# Stops hangard, then any shim and drone group it left running (by the pids in shim.json), then
# removes the scratch directory (kept on failure when HANGAR_KEEP=1).
cleanup() {
  local rc=$? f
  trap - EXIT
  stop_hangard || true
  if [[ -n "$RT_USER" ]]; then
    pkill -KILL -u "$RT_USER" 2>/dev/null || true
    passwd_db userdel "$RT_USER" 2>/dev/null || true
  fi
  # A test that started more (a Slurm cluster) defines teardown_extra.
  if declare -F teardown_extra >/dev/null; then teardown_extra || true; fi
  if [[ -n "$S" ]]; then
    for f in "$S"/running/*/run/shim.json; do
      [[ -f "$f" ]] && kill_run "$f"
    done
  fi
  if [[ -n "$T" ]]; then
    if [[ "$FAILED" == 1 || $rc -ne 0 ]] && [[ "${HANGAR_KEEP:-}" == 1 ]]; then
      note "kept $T"
    else
      chmod -R u+rwX "$T" 2>/dev/null || true
      rm -rf "$T"
    fi
  fi
  exit "$rc"
}

# kill_run SHIM_JSON: SIGSTOP, then SIGKILL, to the shim's and the drone's process groups, each only
# when the pid still names the same process (its start time, field 22 of /proc/PID/stat, matches
# shim.json).
kill_run() {
  python3 - "$1" <<'EOF' || true
import json, os, signal, sys
d = json.load(open(sys.argv[1]))
# Stopped first, both, then killed: as at a power loss, the shim never sees its drone die first
# (it would record that end, and the attempt would not be lost).
for sig in (signal.SIGSTOP, signal.SIGKILL):
    for who in ("shim", "drone"):
        pid, start = d.get(who + "_pid"), d.get(who + "_start")
        try:
            stat = open("/proc/%d/stat" % pid).read()
            if int(stat[stat.rindex(")") + 2:].split()[19]) != int(start):
                continue
            try:
                os.killpg(pid, sig)
            except OSError:
                os.kill(pid, sig)
        except (OSError, TypeError, ValueError):
            pass
EOF
}

# --- polling --------------------------------------------------------------------------------------

# wait_until SECONDS CMD...: polls CMD every 0.05 s; status 1 when it never succeeded in time.
wait_until() {
  local limit_ns=$(($1 * 1000000000)) start
  shift
  start=$(date +%s%N)
  while :; do
    "$@" && return 0
    (($(date +%s%N) - start > limit_ns)) && return 1
    sleep 0.05
  done
}

# --- fault injection (man/hangard.8, ENVIRONMENT) -------------------------------------------------

# fault_calls: how many mutating calls the fault log $FLOG (HANGAR_FAULT_LOG) lists so far.
fault_calls() { if [[ -f "$FLOG" ]]; then grep -c '^[0-9]' "$FLOG" || true; else echo 0; fi; }
# fault_quiet: the fault log did not grow for a second.
fault_quiet() {
  local n
  n=$(fault_calls)
  sleep 1
  [[ "$(fault_calls)" == "$n" ]]
}

# start_faulty [PLAN]: starts hangard with HANGAR_FAULT=PLAN (none: count only), its calls logged
# to $FLOG, and waits until it makes no more calls after its start.
start_faulty() {
  if [[ -n "${1:-}" ]]; then HANGAR_FAULT=$1 HANGAR_FAULT_LOG=$FLOG start_hangard
  else HANGAR_FAULT_LOG=$FLOG start_hangard; fi
  wait_until 10 fault_quiet || fail "hangard kept making mutating calls after start"
}

# fault_call ERE [AFTER]: the number of the first call logged in $FLOG, after call AFTER (0), whose
# "CALL PATH..." matches the extended regular expression ERE (anchored at both ends); nothing if none.
fault_call() {
  grep -E "^[0-9]+ $1\$" "$FLOG" | cut -d' ' -f1 | awk -v a="${2:-0}" '$1 > a' | head -n 1
}

# work_is STATE: `hangar status --json` says the work is STATE (ok, intake-paused, stopped); the
# status is left in $T/status.json.
work_is() {
  hangar status --json >"$T/status.json" 2>/dev/null &&
    jq_ok "$T/status.json" "(d.get('work') or {}).get('state') == '$1'"
}

# fresh_spool SLOTS: stops hangard and the drones it left, then a new spool and anchor in the same
# places (a fault log then names the same paths), an empty log, no $T/starts.
fresh_spool() {
  local f
  stop_hangard
  for f in "$S"/running/*/run/shim.json; do [[ -f "$f" ]] && kill_run "$f"; done
  rm -rf "$S" "$A" "$T/starts"
  mkdir -p "$S" "$A"
  cp -a "$ROOT/spool/." "$S/"
  set_slots "$1"
  : >"$LOG"
  if [[ -n "${RT_USER:-}" ]]; then chown -R "$RT_USER:" "$S" "$A"; fi
}

# --- missions -------------------------------------------------------------------------------------

# json_str TEXT: TEXT as a JSON string literal.
json_str() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
# queued ID: ID is in queued/.
queued() { [[ "$(state_of "$1")" == queued ]]; }
# x_runs: mission X dropped, and running (its drone counts its start, then sleeps 3 s).
x_runs() {
  mission X script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write started now' 'sleep 3' \
    'write REPORT.md ran' | drop x.json
  wait_until 20 running_started X || fail "X did not start (state: $(state_of X))"
}
# y_once_x_done: Y returns done, its drone run once by its own count, and X returns done (what a
# restart after X's end and Y's launch were cut must leave).
y_once_x_done() {
  wait_returned Y 30
  [[ "$(outcome Y)" == done ]] || fail "after the restart Y ended $(outcome Y), expected done"
  [[ "$(starts Y)" == 1 ]] || fail "Y's drone ran $(starts Y) times, expected once"
  wait_returned X 30
  [[ "$(outcome X)" == done ]] || fail "X ended $(outcome X), expected done"
}
# y_waits [PROFILE]: mission Y (of PROFILE, "script" by default; its drone counts its start)
# dropped behind X, and queued.
y_waits() {
  mission Y "${1:-script}" 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md ran' |
    drop y.json
  wait_until 20 queued Y || fail "Y is not queued behind X: $(state_of Y)"
}
# running_started ID: ID is in running/ and its drone has begun (a mission whose first line is
# "write started now").
running_started() { [[ "$(state_of "$1")" == running && -e "$S/rooms/$1/started" ]]; }
# starts ID: how many times ID's drone started, by its own count (a mission with "count $T/starts").
starts() { if [[ -f "$T/starts" ]]; then grep -c "^start $1 " "$T/starts" || true; else echo 0; fi; }
# only_entry KIND ID: the one ledger entry of kind KIND for mission ID, as a JSON line; fails,
# saying how many there are, unless there is exactly one.
only_entry() {
  python3 - "$1" "$2" "$S"/ledger/live/*.jsonl <<'PY'
import json, sys
kind, id_ = sys.argv[1], sys.argv[2]
found = [e for seg in sys.argv[3:] for e in map(json.loads, open(seg))
         if e.get("kind") == kind and e["body"].get("id") == id_]
if len(found) != 1:
    sys.exit(f"{len(found)} {kind} entries for {id_}")
print(json.dumps(found[0]))
PY
}

# mission ID DRONE MAX_MINUTES DONE_WHEN_JSON LINE...: a valid mission whose "future" is the lines
# given (directives for the fake drone). ID "" leaves the id out. DONE_WHEN_JSON "" leaves it out.
mission() {
  local id=$1 drone=$2 max=$3 done_when=$4
  shift 4
  python3 - "$id" "$drone" "$max" "$done_when" "$@" <<'EOF'
import json, os, shutil, sys
id_, drone, mx, dw, *lines = sys.argv[1:]
m = {"hangar": 1}
if id_:
    m["id"] = id_
m.update({"requester": "blackbox", "drone": drone, "future": "\n".join(lines),
          "now": "a black-box test", "max_minutes": float(mx) if "." in mx else int(mx)})
if dw:
    m["done_when"] = json.loads(dw)
# "count FILE" makes the fake drone append to FILE, outside its room: the mission asks to write it
# (the sandbox binds only what exists: the file is made here).
counts = sorted({l.split(" ", 1)[1] for l in lines if l.startswith("count ")})
if counts:
    m["writes"] = counts
    for c in counts:
        open(c, "a").close()
        if os.environ.get("RT_USER"):  # hangard (and so the drone) runs as that user
            shutil.chown(c, os.environ["RT_USER"])
print(json.dumps(m))
EOF
}

# drop NAME < BYTES: writes incoming/tmp/NAME then renames it into incoming/new/NAME.
drop() {
  cat >"$S/incoming/tmp/$1"
  mv -T "$S/incoming/tmp/$1" "$S/incoming/new/$1"
}

# state_of ID: the state directory holding ID (hold, queued, ...), or nothing.
state_of() {
  local st
  for st in hold queued running returned denied rejected; do
    [[ -d "$S/$st/$1" ]] && { say "$st"; return 0; }
  done
  return 0
}

returned() { [[ -f "$S/returned/$1/return.json" ]]; }
# controls_taken: control/new is empty (every request taken by the kernel).
controls_taken() { [[ -z "$(ls "$S/control/new")" ]]; }
wait_returned() { wait_until "$2" returned "$1" || fail "$1 not returned within $2 s (state: $(state_of "$1"))"; }

# jq_ok FILE PY_EXPR: true when the Python expression holds with d = the JSON in FILE.
jq_ok() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>/dev/null; }
# jget FILE PY_EXPR: prints the expression's value (JSON for lists and objects).
jget() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(v if isinstance(v,str) else json.dumps(v))' "$1" "$2"
}

outcome() { jget "$S/returned/$1/return.json" "d.get('outcome')" 2>/dev/null || true; }

# listing: every entry under every state directory and drop zone, with its type and, for a file,
# its size (not times; not a directory's size, which changes with its entries on some filesystems).
listing() {
  (cd "$S" && find incoming control hold queued running returned denied rejected keys rooms notify \
    \( -type d -printf '%p d\n' \) -o -printf '%p %y %s\n' 2>/dev/null | LC_ALL=C sort)
}

# hangar ARGS...: the CLI on this spool.
hangar() { "$BIN/hangar" --spool "$S" "$@"; }

# alive: `hangar status --json` says the kernel runs ({"kernel":{"alive":true,...},...}).
alive() {
  local out
  out=$(hangar status --json 2>/dev/null) || return 1
  python3 -c '
import json, sys
d = json.loads(sys.argv[1])
k = d.get("kernel") if isinstance(d.get("kernel"), dict) else d
sys.exit(0 if k.get("alive") is True else 1)' "$out"
}

# --- rejection ------------------------------------------------------------------------------------

# new_rejected BEFORE_FILE: the one entry of rejected/ not listed in BEFORE_FILE (dot names aside).
new_rejected() {
  local e
  for e in "$S"/rejected/*; do
    e=${e##*/}
    [[ -d "$S/rejected/$e" ]] && ! grep -qxF "$e" "$1" && { say "$e"; return 0; }
  done
  return 1
}

# reject_case LABEL NAME FIELD REASON_REGEX: incoming/tmp/NAME (any kind of file) is renamed into
# incoming/new; it must land in rejected/<id>/ as mission.raw (same bytes, or the same kind of
# entry), with why.json naming FIELD ("*": any) and a reason matching REASON_REGEX (ignoring case),
# nothing else in the spool may change, and hangard must stay alive. Prints "ok TEST/LABEL" or
# "FAIL TEST/LABEL: why" (and sets FAILED; see finish).
reject_case() {
  local label=$1 name=$2 field=$3 re=$4 src="$S/incoming/tmp/$2" id='' kind why=''
  local before=$T/before.$label after=$T/after.$label names=$T/rejected.$label
  rm -rf "$T/orig"
  if [[ -L "$src" ]]; then kind=symlink; readlink "$src" >"$T/orig"
  elif [[ -p "$src" ]]; then kind=fifo
  elif [[ -d "$src" ]]; then kind=dir; cp -a "$src" "$T/orig"
  else kind=file; cp "$src" "$T/orig"; fi
  (cd "$S/rejected" && find . -mindepth 1 -maxdepth 1 -printf '%f\n') >"$names"
  listing | grep -v -E "^incoming/tmp/$name( |/)" >"$before" || true
  mv -T "$src" "$S/incoming/new/$name"
  if ! wait_until 10 intake_done "$name" "$names"; then
    why="not taken into rejected/ within 10 s (incoming/new/$name $( [[ -e "$S/incoming/new/$name" || -L "$S/incoming/new/$name" ]] && echo still there || echo gone); states: $(find "$S"/{hold,queued,running,returned,denied} -mindepth 1 -maxdepth 1 -printf '%P ' 2>/dev/null))"
  else
    id=$(new_rejected "$names")
    local d="$S/rejected/$id"
    listing | grep -v -E "^rejected/$id( |/)" >"$after" || true
    if ! diff -u "$before" "$after" >"$T/diff.$label"; then
      why="the spool changed besides rejected/$id: $(grep -E '^[-+][^-+]' "$T/diff.$label" | head -n 5 | tr '\n' ' ')"
    elif [[ ! -f "$d/why.json" ]]; then
      why="rejected/$id has no why.json ($(ls -A "$d" | tr '\n' ' '))"
    elif ! jq_ok "$d/why.json" "d.get('hangar') == 1 and d.get('id') == '$id' and isinstance(d.get('reason'), str) and d['reason'] != ''"; then
      why="why.json lacks hangar 1, id $id or a reason: $(cat "$d/why.json")"
    elif [[ "$field" != '*' ]] && ! jq_ok "$d/why.json" "d.get('field') == $(json_str "$field")"; then
      why="why.json names field $(jget "$d/why.json" "d.get('field')"), expected '$field': $(cat "$d/why.json")"
    elif ! python3 -c 'import json,re,sys; sys.exit(0 if re.search(sys.argv[2], json.load(open(sys.argv[1]))["reason"], re.I) else 1)' "$d/why.json" "$re"; then
      why="why.json reason does not match /$re/: $(cat "$d/why.json")"
    else
      case $kind in
        file) cmp -s "$T/orig" "$d/mission.raw" || why="mission.raw differs from the bytes dropped (or is missing)" ;;
        dir) [[ -d "$d/mission.raw" && ! -L "$d/mission.raw" ]] && diff -r "$T/orig" "$d/mission.raw" >/dev/null ||
          why="mission.raw is not the directory dropped, intact" ;;
        fifo) [[ -p "$d/mission.raw" ]] || why="mission.raw is not the FIFO dropped" ;;
        symlink) [[ -L "$d/mission.raw" && "$(readlink "$d/mission.raw")" == "$(cat "$T/orig")" ]] ||
          why="mission.raw is not the symlink dropped" ;;
      esac
    fi
  fi
  [[ -n "$why" ]] || alive || why="hangar status --json does not say hangard is alive after the drop"
  if [[ -n "$why" ]]; then
    say "FAIL $TEST/$label: $why"
    FAILED=1
  else
    say "ok $TEST/$label"
  fi
  return 0
}

# intake_done NAME REJECTED_BEFORE: the drop has left incoming/new and a new rejected/ entry exists.
intake_done() {
  [[ ! -e "$S/incoming/new/$1" && ! -L "$S/incoming/new/$1" ]] && new_rejected "$2" >/dev/null
}

# drop_tmp NAME < BYTES: writes incoming/tmp/NAME (for reject_case).
drop_tmp() { cat >"$S/incoming/tmp/$1"; }

# finish: the last line of a test that reported sub-results with reject_case or check.
finish() {
  if [[ "$FAILED" == 1 ]]; then
    [[ -s "$LOG" ]] && { note "--- hangard stderr (last 30 lines) ---"; tail -n 30 "$LOG" | sed 's/^/  /' >&2; }
    exit 1
  fi
  exit 0
}

# mutated ID PY_STATEMENT: a valid mission (the "true" profile) changed by PY_STATEMENT on m.
mutated() {
  mission "$1" true 1 '' 'nothing to do' |
    python3 -c 'import json,sys; m=json.load(sys.stdin); exec(sys.argv[1]); sys.stdout.write(json.dumps(m))' "$2"
}

# restart_case SIGNAL: three drones sleeping ~4 s; hangard is stopped with SIGNAL while they run,
# a fourth mission is dropped while it is down, and hangard is started again: each drone started
# exactly once, every return is complete, and the mission dropped meanwhile is taken in.
restart_case() {
  local sig=$1 id n ids='r1 r2 r3 r4'
  setup 4
  start_hangard
  for id in r1 r2 r3; do
    mission "$id" script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'sleep 4' 'write REPORT.md survived' |
      drop "$id.json"
  done
  all_started() { [[ -f "$T/starts" && $(wc -l <"$T/starts") -ge 3 ]]; }
  wait_until 15 all_started || fail "the three drones did not all start within 15 s"
  stop_hangard "$sig"
  for id in r1 r2 r3; do
    [[ "$(state_of "$id")" == running ]] || fail "$id is in '$(state_of "$id")' after SIG$sig, expected running"
  done
  mission r4 script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'write REPORT.md dropped while down' | drop r4.json
  start_hangard
  for id in $ids; do wait_returned "$id" 20; done
  for id in $ids; do
    n=$(grep -c "^start $id " "$T/starts" || true)
    ((n == 1)) || fail "$id started $n times"
    local r="$S/returned/$id/return.json"
    jq_ok "$r" "d['outcome'] == 'done'" || fail "$id outcome $(outcome "$id"), expected done: $(cat "$r")"
    jq_ok "$r" "d['exit']['rc'] == 0" || fail "$id return.json exit rc is not 0"
    room_has "$r" REPORT.md ||
      fail "$id return.json's room manifest lacks REPORT.md: $(jget "$r" "d['room']")"
  done
  [[ -z "$(find "$S/keys" -name 'launch.*.2')" ]] || fail "a second attempt was launched"
  alive || fail "hangard is not alive"
  pass
}

# manifest RETURN_JSON: prints the room manifest's entries as JSON lines {path,type,...}: the
# longest list of objects with a "path" found under the "room" field of return.json.
manifest() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
best = []
def walk(v):
    global best
    if isinstance(v, list):
        if v and all(isinstance(x, dict) and "path" in x for x in v) and len(v) > len(best):
            best = v
        for x in v:
            walk(x)
    elif isinstance(v, dict):
        for x in v.values():
            walk(x)
walk(d.get("room"))
for e in best:
    print(json.dumps(e))
PY
}

# room_has RETURN_JSON PATH: the manifest lists PATH (with or without a leading "./"). The
# manifest is read whole before the search: piped, a search that stops at the first match closes
# the pipe while manifest() still writes, and pipefail turns that BrokenPipeError into "lacks".
room_has() {
  local entries
  entries=$(manifest "$1") || return 2
  python3 -c '
import json, sys
want = sys.argv[1]
for line in sys.stdin:
    if json.loads(line)["path"].removeprefix("./") == want:
        sys.exit(0)
sys.exit(1)' "$2" <<<"$entries"
}

# group_gone SHIM_JSON: no process of the drone's process group is left (by pid and start time).
group_gone() {
  python3 - "$1" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
pgid = d["drone_pid"]
for p in os.listdir("/proc"):
    if not p.isdigit():
        continue
    try:
        stat = open("/proc/%s/stat" % p).read()
    except OSError:
        continue
    fields = stat[stat.rindex(")") + 2:].split()
    if int(fields[2]) == pgid and fields[0] != "Z":  # field 5: pgrp
        sys.exit(1)
PY
}

# no_zombies: hangard has no zombie children.
no_zombies() { ! ps --ppid "$HPID" -o stat= 2>/dev/null | grep -q '^Z'; }
