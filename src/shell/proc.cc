#include "shell/proc.h"

#include <dirent.h>

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

}  // namespace

std::optional<uint64_t> ProcStartTime(pid_t pid) {
  std::optional<std::string> t = StatField(pid, 22);
  if (!t) return std::nullopt;
  return std::stoull(*t);
}

std::vector<pid_t> ProcessGroupMembers(pid_t pgid) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::optional<std::string> group = StatField(pid_t(pid), 5);
    if (group && *group == std::to_string(pgid) && !Zombie(pid_t(pid))) out.push_back(pid_t(pid));
  }
  closedir(d);
  return out;
}

bool SameProcess(pid_t pid, uint64_t start_ticks) {
  if (pid <= 0) return false;
  std::optional<uint64_t> s = ProcStartTime(pid);
  return s && *s == start_ticks && !Zombie(pid);
}

}  // namespace hangar
