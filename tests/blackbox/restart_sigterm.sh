#!/usr/bin/env bash
# hangard stopped with SIGTERM while drones run, then started again: the drones finish, are not
# relaunched (one start each), their returns are complete, and a drop made meanwhile is taken.
. "$(dirname "$0")/lib.sh"
restart_case TERM
