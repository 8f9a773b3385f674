#!/usr/bin/env bash
# Bytes that are not JSON land in rejected/ with the raw bytes and why.json; nothing else changes.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
printf '{"hangar": 1, "requester": "x",\n' | drop_tmp truncated
reject_case truncated truncated '' 'json'
printf 'hello, this is not a mission\n' | drop_tmp prose.json
reject_case prose prose.json '' 'json'
: | drop_tmp empty
reject_case empty empty '' '.'
printf '[1,2,3]' | drop_tmp array
reject_case array array '' 'object'
finish
