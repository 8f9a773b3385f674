#!/usr/bin/env bash
# Credentials hidden by default (issue 20): the built-in policy hides every home's credentials
# (~*/.ssh, .aws, .config/gh, ... : home patterns, expanded from the user database at start) and
# refuses writes into them. A user U the test creates has each credential path, world-readable:
# only the sandbox stands between a drone and them. A drone reads none of them (its output, on the
# host, holds no secret) and creates no file outside its room (the room's parent, /tmp, U's home).
# A mission whose writes land in one, directly, through "..", or through a symbolic link, is
# denied at stage 1 with the pattern named; a write elsewhere in U's home is not.
. "$(dirname "$0")/lib.sh"
each_identity engines
setup 2
U=hangar-cred-$$
H=/home/$U
passwd_db useradd -m -d "$H" -s /usr/sbin/nologin "$U" 2>"$T/useradd.err" || fail "useradd: $(cat "$T/useradd.err")"
teardown_extra() { passwd_db userdel -r "$U" 2>/dev/null; rm -rf "$H" "/tmp/cred-link-$$" "/tmp/cred-escape-$$"; }
creds=(.ssh/id_ed25519 .gnupg/secring.gpg .aws/credentials .azure/accessTokens.json
  .config/gcloud/credentials.db .kube/config .docker/config.json .netrc .git-credentials
  .codex/auth.json .claude/.credentials.json .config/gh/hosts.yml)
for c in "${creds[@]}"; do
  mkdir -p "$H/$(dirname "$c")"
  echo "SECRET-$$-$c" >"$H/$c"
done
chmod -R a+rX "$H"
ln -s "$H/.aws" "/tmp/cred-link-$$"
cat >"$T/read.sh" <<READ
for c in ${creds[*]}; do cat "$H/\$c" >>got.txt 2>/dev/null; done
ls -la "$H/.ssh" "$H/.aws" >ls.txt 2>&1
touch ../escape.txt /tmp/cred-escape-$$ "$H/.aws/new" "$H/planted" 2>/dev/null
exit 0
READ
edit_conf "c['profiles']['reader'] = {'argv': ['/bin/sh', t + '/read.sh'], 'prompt': 'stdin'}"
as_hangard_user
start_hangard

mission R1 reader 1 '' 'read what you can' | drop R1.json
# writes_to ID PATH: a mission of the true profile whose writes name PATH.
writes_to() {
  python3 -c 'import json,sys; print(json.dumps({"hangar":1,"id":sys.argv[1],"requester":"t","drone":"true","future":"write a file","now":"a test","max_minutes":1,"writes":[sys.argv[2]]}))' "$1" "$2" | drop "$1.json"
}
writes_to W1 "$H/.aws/credentials"
writes_to W2 "$H/x/../.ssh/authorized_keys"
writes_to W3 "/tmp/cred-link-$$/credentials"
writes_to W4 "$H/.config/gh"
writes_to W0 "$H/notes.txt"
wait_returned R1 30
check reads-no-secret test -z "$(grep -o "SECRET-$$" "$S/rooms/R1/got.txt" 2>/dev/null)"
check creates-nothing-outside test ! -e "$S/rooms/escape.txt" -a ! -e "/tmp/cred-escape-$$" \
  -a ! -e "$H/.aws/new" -a ! -e "$H/planted"
for id in W1 W2 W3 W4; do
  wait_until 10 test -d "$S/denied/$id" || fail "$id not denied (state: $(state_of "$id"))"
done
check direct-names-pattern jq_ok "$S/denied/W1/why.json" "'~*/.aws' in d['reason']"
check dotdot-denied jq_ok "$S/denied/W2/why.json" "'.ssh' in d['reason']"
check symlink-denied jq_ok "$S/denied/W3/why.json" "'resolves to $H/.aws/credentials' in d['reason'] and '~*/.aws' in d['reason']"
check over-pattern-denied jq_ok "$S/denied/W4/why.json" "'~*/.config/gh' in d['reason']"
taken_in() { test -n "$(state_of "$1")"; }  # evaluated at each try
wait_until 10 taken_in W0 || fail "W0 not taken in"
check elsewhere-not-denied test "$(state_of W0)" != denied
note "R1 saw: $(head -c 300 "$S/rooms/R1/ls.txt" | tr '\n' ' ')"
((FAILED == 0)) || exit 1
pass
