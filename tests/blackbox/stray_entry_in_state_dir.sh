#!/usr/bin/env bash
# Regression: a stray file in running/ (or a name that is no id) made hangard take it for a lost
# mission, fail to move it and exit 74 at every start. It must be left alone and said in the log.
. "$(dirname "$0")/lib.sh"
setup 1
echo notes >"$S/running/notes.txt"
mkdir "$S/queued/not an id"
start_hangard
mission after-stray script 1 '[{"file":"R"}]' 'write R ok' | drop after-stray.json
wait_returned after-stray 30
[[ "$(outcome after-stray)" == done ]] || fail "outcome $(outcome after-stray), expected done"
[[ -f "$S/running/notes.txt" && -d "$S/queued/not an id" ]] || fail "the stray entries were touched"
grep -q "running/notes.txt is no mission directory" "$LOG" || fail "the log does not say it left running/notes.txt alone"
pass
