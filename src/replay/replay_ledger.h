// ReplayLedger: the ledger a replay writes of its own decisions, in the directory it was given
// (hangar-ledger(5), SIGNAL RECORD AND REPLAYS): DIR/ledger/replay-NAME, each entry a Record the
// replay's kernel decided with "replay_of": {"line", "seq"} (the signal line, the live seq it
// stands for) in its body, group-committed a few thousand at a time, each batch's marks on
// DIR/replay-NAME.anchor, which an anchor binds to no other ledger.
//
// Full batches are sealed (hashed) and written, in order, by one thread of the ledger's own while
// the replay decides on. Up to kInFlight batches wait for it: a batch that takes longer than the
// next one takes to fill holds nobody up, and Add waits only when the writer is that far behind
// (memory stays bounded). A failure is returned by the next Add or by Flush, which hands over the
// rest and waits until all is written. Add and Flush: one thread at a time (a replay adds from its
// comparing thread; Flush comes after Replay has returned).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kernel/kernel.h"
#include "ledger/anchor.h"
#include "ledger/store.h"
#include "replay/replayer.h"

namespace hangar::replay {

class ReplayLedger {
 public:
  static constexpr size_t kBatch = 4096;
  static constexpr size_t kInFlight = 4;

  ReplayLedger(Env* env, const std::string& dir, const std::string& name);
  ~ReplayLedger();
  Status Open();
  Status Add(Record r, const Step& step);
  Status Flush();
  const std::string& anchor_path() const { return anchor_path_; }

 private:
  ledger::LedgerStore store_;
  std::string anchor_path_, name_;
  std::optional<ledger::Anchor> anchor_;
  // Appends DRAFTS and their anchor marks (the writing thread's work).
  Status Write(std::vector<ledger::Draft> drafts);  // the drafts move into the store
  void Run();                                       // the writing thread
  // Hands the drafts added to the writer, waiting while kInFlight batches wait already;
  // its first failure so far.
  Status Hand();
  Status Close();  // no more batches: waits until all are written; the first failure

  std::vector<ledger::Draft> drafts_;  // the batch being filled
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<ledger::Draft>> waiting_;  // handed over, not yet written
  bool closing_ = false;                            // no more batches come
  Status written_ = Status::Ok();                   // the writer's first failure
  std::thread thread_;                              // started with the first batch
};

}  // namespace hangar::replay
