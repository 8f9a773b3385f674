# shellcheck shell=bash
# scripts/bench-trash.sh — sourced by the bench scripts: bench_discard, a part's scratch set aside
# instead of removed while later parts measure.
#
# Removing a spool frees its inodes. On an ext4 without a journal (this machine's /tmp), each inode
# allocated in the next minutes scans past every inode freed in them (recently_deleted in
# fs/ext4/ialloc.c), so a run made right after another run's removal pays for that removal: some 3 ms
# of CPU a mission, 17 % fewer jobs/s at slots 2 (docs/BENCHMARKS.md, Reading the figures). make bench
# and make bench-quick run their parts under scripts/bench-set-aside, which sets BENCH_TRASH to a new
# directory beside the scratch and removes it after the last part; a part run alone has no
# BENCH_TRASH and removes its scratch as before.

# bench_discard PATH...: each PATH that exists renamed into BENCH_TRASH when that is set, a
# directory (not a link; scripts/bench-set-aside made it) and on PATH's filesystem (a rename frees
# no inode), else removed.
bench_discard() {
  local p
  for p in "$@"; do
    [[ -e $p || -L $p ]] || continue
    if [[ -n ${BENCH_TRASH:-} && -d $BENCH_TRASH && ! -L $BENCH_TRASH ]] &&
      [[ $(stat -c %d -- "$p") == "$(stat -c %d -- "$BENCH_TRASH")" ]] &&
      mv -T -- "$p" "$(mktemp -u "$BENCH_TRASH/d.XXXXXXXX")" 2>/dev/null; then
      continue
    fi
    rm -rf -- "$p"
  done
}
