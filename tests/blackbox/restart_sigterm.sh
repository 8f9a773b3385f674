#!/usr/bin/env bash
# hangard stopped with SIGTERM while drones run, then started again: the drones finish, are not
# relaunched (one start each) and their returns are complete.
. "$(dirname "$0")/lib.sh"
restart_case TERM
