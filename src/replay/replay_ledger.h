// ReplayLedger: the ledger a replay writes of its own decisions, in the directory it was given
// (hangar-ledger(5), SIGNAL RECORD AND REPLAYS): DIR/ledger/replay-NAME, each entry a Record the
// replay's kernel decided with "replay_of": {"line", "seq"} (the signal line, the live seq it
// stands for) in its body, group-committed a few thousand at a time, each batch's marks on
// DIR/replay-NAME.anchor, which an anchor binds to no other ledger.
//
// A full batch is sealed (hashed) and written on a thread of its own while the replay decides on;
// one batch at a time, in order. A failure is returned by the next Add or by Flush, which waits
// for the batch in flight and writes the rest. Add and Flush: one thread at a time (a replay adds
// from its comparing thread; Flush comes after Replay has returned).
#pragma once

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
  Status Write(const std::vector<ledger::Draft>& drafts);
  Status Wait();  // for the batch in flight: its result

  std::vector<ledger::Draft> drafts_;
  std::vector<ledger::Draft> writing_;  // the batch in flight, the thread's until Wait
  Status written_ = Status::Ok();       // its result
  std::thread thread_;
};

}  // namespace hangar::replay
