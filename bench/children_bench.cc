// hangar-bench-children: what the supervisor's sweep for a mission's stragglers costs at each
// mission's end (launch/supervisor.h: it kills every child it has left, again until none is left,
// before it writes exit.json and hangard can return the mission). The list of one's children two
// ways (shell/proc.h): the kernel's own list (/proc/self/task/TID/children), and a read of every
// /proc/PID/stat on the machine, which it was. The second grows with the machine's processes: it
// runs with this machine's, then with --extra more started (sleeping, in sessions of their own,
// not this process's children), as on a developer's machine with editors, language servers and
// agents running. Interleaved, N times each; prints the medians and writes JSON with --json FILE.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "bench_cli.h"
#include "shell/proc.h"

namespace {

using namespace hangar;

int ProcessesRunning() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc"))
    n += e.path().filename().string().find_first_not_of("0123456789") == std::string::npos;
  return n;
}

struct Figures {
  int processes = 0;
  double kernel_ms = 0, scan_ms = 0;
};

Figures Time(int n) {
  std::vector<double> kernel, scan;
  for (int i = 0; i < n; ++i) {
    auto t0 = bench::Clock::now();
    std::vector<pid_t> a = ChildProcesses();
    kernel.push_back(bench::Since(t0) * 1000);
    t0 = bench::Clock::now();
    std::vector<pid_t> b = ChildProcessesScanned();
    scan.push_back(bench::Since(t0) * 1000);
    if (a != b || a.size() != 1) bench::Die("the two lists differ, or are not our one child");
  }
  std::sort(kernel.begin(), kernel.end());
  std::sort(scan.begin(), scan.end());
  return {ProcessesRunning(), kernel[kernel.size() / 2], scan[scan.size() / 2]};
}

double Round3(double x) {
  return std::round(x * 1000) / 1000;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"What listing its children costs the supervisor at each mission's end"};
  int n = 200, extra = 1000;
  std::string json_out;
  app.add_option("--n", n, "lists timed each way, each case")->check(CLI::Range(1, 100000));
  app.add_option("--extra", extra, "processes started for the second case")
      ->check(CLI::Range(0, 20000));
  app.add_option("--json", json_out, "write the figures to this file");
  bench::Parse(app, argc, argv);
  const pid_t child = fork();  // the one child both lists must find
  if (child < 0) bench::Die("fork");
  if (child == 0) {
    pause();
    _exit(0);
  }
  const Figures idle = Time(n);
  // The crowd: a session of its own, not ours (its leader's parent ends at once), one group.
  int p[2];
  if (pipe(p) != 0) bench::Die("pipe");
  const pid_t starter = fork();
  if (starter < 0) bench::Die("fork");
  if (starter == 0) {
    if (fork() == 0) {
      const pid_t group = setsid();
      for (int i = 0; i < extra; ++i)
        if (fork() == 0) {
          pause();
          _exit(0);
        }
      (void)!write(p[1], &group, sizeof group);
      pause();
      _exit(0);
    }
    _exit(0);
  }
  waitpid(starter, nullptr, 0);
  pid_t crowd = 0;
  if (read(p[0], &crowd, sizeof crowd) != ssize_t(sizeof crowd)) bench::Die("start the crowd");
  const Figures busy = Time(n);
  kill(-crowd, SIGKILL);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  std::printf("%-58s %10s %10s %7s\n", "a mission's end: its supervisor lists its children",
              "kernel", "/proc scan", "ratio");
  for (const Figures* f : {&idle, &busy})
    std::printf("  with %5d processes on the machine, p50 ms %19.3f %10.3f %7.0f\n", f->processes,
                f->kernel_ms, f->scan_ms, f->scan_ms / f->kernel_ms);
  if (!json_out.empty()) {
    json::Array cases;
    for (const Figures* f : {&idle, &busy})
      cases.push_back(json::Object{{"processes", f->processes},
                                   {"kernel_p50_ms", Round3(f->kernel_ms)},
                                   {"scan_p50_ms", Round3(f->scan_ms)},
                                   {"ratio", std::round(f->scan_ms / f->kernel_ms)}});
    json::Object o{{"bench", "children"}, {"n", n}, {"cases", std::move(cases)}};
    std::ofstream(json_out) << json::WritePretty(json::Value(std::move(o)));
  }
  return 0;
}
