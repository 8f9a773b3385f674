// Process identity against real processes: a zombie (exited, not yet reaped) keeps its pid and
// start time but is not alive, so a dead drone whose parent never reaps it does not block a retry.
#include "shell/proc.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

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

// The supervisor kills what is left of a mission by this list: every child, a zombie and one that
// escaped into its own session included, and nothing else (not a grandchild); the kernel's list and
// the scan of /proc agree.
TEST(Proc, ChildProcessesAreExactlyThisProcesssChildren) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  std::vector<pid_t> kids;
  for (int i = 0; i < 3; i++) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      if (i == 0) {  // a group of its own, with a child of its own
        setpgid(0, 0);
        pid_t grandchild = fork();
        if (grandchild == 0) {
          pause();
          _exit(0);
        }
        (void)!write(p[1], &grandchild, sizeof grandchild);
      }
      if (i == 1) setsid();  // a daemon's escape: another session, still our child
      if (i == 2) _exit(0);  // a zombie until reaped
      pause();
      _exit(0);
    }
    kids.push_back(child);
  }
  pid_t grandchild = 0;
  ASSERT_EQ(read(p[0], &grandchild, sizeof grandchild), ssize_t(sizeof grandchild));
  close(p[0]);
  close(p[1]);
  for (int i = 0; i < 200 && State(kids[2]) != 'Z'; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const pid_t group = kids[0];
  std::sort(kids.begin(), kids.end());
  EXPECT_EQ(ChildProcesses(), kids);
  EXPECT_EQ(ChildProcessesScanned(), kids);
  EXPECT_EQ(std::count(kids.begin(), kids.end(), grandchild), 0);
  kill(-group, SIGKILL);  // the first and its child
  for (pid_t k : kids) kill(k, SIGKILL);
  for (pid_t k : kids) waitpid(k, nullptr, 0);
  EXPECT_TRUE(ChildProcesses().empty());
  EXPECT_TRUE(ChildProcessesScanned().empty());
}

}  // namespace
}  // namespace hangar
