#!/usr/bin/env bash
# A field of the wrong type is rejected, naming the field.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mutated '' 'm["max_minutes"] = "ten"' | drop_tmp mm-string
reject_case max_minutes mm-string max_minutes 'number'
mutated '' 'm["requester"] = 5' | drop_tmp req-number
reject_case requester req-number requester 'string'
mutated '' 'm["constraints"] = "be nice"' | drop_tmp constraints-string
reject_case constraints constraints-string constraints 'list'
mutated '' 'm["hangar"] = "1"' | drop_tmp version-string
reject_case hangar version-string hangar '1'
finish
