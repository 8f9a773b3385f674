#!/usr/bin/env bash
# scripts/check-layers (make check-layers): the source tree keeps its layers, and the check is real:
# on a copy of src/ with an upward include planted (the kernel including the daemon; the ledger
# including the shell) or the pure kernel reaching the disk (<fstream>), it fails naming the file,
# the line and the layers; a folder it does not know fails too; a kernel test may read files.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/hangar-bb-check-layers.XXXXXX")
trap 'rm -rf "$T"' EXIT
check tree-keeps-its-layers "$ROOT/scripts/check-layers"
plant() {  # plant NAME FILE LINE EXPECTED: copy src/, add LINE to FILE, expect a failure saying EXPECTED
  rm -rf "$T/src" && cp -r "$ROOT/src" "$T/src"
  printf '%s\n' "$3" >>"$T/src/$2"
  local rc=0
  "$ROOT/scripts/check-layers" "$T/src" >"$T/out" 2>&1 || rc=$?
  check "$1-fails" test "$rc" == 1
  check "$1-named" grep -qF "$4" "$T/out"
}
n=$(($(wc -l <"$ROOT/src/kernel/plan.h") + 1))
plant kernel-includes-daemon kernel/plan.h '#include "daemon/daemon.h"' "src/kernel/plan.h:$n: kernel includes from daemon"
plant ledger-includes-shell ledger/store.cc '#include "shell/scan.h"' "ledger includes from shell"
plant kernel-reads-disk kernel/gate.cc '#include <fstream>' "the pure kernel includes <fstream>"
rm -rf "$T/src" && cp -r "$ROOT/src" "$T/src" && echo '#include <fstream>' >>"$T/src/kernel/gate_test.cc"
check kernel-test-may-read-files "$ROOT/scripts/check-layers" "$T/src"
rm -rf "$T/src" && cp -r "$ROOT/src" "$T/src" && mkdir "$T/src/extra" && touch "$T/src/extra/x.h"
check unknown-folder-fails bash -c "! '$ROOT/scripts/check-layers' '$T/src' >'$T/out' 2>&1 && grep -q 'a folder check-layers does not know' '$T/out'"
((FAILED == 0)) || exit 1
pass
