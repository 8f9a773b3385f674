#include "shell/proc.h"

#include <fstream>
#include <sstream>
#include <string>

namespace hangar {

std::optional<uint64_t> ProcStartTime(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22; i++) {
    if (!(rest >> field)) return std::nullopt;
    if (i == 22) return std::stoull(field);
  }
  return std::nullopt;
}

bool SameProcess(pid_t pid, uint64_t start_ticks) {
  if (pid <= 0) return false;
  std::optional<uint64_t> s = ProcStartTime(pid);
  return s && *s == start_ticks;
}

}  // namespace hangar
