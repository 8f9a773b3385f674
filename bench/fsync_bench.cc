// hangar-bench-fsync: what a batch's fsyncs cost waited for in a row against at once, through
// RealEnv's own calls (env/env.h), in a scratch directory under --dir (the spool's filesystem: the
// bench scripts' spools are under /tmp). For N in --sizes, N directories each get a file and a new
// entry, then:
//   files: N WriteFilesDirLater calls (each file's data fsynced in turn, as a batch's intakes were
//          written before) against one WriteFilesDirsLater of the N (their data fsynced at once);
//   dirs:  N SyncDirs calls of one directory each (in turn) against one SyncDirs of the N (at
//          once);
//   threads: what waiting at once costs the caller beside the waits: a batch of N empty items
//            on threads made and joined for it (base/parallel.h EachConcurrently, as RealEnv's
//            batches waited until 2026-12-06) against threads kept for it (base/wait_pool.h, as
//            they wait now), 2,000 batches each way, in microseconds.
// Interleaved over --rounds; prints the medians in ms and the ratios; writes JSON with --json FILE.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/parallel.h"
#include "base/wait_pool.h"
#include "bench_cli.h"
#include "env/env.h"

namespace {

using namespace hangar;
namespace fs = std::filesystem;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 40;
  std::string dir = "/tmp", json_out;
  std::vector<int> sizes = {2, 4, 8, 16, 64};
  CLI::App app{"hangar-bench-fsync: a batch's fsyncs in a row against at once (RealEnv)"};
  app.add_option("--rounds", rounds, "rounds, each way once a round")->check(CLI::PositiveNumber);
  app.add_option("--sizes", sizes, "batch sizes (N directories)");
  app.add_option("--dir", dir, "where the scratch directory is made")->check(CLI::ExistingDirectory);
  app.add_option("--json", json_out, "write the figures to this file");
  bench::Parse(app, argc, argv);
  Env* env = RealEnv();
  const std::string root = dir + "/hangar-bench-fsync." + std::to_string(getpid());
  if (!env->MakeDir(root).ok()) bench::Die("cannot make " + root);
  std::printf("%-34s %10s %10s %7s\n", "figure (median ms a batch)", "in a row", "at once",
              "ratio");
  json::Object cases;
  int serial = 0;
  for (int n : sizes) {
    std::vector<std::string> dirs;
    for (int d = 0; d < n; ++d) {
      dirs.push_back(root + "/n" + std::to_string(n) + "." + std::to_string(d));
      if (!env->MakeDir(dirs.back()).ok()) bench::Die("cannot make " + dirs.back());
    }
    std::vector<double> files[2], syncs[2];
    const std::string data(300, 'x');  // an intake.json's size
    for (int r = 0; r < rounds; ++r)
      for (int way : {0, 1}) {
        const std::string name = "f" + std::to_string(serial++);
        std::vector<Env::DirFiles> batch;
        for (const std::string& d : dirs) batch.push_back({d, {{name, data}}});
        auto t0 = bench::Clock::now();
        if (way == 0) {
          for (const Env::DirFiles& b : batch)
            if (!env->WriteFilesDirLater(b.dir, b.files).ok()) bench::Die("write in " + b.dir);
        } else {
          for (const Status& s : env->WriteFilesDirsLater(batch))
            if (!s.ok()) bench::Die(s.message());
        }
        files[way].push_back(bench::Since(t0) * 1e3);
        for (const std::string& d : dirs)  // a new entry in each, for the directories' fsyncs
          if (!env->MakeDirVisible(d + "/e" + name).ok()) bench::Die("mkdir in " + d);
        t0 = bench::Clock::now();
        if (way == 0) {
          for (const std::string& d : dirs)
            if (!env->SyncDirs({d}, "").ok()) bench::Die("fsync " + d);
        } else if (Status s = env->SyncDirs(dirs, ""); !s.ok()) {
          bench::Die(s.message());
        }
        syncs[way].push_back(bench::Since(t0) * 1e3);
      }
    const double fr = Median(files[0]), fo = Median(files[1]), dr = Median(syncs[0]),
                 dd = Median(syncs[1]);
    std::printf("%-34s %10.3f %10.3f %7.2f\n",
                ("files' data, " + std::to_string(n) + " files").c_str(), fr, fo, fr / fo);
    std::printf("%-34s %10.3f %10.3f %7.2f\n",
                ("directories, " + std::to_string(n) + " dirs").c_str(), dr, dd, dr / dd);
    cases[std::to_string(n)] =
        json::Object{{"n", n},           {"files_in_a_row_ms", fr}, {"files_at_once_ms", fo},
                     {"dirs_in_a_row_ms", dr}, {"dirs_at_once_ms", dd},   {"files_ratio", fr / fo},
                     {"dirs_ratio", dr / dd}};
  }
  std::printf("%-34s %10s %10s %7s\n", "figure (us a batch, empty items)", "made", "kept", "ratio");
  WaitPool pool(7);  // RealEnv's: kSyncsAtOnce less the caller's
  for (int n : sizes) {
    const int batches = 2000;
    double made = 0, kept = 0;
    for (int way : {0, 1}) {
      auto t0 = bench::Clock::now();
      for (int b = 0; b < batches; ++b) {
        if (way == 0)
          EachConcurrently(size_t(n), 8, [](size_t) {});
        else
          pool.Each(size_t(n), [](size_t) {});
      }
      (way == 0 ? made : kept) = bench::Since(t0) * 1e6 / batches;
    }
    std::printf("%-34s %10.1f %10.1f %7.1f\n", ("threads, " + std::to_string(n) + " items").c_str(),
                made, kept, made / std::max(kept, 0.01));
    cases[std::to_string(n)].as_object()["threads_made_us"] = made;
    cases[std::to_string(n)].as_object()["threads_kept_us"] = kept;
  }
  std::error_code ec;
  fs::remove_all(root, ec);
  if (!json_out.empty()) {
    json::Object o{{"rounds", rounds}, {"dir", dir}, {"cases", std::move(cases)}};
    std::ofstream(json_out) << json::WritePretty(json::Value(std::move(o)));
  }
  return 0;
}
