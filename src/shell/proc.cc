#include "shell/proc.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace hangar {

namespace {

// Field `n` (3 or more) of /proc/PID/stat. The command name (field 2) may hold spaces and
// parentheses: fields resume after the last ')'.
std::optional<std::string> StatField(pid_t pid, int n) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return std::nullopt;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  for (int i = 3; i <= n; i++)
    if (!(rest >> field)) return std::nullopt;
  return field;
}

// A zombie keeps its pid, group and start time until it is reaped (where no init reaps orphans,
// that may be never), but it runs nothing.
bool Zombie(pid_t pid) {
  std::optional<std::string> state = StatField(pid, 3);
  return state && *state == "Z";
}

// Every pid in /proc for which KEEP holds, in ascending order.
template <typename Keep>
std::vector<pid_t> ProcessesWhere(Keep keep) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (pid > 0 && *end == '\0' && keep(pid_t(pid))) out.push_back(pid_t(pid));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::optional<uint64_t> ProcStartTime(pid_t pid) {
  std::optional<std::string> t = StatField(pid, 22);
  if (!t) return std::nullopt;
  return std::stoull(*t);
}

std::vector<pid_t> ProcessGroupMembers(pid_t pgid) {
  const std::string group = std::to_string(pgid);
  return ProcessesWhere([&](pid_t pid) {
    std::optional<std::string> g = StatField(pid, 5);
    return g && *g == group && !Zombie(pid);
  });
}

std::vector<pid_t> ChildProcesses() {
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return ChildProcessesScanned();
  std::vector<pid_t> out;
  bool listed = false;  // a children file was there to read
  while (dirent* t = readdir(tasks)) {
    if (t->d_name[0] == '.') continue;
    std::ifstream f(std::string("/proc/self/task/") + t->d_name + "/children");
    if (!f) continue;
    listed = true;
    for (long pid; f >> pid;)
      if (pid > 0) out.push_back(pid_t(pid));
  }
  closedir(tasks);
  if (!listed) return ChildProcessesScanned();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<pid_t> ChildProcessesScanned() {
  const std::string self = std::to_string(getpid());
  return ProcessesWhere([&](pid_t pid) {
    std::optional<std::string> parent = StatField(pid, 4);
    return parent && *parent == self;
  });
}

bool SameProcess(pid_t pid, uint64_t start_ticks) {
  if (pid <= 0) return false;
  std::optional<uint64_t> s = ProcStartTime(pid);
  return s && *s == start_ticks && !Zombie(pid);
}

}  // namespace hangar
