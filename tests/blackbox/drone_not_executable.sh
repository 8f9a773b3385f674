#!/usr/bin/env bash
# A drone program that cannot be executed fails the launch with hangar's own clear reason (issue
# 25), the same the shim gives unsandboxed (its unit test) and the systemd launcher gives
# (engine_launcher_test): a program that is not there and one without execute permission, each
# in bubblewrap, return failed with exit.error "cannot execute PROGRAM: REASON" and no exit status
# of their own (before: only a drone that "exited 1" or 127, bwrap's or hangar-confine's execvp
# failing inside). A drone without a sandbox is never allowed here (hangar's own directories would
# not be hidden: gate stage 2), so the sandbox is bwrap. As root and as an unprivileged user.
. "$(dirname "$0")/lib.sh"
each_identity engines
setup 2
printf '#!/bin/sh\nexit 0\n' >"$T/not-exec.sh" && chmod 644 "$T/not-exec.sh"
edit_conf "
c['profiles']['gone'] = {'argv': ['/usr/bin/hangar-no-such-drone'], 'prompt': 'stdin'}
c['profiles']['noexec'] = {'argv': [t + '/not-exec.sh'], 'prompt': 'stdin'}
"
as_hangard_user
start_hangard
for p in gone noexec; do mission "$p" "$p" 1 '' 'nothing' | drop "$p.json"; done
for p in gone noexec; do wait_returned "$p" 20; done
check sandboxed jq_ok "$S/returned/gone/plan.json" "d['sandbox']['engine'] == '${ENGINE:-bwrap}'"
check gone jq_ok "$S/returned/gone/return.json" \
  "d['outcome'] == 'failed' and d['exit']['rc'] is None and d['exit']['error'] == 'cannot execute /usr/bin/hangar-no-such-drone: No such file or directory'"
check noexec jq_ok "$S/returned/noexec/return.json" \
  "d['outcome'] == 'failed' and d['exit']['rc'] is None and d['exit']['error'] == 'cannot execute $T/not-exec.sh: Permission denied (not executable)'"
((FAILED == 0)) || { for p in gone noexec; do note "$p: $(head -c 600 "$S/returned/$p/return.json")"; done; fail "see above"; }
pass
