// hangar-bench-memory: how long `hangar resume` takes to build a requester's resume pack (issue
// 23's target: at most 50 ms with 10,000 missions of one requester and 1,000 work-state
// versions). The history is decided by the kernel and recorded as hangard records it
// (replay/record_harness.h), each stored version written where hangard writes it: 10,000
// missions of requester "bench" (each dropped, launched, ended and observed; one in seven fails),
// a work state stored after every tenth, each citing ten missions, a seq and a grant. Then the
// pack is built as the command builds it (cli/requester_facts.h, kernel/resume_pack.h), warm, a
// number of times: the median and the fastest. Prints a table and writes JSON with --json FILE.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/requester_facts.h"
#include "env/env.h"
#include "history_setup.h"
#include "kernel/requester_memory.h"
#include "replay/record_harness.h"
#include "shell/transitions.h"

namespace {

using namespace hangar;

double Ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

SetupFacts Facts(const std::string& spool) {
  return bench::HistoryFacts(spool);
}

int Fail(const std::string& what, const Status& s) {
  return bench::Fail("hangar-bench-memory", what, s);
}

// Version V's work state: a page of text and ten missions cited, with claims.
std::string WorkState(int v, int missions_so_far) {
  RequesterMemory m;
  m.requester = "bench";
  for (size_t i = 0; i < m.sections.size(); ++i)
    m.sections[i] = "version " + std::to_string(v) + ", section " + std::to_string(i) +
                    ": the parser fix goes on; the flaky test is still open, and the next step "
                    "is to rerun it with the seed of yesterday's failure.\n";
  for (int k = 0; k < 10; ++k) {
    MemoryRef r;
    r.mission = "M" + std::to_string(std::max(0, missions_so_far - 1 - k * 3));
    r.state = "returned";
    r.outcome = "done";
    m.refs.push_back(r);
  }
  MemoryRef seq;
  seq.kind = MemoryRef::Kind::kSeq;
  seq.seq = 1;
  m.refs.push_back(seq);
  MemoryRef grant;
  grant.kind = MemoryRef::Kind::kGrant;
  grant.grant = "git.push";
  grant.requester = "bench";
  m.refs.push_back(grant);
  return "{\"hangar\":1,\"request\":\"memory\",\"memory\":" + json::Write(m.ToJson()) + "}";
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_out;
  int n = 10000, versions_every = 10, runs = 11;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--json") json_out = argv[i + 1];
    if (a == "--missions") n = std::stoi(argv[i + 1]);
    if (a == "--runs") runs = std::max(1, std::stoi(argv[i + 1]));
  }
  std::string root = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  std::string tmpl = root + "/hangar-bench-memory.XXXXXX";
  if (!mkdtemp(tmpl.data())) return Fail("mkdtemp", Status::Errno(tmpl, errno));
  const std::string dir = tmpl, spool = dir + "/spool";
  std::filesystem::create_directories(spool);
  struct Cleanup {
    std::string d;
    ~Cleanup() { std::filesystem::remove_all(d); }
  } cleanup{dir};
  const Layout layout = Layout::Make(spool, "");

  replay::RecordHarness live(RealEnv(), spool, Facts(spool));
  if (Status s = live.Start(); !s.ok()) return Fail("start", s);
  TimeMs now = 1'700'000'000'000;
  const Dropper owner{1000, "bench"};  // the requester's uid: no approver
  auto step = [&](const Signal& sig) -> Status {
    Result<std::vector<Action>> acts = live.Step(sig);
    if (!acts.ok()) return acts.status();
    for (const Action& a : *acts)
      if (auto* w = std::get_if<WriteMemory>(&a))
        if (Status s = PerformWriteMemory(RealEnv(), layout, *w); !s.ok()) return s;
    return Status::Ok();
  };
  if (Status s = step(Ready{now}); !s.ok()) return Fail("record", s);
  if (Status s = step(ControlDropped{
          "grant", R"({"hangar":1,"request":"grant","op":"git.push","requester":"bench"})", "",
          ++now, Dropper{0, "root"}});
      !s.ok())
    return Fail("grant", s);
  int versions = 0;
  for (int i = 0; i < n; ++i) {
    for (const Signal& sig :
         bench::MissionLife("M" + std::to_string(i), owner, i % 7 == 3 ? 1 : 0, {}, &now))
      if (Status s = step(sig); !s.ok()) return Fail("record", s);
    if ((i + 1) % versions_every == 0) {
      ++versions;
      ControlDropped put{"memory." + std::to_string(versions), WorkState(versions, i + 1), "",
                         ++now, owner};
      if (Status s = step(put); !s.ok()) return Fail("memory", s);
    }
  }

  std::ostringstream out, err;
  cli::Context ctx{RealEnv(), layout, spool + "/hangar.conf", false, false, out, err, 0};
  std::vector<double> total, build;
  size_t pack_bytes = 0, conflicts = 0, pack_missions = 0, pack_versions = 0;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    Result<PackFacts> f = cli::GatherRequesterFacts(ctx, "bench");
    if (!f.ok()) return Fail("gather", f.status());
    auto t1 = std::chrono::steady_clock::now();
    ResumePack p =
        BuildResumePack(*f, kDefaultPackBytes, [](std::string_view s) { return std::string(s); });
    build.push_back(Ms(t1));
    total.push_back(Ms(t0));
    pack_bytes = p.text.size();
    conflicts = p.conflicts.size();
    pack_missions = f->missions.size();
    pack_versions = f->versions.size();
  }
  if (pack_missions != size_t(n) || pack_versions != size_t(versions) || !err.str().empty()) {
    std::fprintf(stderr,
                 "hangar-bench-memory: the pack saw %zu missions and %zu versions of %d "
                 "and %d\n",
                 pack_missions, pack_versions, n, versions);
    return 1;
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double med = median(total), best = *std::min_element(total.begin(), total.end());
  const double target = 50;
  std::printf("%-50s %12s %10s %7s\n", "figure", "value", "target", "ratio");
  std::printf("%-50s %12.1f %10.0f %7.2f\n", "resume pack built, ms (median; target / value)", med,
              target, target / med);
  std::printf("%-50s %12.1f\n", "  fastest of the runs, ms", best);
  std::printf("%-50s %12.2f\n", "  of which the pack itself (no I/O), ms", median(build));
  std::printf("%-50s %12d  (%d versions, %zu-byte pack, %zu conflicts)\n",
              "missions of the requester", n, versions, pack_bytes, conflicts);
  if (!json_out.empty()) {
    json::Object o{{"missions", n},
                   {"versions", versions},
                   {"runs", runs},
                   {"pack_ms_median", int64_t(med * 1000) / 1000.0},
                   {"pack_ms_fastest", int64_t(best * 1000) / 1000.0},
                   {"pack_build_only_ms", int64_t(median(build) * 1000) / 1000.0},
                   {"target_ms", int64_t(target)},
                   {"ratio_target_over_median", int64_t(target / med * 100) / 100.0},
                   {"pack_bytes", int64_t(pack_bytes)}};
    std::ofstream(json_out) << json::WritePretty(json::Value(std::move(o)));
  }
  return 0;
}
