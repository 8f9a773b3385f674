#!/usr/bin/env bash
# A mission without an id takes its file name (".json" removed) when that is a valid unused id;
# a name already used or not a valid id gets a generated id instead (never a duplicate reject).
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mission '' true 1 '' x | drop plain-name.json
wait_returned plain-name 20
mission '' true 1 '' x | drop plain-name.json
mission '' true 1 '' x | drop 'bad name!'
gen() { [[ $(find "$S/returned" -mindepth 1 -maxdepth 1 -name '2*Z-*' | wc -l) -ge 2 ]]; }
wait_until 20 gen || fail "the second plain-name.json and 'bad name!' did not return under generated ids: $(ls "$S/returned" "$S/rejected")"
[[ -z "$(find "$S/rejected" -mindepth 1 -maxdepth 1 ! -name '.*')" ]] || fail "something was rejected: $(ls "$S/rejected")"
pass
