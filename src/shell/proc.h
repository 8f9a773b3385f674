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

// This process's children, zombies included: what each of its threads' /proc/self/task/TID/children
// lists (the kernel's own list, one read a thread), or, on a kernel built without those files
// (CONFIG_PROC_CHILDREN), ChildProcessesScanned. Either may miss a child forked or reparented while
// it reads: a caller that must leave none (the supervisor, killing a mission's stragglers) asks
// again until waitpid(2) says there is no child.
std::vector<pid_t> ChildProcesses();
// The same from every /proc/PID/stat whose parent (field 4) is this process: a read of each process
// on the machine, some 10 system calls each (1,300 with 130 processes running).
std::vector<pid_t> ChildProcessesScanned();

}  // namespace hangar
