// hangar-bench-replay: how fast `hangar replay` goes (issue 22's target: at least 100,000
// signals/s). A history of N missions (each dropped, launched, ended and observed: four signals)
// is decided and recorded as hangard records it (replay/record_harness.h: the signal record and a
// ledger whose entries carry each line's hash), in a directory on tmpfs when there is one, so the
// recording's fsyncs do not weigh on what is measured. Then the replay runs as the command runs
// it: the live ledger read (LiveLedger), every line read and checked (chain, hashes, blobs), every
// signal decided again and compared (decision text, step and global digests), and the replay's own
// ledger and anchor written. Figures: the replay's signals per second end to end and without its
// ledger, the ledger's load, the record's size. Prints a table and writes JSON with --json FILE.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "env/env.h"
#include "history_setup.h"
#include "ledger/signal_reader.h"
#include "replay/live_ledger.h"
#include "replay/record_harness.h"
#include "replay/replay_ledger.h"
#include "replay/replayer.h"

namespace {

using namespace hangar;

// The CPU time of every thread of this process so far (user and system), in seconds: what a
// replay costs the machine, which its wall time shows only through whatever else runs here.
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// BENCH_PERF_CTL names the control fifo of a `perf record --control fifo:FILE -D -1`: the replay
// (with its own ledger) is then the only part profiled, not the recording before it.
void PerfControl(const char* word) {
  if (const char* ctl = std::getenv("BENCH_PERF_CTL"); ctl && *ctl)
    std::ofstream(ctl) << word << "\n";
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

SetupFacts Facts(const std::string& spool) {
  return bench::HistoryFacts(spool);
}

int Fail(const std::string& what, const Status& s) {
  return bench::Fail("hangar-bench-replay", what, s);
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_out;
  int n = 100000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--json") json_out = argv[i + 1];
    if (a == "--missions") n = std::stoi(argv[i + 1]);
  }
  std::string root = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  std::string tmpl = root + "/hangar-bench-replay.XXXXXX";
  if (!mkdtemp(tmpl.data())) return Fail("mkdtemp", Status::Errno(tmpl, errno));
  const std::string dir = tmpl, spool = dir + "/spool", into = dir + "/into";
  std::filesystem::create_directories(spool);
  struct Cleanup {
    std::string d;
    ~Cleanup() { std::filesystem::remove_all(d); }
  } cleanup{dir};

  // The live history, recorded.
  replay::RecordHarness live(RealEnv(), spool, Facts(spool));
  if (Status s = live.Start(); !s.ok()) return Fail("start", s);
  auto t0 = std::chrono::steady_clock::now();
  TimeMs now = 1'700'000'000'000;
  Observation obs;
  obs.room = json::Object{{"manifest", json::Array{json::Object{{"path", "REPORT.md"}}}}};
  int64_t signals = 0;
  auto step = [&](const Signal& sig) {
    ++signals;
    return live.Step(sig).status();
  };
  if (Status s = step(Ready{now}); !s.ok()) return Fail("record", s);
  for (int i = 0; i < n; ++i) {
    for (const Signal& sig :
         bench::MissionLife("M" + std::to_string(i), Dropper{0, "root"}, 0, obs, &now))
      if (Status s = step(sig); !s.ok()) return Fail("record", s);
  }
  const double record_s = Seconds(t0);
  const uint64_t record_bytes = std::filesystem::file_size(spool + "/signals/live/signals.jsonl");

  // The replay, as hangar replay runs it.
  double load_s = 0, replay_s = 0, bare_s = 0, replay_cpu_s = 0, bare_cpu_s = 0;
  replay::Summary sum;
  for (bool own_ledger : {true, false}) {
    t0 = std::chrono::steady_clock::now();
    ledger::LedgerStore store(RealEnv(), spool, "live");
    if (Status s = store.OpenForReading(); !s.ok()) return Fail("ledger", s);
    replay::LiveLedger ledger;
    if (Status s = ledger.Load(store); !s.ok()) return Fail("ledger", s);
    if (own_ledger) load_s = Seconds(t0);
    std::filesystem::remove_all(into);
    std::filesystem::create_directories(into);
    replay::ReplayLedger mine(RealEnv(), into, "replay-live");
    if (Status s = mine.Open(); !s.ok()) return Fail("replay ledger", s);
    ledger::SignalReader reader(RealEnv(), spool + "/signals/live");
    if (Status s = reader.Open(); !s.ok()) return Fail("record", s);
    t0 = std::chrono::steady_clock::now();
    const double cpu0 = CpuSeconds();
    if (own_ledger) PerfControl("enable");
    Result<replay::Summary> r = replay::Replay(
        reader, ledger, {}, [](const replay::Step&) {},
        [&](Record rec, const replay::Step& st) {
          return own_ledger ? mine.Add(std::move(rec), st) : Status::Ok();
        });
    if (!r.ok()) return Fail("replay", r.status());
    if (Status s = mine.Flush(); !s.ok()) return Fail("replay ledger", s);
    if (own_ledger) PerfControl("disable");
    (own_ledger ? replay_s : bare_s) = Seconds(t0);
    (own_ledger ? replay_cpu_s : bare_cpu_s) = CpuSeconds() - cpu0;
    sum = *r;
  }
  if (sum.differ != 0 || sum.signals != signals) {
    std::fprintf(stderr, "hangar-bench-replay: %lld of %lld signals replayed, %lld differ\n",
                 (long long)sum.signals, (long long)signals, (long long)sum.differ);
    return 1;
  }
  const double per_s = double(signals) / replay_s, bare = double(signals) / bare_s, target = 100000;
  std::printf("%-50s %14s %10s %7s\n", "figure", "value", "target", "ratio");
  std::printf("%-50s %14.0f %10.0f %7.2f\n", "replay: signals checked, decided, compared /s", per_s,
              target, per_s / target);
  std::printf("%-50s %14.0f  (%.1f us of CPU per signal, %.2f cores busy)\n",
              "  the same without writing its own ledger /s", bare,
              bare_cpu_s * 1e6 / double(signals), bare_cpu_s / bare_s);
  const double cpu_us = replay_cpu_s * 1e6 / double(signals);
  std::printf("%-50s %14.1f  (all threads; %.2f cores busy)\n", "  CPU per signal, us", cpu_us,
              replay_cpu_s / replay_s);
  std::printf("%-50s %14.0f  (%lld signals)\n", "live ledger loaded, ms", load_s * 1000,
              (long long)signals);
  std::printf("%-50s %14.0f\n", "recorded (decided, line, entries) /s on tmpfs",
              double(signals) / record_s);
  std::printf("%-50s %14.0f  (%d missions)\n", "signal record, bytes per signal",
              double(record_bytes) / double(signals), n);
  if (!json_out.empty()) {
    json::Object o{
        {"missions", n},
        {"signals", signals},
        {"replay_signals_per_s", int64_t(per_s)},
        {"replay_without_own_ledger_per_s", int64_t(bare)},
        {"replay_without_own_ledger_cpu_us_per_signal",
         std::round(bare_cpu_s * 1e6 / double(signals) * 10) / 10},
        {"replay_without_own_ledger_cores_busy", std::round(bare_cpu_s / bare_s * 100) / 100},
        {"replay_target_per_s", int64_t(target)},
        {"replay_cpu_us_per_signal", std::round(cpu_us * 10) / 10},
        {"replay_cores_busy", std::round(replay_cpu_s / replay_s * 100) / 100},
        {"ledger_load_ms", int64_t(load_s * 1000)},
        {"record_signals_per_s", int64_t(double(signals) / record_s)},
        {"record_bytes_per_signal", int64_t(double(record_bytes) / double(signals))}};
    std::ofstream(json_out) << json::WritePretty(json::Value(std::move(o)));
  }
  return 0;
}
