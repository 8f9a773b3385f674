#!/usr/bin/env bash
# A mission with bytes that are not UTF-8 (inside a JSON string) is rejected.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
printf '{"hangar":1,"requester":"bb","drone":"true","future":"caf\xe9","now":"x","max_minutes":1}' | drop_tmp latin1
reject_case latin1 latin1 '*' 'utf-?8'
printf '{"hangar":1,"requester":"bb","drone":"true","future":"\xed\xa0\x80","now":"x","max_minutes":1}' | drop_tmp surrogate
reject_case surrogate surrogate '*' 'utf-?8'
finish
