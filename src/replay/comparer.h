// Comparer: the second half of a replay's step, on a thread of its own. The replay's thread
// decides each signal and writes down what the comparison needs (the actions, the state as text);
// the comparer hashes that, compares it with what the live kernel recorded, classifies the step
// (replay/replayer.h), counts it and hands it and its Records to the sinks. decide() is the one
// part of a replay that cannot go two ways at once; the rest (a third of a step) goes beside it,
// on the second core, as the reading of the record does (replay/read_ahead.h).
//
// Steps go out in the order they were pushed, the sinks called from the comparer's thread only.
// The first Status a record sink returns stops the comparing: the later steps are neither reported
// nor handed over, failed() says so to the replay, and Finish returns it. At most kChunks chunks of
// kChunkSteps steps wait, so memory stays bounded whatever the record's length.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kernel/kernel.h"
#include "replay/replayer.h"

namespace hangar::replay {

// One signal as the replay decided it, and what the live kernel recorded of it.
struct Decided {
  // Filled by the replay: n, ledger_seq, time, signal, committed, was, rules_was; missions holds
  // the replay's touched ids, to which the comparer adds live_ids.
  Step step;
  std::vector<Action> acts;
  std::string state_text, global_text;  // kernel/decision_digest.h: StepText, GlobalText
  std::string live_decision, live_state, live_global;  // the line's digests
  bool live_acts = false;                              // the live decision acted at all
  std::vector<std::string> live_kinds, live_ids;       // its ledger entries' kinds and ids
  bool new_start = false;  // the first signal after a start line: the shared state anew
  bool in_range = true;    // reported and counted (--from, --since); else fed only
};

// "a,b,c": Step's was, would and rules, as the replay writes them.
std::string Joined(const std::vector<std::string>& v);

class Comparer {
 public:
  static constexpr size_t kChunkSteps = 64;
  static constexpr size_t kChunks = 8;

  Comparer(const StepSink& step, const RecordSink& record);
  ~Comparer();
  Comparer(const Comparer&) = delete;
  Comparer& operator=(const Comparer&) = delete;

  void Push(Decided d);  // the replay's thread
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // Compares what was pushed, waits for the thread, adds its counts to *sum (signals, same,
  // differ, state_only, widening, first_divergence) and returns the record sink's failure.
  Status Finish(Summary* sum);

 private:
  using Chunk = std::vector<Decided>;
  void Run();
  void Compare(Decided& d);
  void Hand(bool last);  // the chunk being filled to the thread

  const StepSink& step_out_;
  const RecordSink& record_out_;
  Chunk filling_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Chunk> ready_;
  bool done_ = false;  // no more chunks come
  std::thread thread_;
  // The thread's own, read by Finish after the join.
  Summary counts_;
  Status status_ = Status::Ok();
  bool global_differs_ = false;  // the shared state differs already: reported where it began
  std::atomic<bool> failed_{false};
};

}  // namespace hangar::replay
