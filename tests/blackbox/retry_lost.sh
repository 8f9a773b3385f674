#!/usr/bin/env bash
# `hangar retry`: a mission made lost for real (hangard, the shim and the drone SIGKILLed while the
# drone sleeps; hangard started again) is refused while a process of its attempt may live, then
# retried: attempt 2 runs under a new key and returns done, attempt 1's files are kept under
# attempts/1/, the drone ran twice in all, and the ledger verifies. A done mission is refused by
# the CLI and, asked directly through control/new, by the kernel: nothing moves.
. "$(dirname "$0")/lib.sh"
setup 2
start_hangard
started() { (($(starts "$1") >= $2)); }

mission L script 1 '[{"file":"REPORT.md"}]' "count $T/starts" 'sleep 3' 'write REPORT.md finished' |
  drop L.json
wait_until 15 started L 1 || fail "L did not start within 15 s (state: $(state_of L))"
wait_until 5 test -f "$S/running/L/run/shim.json" || fail "running/L/run/shim.json did not appear"
cp "$S/running/L/run/shim.json" "$T/shim.json"
stop_hangard KILL
kill_run "$T/shim.json"
wait_until 5 group_gone "$T/shim.json" || fail "the drone's process group outlived SIGKILL"
start_hangard
wait_returned L 15
[[ "$(outcome L)" == lost ]] || fail "L outcome $(outcome L) after the restart, expected lost"
jq_ok "$S/returned/L/return.json" "d['attempt'] == 1" || fail "L's return does not say attempt 1"
sleep 1
(($(starts L) == 1)) || fail "a lost mission was relaunched by itself ($(starts L) starts)"

# Refused while a process recorded as attempt 1's drone still exists (same pid, same start time).
sleep 60 &
LIVE=$!
python3 - "$S/returned/L/run/shim.json" "$LIVE" <<'PY'
import json, sys
path, pid = sys.argv[1], int(sys.argv[2])
stat = open("/proc/%d/stat" % pid).read()
d = json.load(open(path))
d["drone_pid"], d["drone_start"] = pid, int(stat[stat.rindex(")") + 2:].split()[19])
json.dump(d, open(path, "w"))
PY
rc=0
hangar retry L >"$T/retry.out" 2>&1 || rc=$?
((rc == 65)) && grep -q "may still be alive" "$T/retry.out" ||
  fail "hangar retry L while its drone lives: exit $rc, expected 65 with the reason: $(cat "$T/retry.out")"
wait_until 10 controls_taken || fail "the retry request was not taken within 10 s"
grep -l "may still be alive" "$S"/control/bad/*.why.json >/dev/null 2>&1 ||
  fail "a retry while attempt 1's drone lives was not refused (control/bad: $(cat "$S"/control/bad/*.why.json 2>/dev/null))"
[[ "$(state_of L)" == returned && "$(outcome L)" == lost ]] || fail "the refused retry moved L ($(state_of L))"
kill "$LIVE"
wait "$LIVE" 2>/dev/null || true
cp "$T/shim.json" "$S/returned/L/run/shim.json"

# Accepted: attempt 2 under a new key, through the normal launch path.
hangar --json retry L >"$T/retry.json" 2>&1 || fail "hangar retry L failed: $(cat "$T/retry.json")"
jq_ok "$T/retry.json" "d['id'] == 'L' and d['file'].startswith('control/new/retry.L.') and d['answer']['effect'] == 'queued (attempt 2)'" ||
  fail "hangar --json retry printed $(cat "$T/retry.json")"
wait_until 15 started L 2 || fail "attempt 2 did not start within 15 s (state: $(state_of L))"
wait_until 20 jq_ok "$S/returned/L/return.json" "d['attempt'] == 2" ||
  fail "attempt 2 did not return within 20 s (state: $(state_of L))"
r=$S/returned/L/return.json
jq_ok "$r" "d['outcome'] == 'done'" || fail "attempt 2 outcome $(outcome L), expected done: $(cat "$r")"
(($(starts L) == 2)) || fail "the drone ran $(starts L) times, expected 2"
[[ -f "$S/keys/launch.L.1" && -f "$S/keys/launch.L.2" ]] ||
  fail "keys/launch.L.1 and launch.L.2 are not both there: $(ls "$S/keys")"
[[ -z "$(find "$S/keys" -name 'launch.L.3')" ]] || fail "a third attempt was launched"
k=$S/returned/L/attempts/1
jq_ok "$k/return.json" "d['outcome'] == 'lost' and d['attempt'] == 1" ||
  fail "attempts/1/return.json is not attempt 1's lost return"
jq_ok "$k/launch.json" "d['attempt'] == 1 and d['key'] == 'keys/launch.L.1'" || fail "attempts/1/launch.json missing or wrong"
for f in plan.json gate2.json run/shim.json run/prompt.md; do
  [[ -f "$k/$f" ]] || fail "attempts/1/$f was not kept"
done
jq_ok "$S/returned/L/launch.json" "d['attempt'] == 2" || fail "launch.json does not say attempt 2"
jq_ok "$S/returned/L/retry.json" "d['previous'] == 1 and d['attempt'] == 2 and d['previous_outcome'] == 'lost'" ||
  fail "retry.json: $(cat "$S/returned/L/retry.json" 2>/dev/null)"
hangar ledger show --kind mission.retry >"$T/retries" 2>&1 || fail "hangar ledger show failed: $(cat "$T/retries")"
(($(grep -c 'mission.retry' "$T/retries") == 1)) || fail "the ledger holds not one mission.retry: $(cat "$T/retries")"
hangar show L >"$T/show.out" 2>&1 || fail "hangar show L failed after the retry: $(cat "$T/show.out")"

# A done mission: the CLI says why and drops nothing; asked directly, the kernel refuses.
mission D script 1 '[{"file":"REPORT.md"}]' 'write REPORT.md ok' | drop D.json
wait_returned D 15
[[ "$(outcome D)" == done ]] || fail "D outcome $(outcome D), expected done"
before=$(listing | grep -v '^control/')
rc=0
hangar retry D >"$T/retry.out" 2>&1 || rc=$?
((rc == 66)) || fail "hangar retry of a done mission exited $rc, expected 66: $(cat "$T/retry.out")"
grep -q "is done" "$T/retry.out" || fail "hangar retry D did not say why: $(cat "$T/retry.out")"
[[ -z "$(ls "$S/control/new")" ]] || fail "a refused hangar retry dropped a request"
bad_before=$(ls "$S/control/bad" | wc -l)
printf '{"hangar":1,"request":"retry","id":"D","by":"blackbox"}\n' >"$S/control/tmp/retry.D"
mv "$S/control/tmp/retry.D" "$S/control/new/retry.D"
wait_until 10 controls_taken || fail "the direct retry request was not taken within 10 s"
(($(ls "$S/control/bad" | wc -l) == bad_before + 2)) || fail "the kernel did not keep the refused retry in control/bad"
hangar ledger show --kind control.refused >"$T/refused" 2>&1 || true
grep -q "attempt 1 is done" "$T/refused" || fail "no control.refused entry says D is done: $(cat "$T/refused")"
[[ "$before" == "$(listing | grep -v '^control/')" ]] || fail "the refused retry of D changed the spool"

hangar ledger verify >"$T/verify.out" 2>&1 || fail "hangar ledger verify failed: $(cat "$T/verify.out")"
alive || fail "hangard is not alive"
pass
