#!/usr/bin/env bash
# bash completion (issue 25), generated from the command line's own definitions: sourced in bash,
# it completes every command `hangar --help` lists, the commands under ledger, each command's own
# options and the global ones after it, and mission ids from the spool where a command takes one.
. "$(dirname "$0")/lib.sh"
setup 1
"$BIN/hangar" completion bash >"$T/hangar.bash" || fail "hangar completion bash failed"
bash -n "$T/hangar.bash" || fail "the script is not valid bash"
mkdir -p "$S/returned/M-done-1" "$S/queued/M-wait-2"
# complete WORD...: what the script offers for the command line "hangar WORD..." (last word: the
# one being completed), one per line, sorted.
complete_words() {
  bash -c '. "$1"; shift; COMP_WORDS=(hangar "$@"); COMP_CWORD=$#; _hangar; printf "%s\n" "${COMPREPLY[@]}" | sort' \
    _ "$T/hangar.bash" "$@"
}
commands=$("$BIN/hangar" --help | awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1}' | sort)
[[ -n "$commands" ]] || fail "no commands in hangar --help"
offered=$(complete_words '' | grep -v '^$')
check every-command test "$commands" = "$(grep -Fx -f <(printf '%s\n' $commands) <<<"$offered" | sort)"
check prefix grep -qx 'ledger' <(complete_words le)
check ledger-subcommands test "$(complete_words ledger '' | tr '\n' ' ')" = "reanchor show verify "
check own-option grep -qx -- '--tail' <(complete_words logs --t)
check global-after grep -qx -- '--spool' <(complete_words logs --sp)
check nested-option grep -qx -- '--why' <(complete_words ledger reanchor --w)
check ids-from-spool test "$(complete_words --spool "$S" show M- | tr '\n' ' ')" = "M-done-1 M-wait-2 "
check no-ids-for-submit test -z "$(complete_words --spool "$S" submit M- )"
((FAILED == 0)) || fail "see above"
pass
