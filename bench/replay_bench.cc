// hangar-bench-replay: how fast a replay can go (issue 22's target: at least 100,000 signals/s).
// A live kernel decides a history of N missions (each dropped, launched, ended and observed: four
// signals), every signal written as its record (kernel/signal_record.h) with its bytes as blobs;
// then a second kernel is fed the records alone: each read back, decided, and its actions written
// as canonical JSON for the diff. The figure is that second pass's signals per second; the
// state digest of the whole final state is timed once beside it (a replay that digests after
// every step pays it per step). Prints a table and writes JSON with --json FILE.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/sha256.h"
#include "kernel/kernel.h"
#include "kernel/signal_record.h"

namespace {

using namespace hangar;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

KernelSetup Setup() {
  KernelSetup s;
  s.spool = "/s";
  s.rooms = "/s/rooms";
  s.bindir = "/b";
  s.bwrap = "/usr/bin/bwrap";
  s.config.file = "/s/hangar.conf";
  s.config.slots = 4;
  Profile p;
  p.name = "script";
  p.argv = {"{bindir}/drone", "{room}"};
  s.config.profiles["script"] = p;
  s.approvers = {0};
  return s;
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
  const KernelSetup setup = Setup();
  std::map<std::string, std::string> blobs;
  const BlobOut out = [&](std::string_view bytes) {
    std::string ref = "sha256:" + Sha256Hex(bytes);
    blobs.emplace(ref, std::string(bytes));
    return ref;
  };
  const BlobIn in = [&](const std::string& ref) -> Result<std::string> {
    auto it = blobs.find(ref);
    if (it == blobs.end()) return Status::NotFound(ref);
    return it->second;
  };

  // The live history.
  std::vector<std::string> records;
  records.reserve(size_t(n) * 4);
  State live;
  auto t0 = std::chrono::steady_clock::now();
  TimeMs now = 1'700'000'000'000;
  Observation obs;
  obs.room = json::Object{{"manifest", json::Array{json::Object{{"path", "REPORT.md"}}}}};
  for (int i = 0; i < n; ++i) {
    const std::string id = "M" + std::to_string(i);
    const std::string bytes = "{\"hangar\":1,\"id\":\"" + id +
                              "\",\"requester\":\"bench\",\"drone\":\"script\",\"future\":\"a "
                              "report\",\"now\":\"nothing yet\",\"max_minutes\":5}";
    ExitInfo e;
    e.rc = 0;
    for (const Signal& sig :
         std::vector<Signal>{Dropped{id + ".json", bytes, "", ++now, {}, Dropper{0, "root"}},
                             LaunchDone{id, true, false, true, "", ++now},
                             DroneExited{id, e, ++now}, Observed{id, obs, ++now}}) {
      records.push_back(json::Write(SignalToJson(sig, out)));
      (void)Decide(setup, &live, sig);
    }
  }
  const double live_s = Seconds(t0);

  // The replay: records only.
  State again;
  size_t actions = 0, action_bytes = 0;
  t0 = std::chrono::steady_clock::now();
  for (const std::string& text : records) {
    Result<Signal> sig = ParseSignal(text, in);
    if (!sig.ok()) {
      std::fprintf(stderr, "hangar-bench-replay: %s\n", sig.status().message().c_str());
      return 1;
    }
    for (const Action& a : Decide(setup, &again, *sig)) {
      action_bytes += json::Write(ActionToJson(a)).size();
      ++actions;
    }
  }
  const double replay_s = Seconds(t0);
  t0 = std::chrono::steady_clock::now();
  const std::string digest = StateDigest(again);
  const double digest_s = Seconds(t0);
  if (digest != StateDigest(live)) {
    std::fprintf(stderr, "hangar-bench-replay: the replayed state differs from the live one\n");
    return 1;
  }
  const double per_s = double(records.size()) / replay_s, target = 100000;
  std::printf("%-44s %14s %10s %7s\n", "figure", "value", "target", "ratio");
  std::printf("%-44s %14.0f %10.0f %7.2f\n", "replay: signals read back and decided /s", per_s,
              target, per_s / target);
  std::printf("%-44s %14.0f\n", "live: signals decided and recorded /s",
              double(records.size()) / live_s);
  std::printf("%-44s %14.1f  (%d missions)\n", "state digest of the final state, ms",
              digest_s * 1000, n);
  std::printf("%-44s %14zu  (%zu actions)\n", "canonical action bytes", action_bytes, actions);
  if (!json_out.empty()) {
    json::Object o{{"missions", n},
                   {"signals", int64_t(records.size())},
                   {"replay_signals_per_s", int64_t(per_s)},
                   {"replay_target_per_s", int64_t(target)},
                   {"live_signals_per_s", int64_t(double(records.size()) / live_s)},
                   {"state_digest_ms", double(int64_t(digest_s * 10000)) / 10},
                   {"actions", int64_t(actions)}};
    std::ofstream(json_out) << json::WritePretty(json::Value(std::move(o)));
  }
  return 0;
}
