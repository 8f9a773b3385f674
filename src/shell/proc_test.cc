// Process identity against real processes: a zombie (exited, not yet reaped) keeps its pid and
// start time but is not alive, so a dead drone whose parent never reaps it does not block a retry.
#include "shell/proc.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace hangar {
namespace {

char State(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(f, line);
  size_t close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() ? '?' : line[close + 2];
}

TEST(Proc, ALiveProcessIsItselfAndNotAnotherStartTime) {
  std::optional<uint64_t> start = ProcStartTime(getpid());
  ASSERT_TRUE(start.has_value());
  EXPECT_TRUE(SameProcess(getpid(), *start));
  EXPECT_FALSE(SameProcess(getpid(), *start + 1));
  EXPECT_FALSE(SameProcess(0, *start));
}

TEST(Proc, AZombieIsNotAlive) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    _exit(0);
  }
  setpgid(child, child);  // either side may win the race; the group is the child's own
  std::optional<uint64_t> start;
  for (int i = 0; i < 200 && State(child) != 'Z'; i++) {
    if (!start) start = ProcStartTime(child);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(State(child), 'Z');
  start = ProcStartTime(child);  // a zombie still shows its start time
  ASSERT_TRUE(start.has_value());
  EXPECT_FALSE(SameProcess(child, *start));
  EXPECT_TRUE(ProcessGroupMembers(child).empty());
  waitpid(child, nullptr, 0);
}

}  // namespace
}  // namespace hangar
