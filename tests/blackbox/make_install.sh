#!/usr/bin/env bash
# blackbox-heavy
# make install and make uninstall into a scratch DESTDIR (man hangard.8, SYSTEMD): each file in its
# FHS place with its mode; the installed unit runs the installed hangard on the installed config,
# and that hangard starts on it and launches a drone through the hangar-shim installed beside it;
# a second install keeps an edited hangar.conf and a changed spool mode; systemd-analyze verify
# accepts the units (when it is installed); uninstall removes the program, keeps config and spool.
# It copies what make built and never builds (make -o): it runs beside other builds of the tree.
. "$(dirname "$0")/lib.sh"
setup
D=$T/root
mk() {
  env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$ROOT" --no-print-directory \
    -o bin/hangard -o bin/hangar -o bin/hangar-shim -o bin/hangar-confine \
    -o bin/hangar-resume-hook -o bin/hangar-codex-resume "$@" >>"$T/make.log" 2>&1 ||
    fail "make $*: $(tail -n 5 "$T/make.log")"
}
problems=()
# want MODE PATH: PATH exists with that mode (octal, as stat %a prints it).
want() {
  if [[ ! -e "$2" ]]; then problems+=("${2#"$D"} missing")
  elif [[ "$(stat -c %a "$2")" != "$1" ]]; then problems+=("${2#"$D"} mode $(stat -c %a "$2"), not $1"); fi
}
gone() { [[ ! -e "$1" ]] || problems+=("${1#"$D"} still there"); }
report() { ((${#problems[@]} == 0)) || fail "$1: $(printf '%s; ' "${problems[@]}")"; }

mk install DESTDIR="$D" PREFIX=/usr
for b in hangard hangar hangar-shim hangar-confine hangar-resume-hook hangar-codex-resume; do
  want 755 "$D/usr/bin/$b"
  cmp -s "$BIN/$b" "$D/usr/bin/$b" || problems+=("/usr/bin/$b is not bin/$b")
done
gone "$D/usr/bin/hangar-fake-drone"
for m in "$ROOT"/man/*.[158]; do want 644 "$D/usr/share/man/man${m##*.}/$(basename "$m")"; done
for u in hangard.service hangar-reconcile.service hangar-reconcile.timer; do
  want 644 "$D/usr/lib/systemd/system/$u"
done
want 755 "$D/etc/hangar"
want 644 "$D/etc/hangar/hangar.conf.example"
want 640 "$D/etc/hangar/hangar.conf"
cmp -s "$ROOT/etc/hangar.conf.example" "$D/etc/hangar/hangar.conf" || problems+=("hangar.conf is not the example")
want 750 "$D/var/spool/hangar"
want 700 "$D/var/lib/hangar-anchor"
want 644 "$D/usr/share/bash-completion/completions/hangar"
"$BIN/hangar" completion bash | cmp -s - "$D/usr/share/bash-completion/completions/hangar" ||
  problems+=("the bash completion is not what hangar completion bash generates")
report "after the first install"

# The unit names the installed binary and config, and the config and the unit the same places.
UNIT=$D/usr/lib/systemd/system/hangard.service
grep -q -x 'ExecStart=/usr/bin/hangard --config /etc/hangar/hangar.conf' "$UNIT" ||
  fail "hangard.service does not run the installed hangard: $(grep ExecStart "$UNIT")"
! grep -q '@[A-Z]*@' "$D"/usr/lib/systemd/system/* || fail "a placeholder left in a unit: $(grep '@[A-Z]*@' "$D"/usr/lib/systemd/system/*)"
grep -q -x 'RequiresMountsFor=/var/spool/hangar /var/lib/hangar-anchor' "$UNIT" || fail "RequiresMountsFor: $(grep RequiresMountsFor "$UNIT")"
places=$(jget "$D/etc/hangar/hangar.conf" "d['spool'] + ' ' + d['anchor']")
[[ "$places" == "/var/spool/hangar /var/lib/hangar-anchor" ]] || fail "the config's spool and anchor: $places"

# The installed hangard on the installed config (its spool and anchor staged in $D); a drone of
# the "true" profile runs through the hangar-shim beside it.
S=$D/var/spool/hangar
A=$D/var/lib/hangar-anchor
"$D/usr/bin/hangard" --config "$D/etc/hangar/hangar.conf" --spool "$S" --anchor "$A" </dev/null >>"$LOG" 2>&1 &
HPID=$!
wait_until 10 hangard_up || fail "the installed hangard did not start on the installed config"
jq_ok "$S/hangard.json" "d['config'] == '$D/etc/hangar/hangar.conf' and d['ledger']['state'] == 'ok'" ||
  fail "hangard.json: $(cat "$S/hangard.json")"
if jq_ok "$S/hangard.json" "d['sandbox']['bwrap']"; then
  mission I1 true 1 '' 'nothing to do' | drop I1.json
  wait_returned I1 20
  [[ "$(outcome I1)" == done ]] || fail "I1 returned $(outcome I1): $(cat "$S/returned/I1/return.json")"
else
  note "no bubblewrap: the drone is not launched (its sandbox is missing)"
fi
stop_hangard TERM

# A second install keeps what the admin changed.
python3 - "$D/etc/hangar/hangar.conf" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["slots"] = 3
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
cp "$D/etc/hangar/hangar.conf" "$T/edited.conf"
chmod 0770 "$D/var/spool/hangar"
mk install DESTDIR="$D" PREFIX=/usr
cmp -s "$T/edited.conf" "$D/etc/hangar/hangar.conf" || fail "a second install changed the edited hangar.conf"
want 640 "$D/etc/hangar/hangar.conf"
want 770 "$D/var/spool/hangar"
cmp -s "$ROOT/etc/hangar.conf.example" "$D/etc/hangar/hangar.conf.example" || problems+=("the example is not renewed")
report "after the second install"

# systemd-analyze checks the units as systemd would load them: the binaries they run must exist,
# so they are installed for a prefix whose path leads into the staged tree (a symbolic link), and
# the man pages they name must be found (MANPATH).
if command -v systemd-analyze >/dev/null; then
  P=$T/prefix
  mk install DESTDIR="$T/stage" PREFIX="$P"
  ln -s "$T/stage$P" "$P"
  U=$P/lib/systemd/system
  rc=0
  man=()  # without man(1), systemd-analyze cannot look the pages up: it would fail on that alone
  command -v man >/dev/null || { man=(--man=no); note "no man(1): the units' man pages not looked up"; }
  MANPATH=$P/share/man systemd-analyze verify "${man[@]}" "$U/hangard.service" "$U/hangar-reconcile.service" \
    "$U/hangar-reconcile.timer" >"$T/verify.out" 2>&1 || rc=$?
  ((rc == 0)) && [[ ! -s "$T/verify.out" ]] || fail "systemd-analyze verify (exit $rc): $(cat "$T/verify.out")"
  pass "$TEST/systemd-analyze"
else
  say "skip $TEST/systemd-analyze: skipped: no systemd"
fi

mk uninstall DESTDIR="$D" PREFIX=/usr
for f in usr/bin/hangard usr/bin/hangar usr/bin/hangar-shim usr/bin/hangar-confine \
  usr/bin/hangar-resume-hook usr/bin/hangar-codex-resume usr/share/man/man8/hangard.8 \
  usr/share/man/man1/hangar.1 usr/share/man/man5/hangar.conf.5 usr/lib/systemd/system/hangard.service \
  usr/lib/systemd/system/hangar-reconcile.service usr/lib/systemd/system/hangar-reconcile.timer \
  etc/hangar/hangar.conf.example usr/share/bash-completion/completions/hangar; do
  gone "$D/$f"
done
cmp -s "$T/edited.conf" "$D/etc/hangar/hangar.conf" || problems+=("hangar.conf not kept")
[[ -f "$S/hangard.json" && -d "$S/ledger/live" ]] || problems+=("the spool not kept")
[[ -s "$A/live.anchor" ]] || problems+=("the anchor not kept")
[[ -z "$(find "$D" -type f -path '*/share/man/*')" ]] || problems+=("man pages left: $(find "$D" -type f -path '*/share/man/*')")
report "after uninstall"
pass
