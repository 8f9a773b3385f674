// ReplayLedger: the ledger a replay writes of its own decisions, in the directory it was given
// (hangar-ledger(5), SIGNAL RECORD AND REPLAYS): DIR/ledger/replay-NAME, each entry a Record the
// replay's kernel decided with "replay_of": {"line", "seq"} (the signal line, the live seq it
// stands for) in its body, group-committed a few thousand at a time, each batch's marks on
// DIR/replay-NAME.anchor, which an anchor binds to no other ledger.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "ledger/anchor.h"
#include "ledger/store.h"
#include "replay/replayer.h"

namespace hangar::replay {

class ReplayLedger {
 public:
  ReplayLedger(Env* env, const std::string& dir, const std::string& name);
  Status Open();
  Status Add(const Record& r, const Step& step);
  Status Flush();
  const std::string& anchor_path() const { return anchor_path_; }

 private:
  ledger::LedgerStore store_;
  std::string anchor_path_, name_;
  std::optional<ledger::Anchor> anchor_;
  std::vector<ledger::Draft> drafts_;
};

}  // namespace hangar::replay
