#!/usr/bin/env bash
# Red team (issue 17, attack 9): a drone that runs thousands of processes, writes hundreds of MB
# into /dev/shm and the sandbox's tmpfs, or triggers handler runs in a loop. With the config's
# limits (processes 64, file_mb 1, memory_mb 128, shm_mb 2, ops_per_minute 3), as root and as a
# user:
#   file size    a 5 MiB file in the room stops at 1 MiB (stat on the host)
#   memory       a process that fills 512 MiB never holds 128 MiB (its VmRSS sampled on the host)
#   /dev/shm     a tmpfs of 2 MiB; the tmpfs hiding the spool and /dev are read-only
#   ops          10 requests in a row start the handler 3 times (the handler's own count)
#   processes    200 forks: at most 64 processes at once (counted on the host) when
#                hangard runs as a user; as root RLIMIT_NPROC binds nothing and `hangar status`
#                says so
# blackbox-timeout: 240
. "$(dirname "$0")/lib.sh"
each_identity engines
setup 2
edit_conf '
c["policy"] = t + "/policy.json"
c["limits"] = {"processes": 64, "file_mb": 1, "memory_mb": 128, "shm_mb": 2, "ops_per_minute": 3}
c["profiles"]["attack"] = {"argv": ["/bin/sh", t + "/attack.sh"], "prompt": "stdin"}
c["ops"] = {"post": {"argv": ["/bin/sh", "-c", "echo run >>" + t + "/handler-runs"]}}
json.dump({"hangar_policy": 1, "ops": {"allow": ["post"]}}, open(t + "/policy.json", "w"))
'
: >"$T/handler-runs"
cat >"$T/attack.sh" <<'ATTACK'
dd if=/dev/zero of=big bs=1M count=5 2>/dev/null
dd if=/dev/zero of=/dev/shm/fill bs=1M count=5 2>/dev/null
stat -c %s /dev/shm/fill >shm-size.txt
echo x >../stray 2>/dev/null && echo wrote-beside-the-room >>tmpfs.txt
echo x >/dev/stray 2>/dev/null && echo wrote-in-dev >>tmpfs.txt
: >>tmpfs.txt
python3 - mem-marker-5813 <<'PY'
import time
try:
    b = bytearray(b"\x01") * (512 << 20)  # written, so every page is resident
except MemoryError:
    b = None
time.sleep(1.5)
open("mem-done.txt", "w").write("refused\n" if b is None else "held\n")
PY
ATTACK
fork_bomb fork-marker-4731 >>"$T/attack.sh"
as_hangard_user
start_hangard
mission L-attack attack 1 '' 'attack' | drop L-attack.json
# The most resident memory any process with MARKER held, sampled on the host until DONE exists.
most_rss_kb() {
  local most=0 n pid
  for _ in $(seq 100); do
    for pid in $(pgrep -f "$1" || true); do
      n=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
      ((${n:-0} > most)) && most=$n
    done
    [[ -f "$2" ]] && break
    sleep 0.05
  done
  echo "$most"
}
rss=$(most_rss_kb mem-marker-5813 "$S/rooms/L-attack/mem-done.txt")
# Count on the host, while the drone's sleeps run: how many at once?
most=$(most_at_once fork-marker-4731 "$S/rooms/L-attack/forked.txt")
wait_returned L-attack 60
R=$S/rooms/L-attack
check file-size test "$(stat -c %s "$R/big")" -le 1048576
check file-size-recorded jq_ok "$S/returned/L-attack/return.json" \
  "{'limit': 'file_mb', 'path': 'big'} in d['limits']['reached'] and d['limits']['in_force']['memory_mb'] == 128"
check memory test "$rss" -lt $((128 * 1024))
check memory-sampled test "$rss" -gt 0
note "the 512 MiB drone process held at most $rss KiB ($(cat "$R/mem-done.txt" 2>/dev/null))"
check status-names-memory grep -q 'memory 128 MiB a process (RLIMIT_DATA)' <(hangar status)
check shm-size test "$(cat "$R/shm-size.txt")" -le 2097152
check tmpfs-read-only test ! -s "$R/tmpfs.txt"
if [[ "$RT_AS" == root ]]; then
  check status-says-not-enforced-for-root grep -q 'RLIMIT_NPROC: NOT enforced' <(hangar status)
  note "as root: $most forked processes at once (RLIMIT_NPROC binds no process of uid 0)"
else
  check processes test "$most" -le 64
  check processes-ran test "$most" -ge 1
  note "as $RT_AS: at most $most forked processes at once"
fi
# The window: 10 requests in a row, 3 handler runs.
lines=(declare ops=post)
for k in $(seq 10); do lines+=("op r$k post k$k"); done
mission L-ops script 1 '' "declare ops=post" "${lines[@]:2}" |
  python3 -c 'import json,sys; m=json.load(sys.stdin); m["ops"]=["post"]; print(json.dumps(m))' |
  drop L-ops.json
wait_returned L-ops 120
check ops-rate test "$(wc -l <"$T/handler-runs")" -eq 3
check ops-refused-recorded jq_ok "$S/returned/L-ops/return.json" \
  "[r for r in d['limits']['reached'] if r['limit'] == 'ops_per_minute'][0]['refused'] == 7"
((FAILED == 0)) || exit 1
pass
