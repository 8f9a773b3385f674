// hangar-bench-hide: what hiding paths costs every sandboxed launch before bwrap starts (issue 26,
// the "prepare" stage of make bench-stages). The hidden paths are the default policy's deny_read
// expanded for this machine's user database (every home's credentials, as hangard expands them at
// start), each resolved on the disk and looked at as the sandbox's command does
// (shell/bwrap_command.h), then the Landlock ruleset made for them (shell/landlock.h): once asking
// the disk for every path component of every hidden path, once through one DiskLook
// (shell/path_resolve.h), as BwrapCommand does, interleaved, N times each. Prints the medians, the
// system calls each way (counted by DiskLook; the ruleset's own not counted), and writes JSON with
// --json FILE.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "bench_cli.h"
#include "kernel/path_norm.h"
#include "kernel/policy.h"
#include "shell/landlock.h"
#include "shell/path_resolve.h"
#include "shell/users.h"

namespace {

using namespace hangar;

// The deny-read paths the default policy hides on this machine (absolute: a home pattern stands
// for the paths ExpandHomePatterns added).
std::vector<std::string> HiddenPaths() {
  const char* home = std::getenv("HOME");
  Policy p =
      ExpandHomePatterns(DefaultPolicy(), HomeDirectories(), home && home[0] == '/' ? home : "/");
  std::vector<std::string> out;
  for (const std::string& d : p.deny_read)
    if (!d.empty() && d[0] == '/') out.push_back(d);
  return out;
}

// One launch's hiding: each path resolved and looked at, then the ruleset made; its milliseconds.
// THROUGH_LOOK false: every path component asked of the disk each time (calls then counts none).
double Prepare(const std::vector<std::string>& hide, bool through_look, int64_t* calls) {
  const auto t0 = bench::Clock::now();
  DiskLook look;
  std::vector<std::string> ruled;
  for (const std::string& h : hide) {
    Result<std::string> real =
        through_look ? ResolveExistingPath(h, "", &look) : ResolveExistingPath(h);
    if (!real.ok()) continue;
    ruled.push_back(*real);
    struct stat st {};
    if (through_look)
      (void)look.Lstat(*real, &st);
    else
      (void)lstat(real->c_str(), &st);
  }
  int fd = -1;
  std::vector<std::string> kept;
  const std::string why = through_look ? ReadRuleset(ruled, {}, &fd, &kept, look.LstatFunction())
                                       : ReadRuleset(ruled, {}, &fd, &kept);
  const double ms = bench::Since(t0) * 1000;
  if (!why.empty()) bench::Die("the ruleset: " + why);
  if (fd >= 0) close(fd);
  *calls = look.calls();
  return ms;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"What hiding paths costs a sandboxed launch before bwrap starts"};
  int n = 300;
  std::string json_out;
  app.add_option("--n", n, "launches' preparations timed each way")->check(CLI::Range(1, 100000));
  app.add_option("--json", json_out, "write the figures to this file");
  bench::Parse(app, argc, argv);
  if (LandlockAbi() < 2) {
    std::printf("bench-hide: skipped: this kernel has no Landlock ABI 2 (the ruleset needs it)\n");
    return 0;
  }
  const std::vector<std::string> hide = HiddenPaths();
  std::vector<double> plain, looked;
  int64_t looked_calls = 0, ignored = 0;
  for (int i = 0; i < n; ++i) {  // interleaved: a slower machine weighs on both
    plain.push_back(Prepare(hide, false, &ignored));
    looked.push_back(Prepare(hide, true, &looked_calls));
  }
  // The walk without a DiskLook, counted by a DiskLook that keeps nothing: one per disk path asked.
  int64_t plain_calls = 0;
  for (const std::string& h : hide) {
    DiskLook once;
    Result<std::string> real = ResolveExistingPath(h, "", &once);
    plain_calls += once.calls() + (real.ok() ? 1 : 0);  // and the lstat of the result
  }
  const double p = Median(plain), l = Median(looked);
  std::printf("%zu hidden paths (the default policy's deny_read for this user database)\n",
              hide.size());
  std::printf("%-52s %8.3f ms  (%lld path calls before the ruleset's)\n",
              "resolved and ruled, every component asked, p50", p, (long long)plain_calls);
  std::printf("%-52s %8.3f ms  (%lld path calls before the ruleset's)\n",
              "resolved and ruled through one DiskLook, p50", l, (long long)looked_calls);
  std::printf("%-52s %8.2f\n", "ratio (asked every time / DiskLook)", p / l);
  if (!json_out.empty()) {
    json::Object o{{"bench", "hide"},
                   {"hidden_paths", int64_t(hide.size())},
                   {"n", n},
                   {"plain_p50_ms", std::round(p * 1000) / 1000},
                   {"disklook_p50_ms", std::round(l * 1000) / 1000},
                   {"plain_path_calls", plain_calls},
                   {"disklook_path_calls", looked_calls},
                   {"ratio", std::round(p / l * 100) / 100}};
    std::ofstream(json_out) << json::WritePretty(json::Value(std::move(o)));
  }
  return 0;
}
