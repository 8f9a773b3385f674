#!/usr/bin/env bash
# hangard SIGKILLed while drones run, then started again: the drones finish under their shims, are
# not relaunched (one start each), their returns are complete, and a drop made meanwhile is taken.
. "$(dirname "$0")/lib.sh"
restart_case KILL
