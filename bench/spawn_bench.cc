// hangar-bench-spawn: what starting a child costs the process that starts it, by the two ways
// hangar has: a fork then exec (Boost.Process 1.74's only launcher, which starts hangard's helpers:
// the done-checks, the window's handlers) and posix_spawn (glibc: clone with CLONE_VM|CLONE_VFORK,
// no copy of the page tables; hangard's launches, launch/direct_launcher.cc). A fork copies the
// parent's page tables and then faults on each page either side writes, so its cost grows with
// the parent's resident memory: hangard's is some 20 MiB idle and 130 MiB with 100,000 missions
// queued (scripts/bench-scale). Each way runs /bin/true N times, waiting for each, from a parent
// holding MiB of written memory and two idle threads, as hangard does; interleaved in rounds.
// Prints the parent's CPU time and the wall time per start, medians over the rounds, and their
// ratios; writes JSON with --json FILE.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/io.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "base/json.h"
#include "bench_cli.h"

namespace {

namespace bp = boost::process;
using namespace hangar;

bool ForkExec() {
  std::error_code ec;
  bp::child c(bp::exe = "/bin/true", bp::std_in < bp::null, ec);
  if (ec) return false;
  c.wait(ec);
  return !ec && c.exit_code() == 0;
}

bool Spawn() {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  char prog[] = "/bin/true";
  char* argv[] = {prog, nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, prog, &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  return rc == 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int n = 200, rounds = 5;
  std::string json_out;
  std::vector<int> sizes = {20, 130};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--n") n = std::stoi(argv[i + 1]);
    if (a == "--rounds") rounds = std::stoi(argv[i + 1]);
    if (a == "--json") json_out = argv[i + 1];
  }
  for (int t = 0; t < 2; ++t)
    std::thread([] { std::this_thread::sleep_for(std::chrono::hours(24)); }).detach();
  std::printf("%-46s %12s %12s %7s\n", "figure", "fork+exec", "posix_spawn", "ratio");
  json::Object cases;
  for (int mib : sizes) {
    std::vector<char> resident(size_t(mib) << 20, 1);  // written: every page resident
    std::vector<double> cpu[2], wall[2];
    for (int r = 0; r < rounds; ++r)
      for (int way : {0, 1}) {
        const double c0 = bench::CpuSeconds(RUSAGE_SELF);
        const auto w0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
          if (!(way == 0 ? ForkExec() : Spawn())) {
            std::fprintf(stderr, "hangar-bench-spawn: /bin/true did not run\n");
            return 1;
          }
          resident[(size_t(i) * 4096 * 7) % resident.size()]++;  // the daemon goes on writing
        }
        cpu[way].push_back((bench::CpuSeconds(RUSAGE_SELF) - c0) / n * 1e3);
        wall[way].push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count() / n * 1e3);
      }
    const double cf = Median(cpu[0]), cs = Median(cpu[1]), wf = Median(wall[0]),
                 ws = Median(wall[1]);
    std::printf("%-46s %12.3f %12.3f %7.1f\n",
                ("parent CPU ms per start, " + std::to_string(mib) + " MiB resident").c_str(), cf,
                cs, cf / cs);
    std::printf("%-46s %12.3f %12.3f %7.1f\n",
                ("wall ms per start (to its exit), " + std::to_string(mib) + " MiB").c_str(), wf,
                ws, wf / ws);
    cases[std::to_string(mib)] = json::Object{
        {"resident_mib", mib}, {"fork_cpu_ms", cf},    {"spawn_cpu_ms", cs},   {"fork_wall_ms", wf},
        {"spawn_wall_ms", ws}, {"cpu_ratio", cf / cs}, {"wall_ratio", wf / ws}};
  }
  if (!json_out.empty()) {
    json::Object o{{"starts_per_round", n}, {"rounds", rounds}, {"cases", std::move(cases)}};
    std::ofstream(json_out) << json::WritePretty(json::Value(std::move(o)));
  }
  return 0;
}
