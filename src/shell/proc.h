// Process identity. A process is the pair (pid, start time in clock ticks since boot, field 22 of
// /proc/PID/stat): a pid alone can be reused, a prefix or substring of a name never identifies.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace hangar {

std::optional<uint64_t> ProcStartTime(pid_t pid);
// True only when pid is alive (a zombie is not) and started at exactly start_ticks.
bool SameProcess(pid_t pid, uint64_t start_ticks);

// Every live process (not a zombie) whose process group is pgid (field 5 of /proc/PID/stat), as
// this process's pid namespace numbers them; also those inside a child pid namespace (a bwrap
// sandbox).
std::vector<pid_t> ProcessGroupMembers(pid_t pgid);

}  // namespace hangar
