# shellcheck shell=bash disable=SC2034  # sets variables its caller reads
# scripts/bench-lib.sh — sourced by scripts/bench-peers, bench-latency, bench-stages, bench-backlog
# and bench-scale: a scratch spool with hangard on it, and N trivial missions (profile "true") through
# it.
# The caller sets ROOT and calls hangar_stop from its EXIT trap. Sets BIN, S (the spool), HPID.
BIN=$ROOT/bin
for b in hangard hangar hangar-shim; do
  [[ -x "$BIN/$b" ]] || { echo "bench: $BIN/$b is missing (run make)" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "bench: python3 is missing (scripts/install-deps)" >&2; exit 1; }
S='' HPID=''
# shellcheck source=scripts/bench-trash.sh
. "$ROOT/scripts/bench-trash.sh"

# bench_install LOG PKG...: the Debian packages among PKG not installed yet, through apt-get (sudo
# when not root), its output in LOG. Non-zero, the reason on stderr, when they cannot be.
bench_install() {
  local log=$1 p missing=() sudo=()
  shift
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  if ((EUID != 0)); then
    command -v sudo >/dev/null || { echo "cannot install ${missing[*]}: not root and no sudo" >&2; return 1; }
    sudo=(sudo)
  fi
  { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}"; } </dev/null >"$log" 2>&1 ||
    { echo "apt-get install ${missing[*]} failed: $(tail -1 "$log")" >&2; return 1; }
}

hangar_stop() {
  [[ -n "$HPID" ]] && { kill -TERM "$HPID" 2>/dev/null || true; wait "$HPID" 2>/dev/null || true; }
  HPID=''
  [[ -n "$S" ]] && bench_discard "$S" "$S.log" "$S.anchor"
  S=''
}

# hangar_spool SLOTS: a fresh scratch spool (S) with SLOTS slots; hangard not started yet.
hangar_spool() {
  S=$(mktemp -d "${TMPDIR:-/tmp}/hangar-bench.XXXX")
  cp -a "$ROOT/spool/." "$S/"
  mkdir -p "$S.anchor"
  sed -i -E "s/\"slots\": *[0-9]+/\"slots\": $1/" "$S/hangar.conf"
}

# hangar_run: hangard on S; returns once its hangard.json says running (fails after 10 s). With
# BENCH_SANDBOX_ENGINE (bwrap, namespaces), every sandboxed profile gets that engine.
hangar_run() {
  [[ -z "${BENCH_SANDBOX_ENGINE:-}" ]] ||
    "$ROOT/scripts/sandbox-engine" "$S/hangar.conf" "$BENCH_SANDBOX_ENGINE" || exit 1
  "$BIN/hangard" --spool "$S" --anchor "$S.anchor" </dev/null 2>"$S.log" &
  HPID=$!
  for _ in $(seq 200); do
    grep -q '"status": *"running"' "$S/hangard.json" 2>/dev/null && return 0
    kill -0 "$HPID" 2>/dev/null || break
    sleep 0.05
  done
  echo "bench: hangard did not start: $(cat "$S.log")" >&2
  exit 1
}

# hangar_start SLOTS: a fresh scratch spool and hangard on it.
hangar_start() {
  hangar_spool "$1"
  hangar_run
}

hangar_mission() {
  printf '{"hangar":1,"id":"%s","requester":"bench","drone":"true","future":"nothing","now":"bench","max_minutes":1}\n' "$1"
}

now_ns() { date +%s%N; }

# busy_ticks: the machine's busy CPU time so far, in clock ticks (/proc/stat's cpu line: user, nice,
# system, irq, softirq, steal), read by the shell itself: no program started.
busy_ticks() {
  local _cpu user nice system _idle _iowait irq softirq steal _rest
  read -r _cpu user nice system _idle _iowait irq softirq steal _rest </proc/stat
  echo $((user + nice + system + irq + softirq + steal))
}

# fs_kind DIR: the type of the filesystem DIR is on, and for ext4 whether it has a journal ("ext4,
# no journal"). Without one, ext4 skips every inode freed in the last 5 minutes (recently_deleted,
# fs/ext4/ialloc.c) on each inode it allocates, so a spool made after a removed one pays a scan per
# file (docs/BENCHMARKS.md, Reading the figures).
fs_kind() {
  local src type
  read -r src type < <(findmnt -n -o SOURCE,FSTYPE -T "$1")
  if [[ $type == ext4 ]]; then
    if compgen -G "/proc/fs/jbd2/$(basename "$(readlink -f "$src")")-*" >/dev/null; then
      echo "ext4, journal"
    else
      echo "ext4, no journal"
    fi
  else
    echo "$type"
  fi
}

# Timing without forks, so that a poll takes nothing from hangard while it is measured: the clock
# in microseconds is ${EPOCHREALTIME/./}; secs US prints US microseconds as seconds (call it once
# measured); nap SECONDS sleeps (a read that times out on a fifo nobody writes, already unlinked).
secs() { printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)); }
NAP_FIFO=$(mktemp -u "${TMPDIR:-/tmp}/hangar-bench-nap.XXXX")
mkfifo "$NAP_FIFO"
exec {NAP_FD}<>"$NAP_FIFO"
rm -f "$NAP_FIFO"
nap() { read -r -t "$1" -u "$NAP_FD" _ || true; }

# hangar_returned: how many missions of the spool have returned: the entries of returned/, where a
# mission is moved once its return.json is written. One readdir by the shell's own glob: a find that
# looked into each returned mission for its return.json took 27 ms at 1,000 missions, every 50 ms
# poll, from the two cores a throughput run measures.
hangar_returned() {
  local m=("$S"/returned/*)
  [[ -e ${m[0]} ]] || m=()
  echo "${#m[@]}"
}

# hangar_throughput SLOTS N [LIMIT_S]: N missions written in incoming/tmp/, then renamed into
# incoming/new/ at once; sets ELAPSED_NS from the first rename to the last mission seen in returned/
# (hangar_returned, every 50 ms), and BUSY_TICKS to the machine's busy CPU over that time
# (busy_ticks). Fails after LIMIT_S seconds (600). Stops hangard and removes the spool.
hangar_throughput() {
  local slots=$1 n=$2 limit=${3:-600} i t0 c0 got
  hangar_start "$slots"
  for ((i = 1; i <= n; i++)); do hangar_mission "$(printf 'b%05d' "$i")" >"$S/incoming/tmp/b$i"; done
  c0=$(busy_ticks)
  t0=$(now_ns)
  for ((i = 1; i <= n; i++)); do mv -T "$S/incoming/tmp/b$i" "$S/incoming/new/b$i"; done
  local deadline=$((SECONDS + limit))
  while :; do
    got=$(hangar_returned)
    ((got >= n)) && break
    ((SECONDS < deadline)) || { echo "bench: only $got of $n returned in $limit s (slots $slots)" >&2; exit 1; }
    sleep 0.05
  done
  ELAPSED_NS=$(($(now_ns) - t0))
  BUSY_TICKS=$(($(busy_ticks) - c0))
  hangar_stop
}
