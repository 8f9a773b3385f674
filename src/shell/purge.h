// Purging, the shell's half (man/hangar-spool.5 "PURGE"): the kernel decided and recorded that a
// mission in a terminal state goes (kernel.h Purge); here its tombstone is written, then its
// directory and room are removed. Order: the tombstone first and durably, so from then on the id
// is taken whatever else a stop cuts short; the directory is renamed into purged/.trash before it
// is removed, so no reader ever sees half a mission in its state directory.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "env/env.h"
#include "kernel/kernel.h"
#include "kernel/layout.h"

namespace hangar {

// Performs a Purge. A spool failure (the tombstone, the rename) is returned: hangard stops its
// work and the next start finishes the purge from the tombstone. What could not be removed of the
// room or the trash (a room on another filesystem, a file its drone made immutable) is said in
// *said and left for the next start to try again.
Status PerformPurge(Env* env, const Layout& l, const Purge& p, std::vector<std::string>* said);

// At start: every tombstone in purged/ as a Recovered signal with purged set (its state, intake
// time, attempts and owner as the tombstone says; a tombstone that cannot be read still keeps its
// id taken, as returned), after finishing what a stop cut short: a mission directory the tombstone
// names still in its state directory, its room, its notify record, and everything in
// purged/.trash are removed. Each thing done or left is a line in *log.
Result<std::vector<Recovered>> RecoverPurged(Env* env, const Layout& l, TimeMs now,
                                             std::vector<std::string>* log);

}  // namespace hangar
