#!/usr/bin/env bash
# A mission with a field the format does not have is rejected, naming that field.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mutated '' 'm["colour"] = "red"' | drop_tmp unknown
reject_case top unknown colour 'unknown'
mutated '' 'm["done_when"] = [{"file": "R.md", "mode": 1}]' | drop_tmp unknown-check
reject_case check unknown-check 'done_when[0].mode' 'unknown'
finish
