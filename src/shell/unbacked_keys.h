// Launch keys taken before their ledger entries were durable, and a start that takes them back.
//
// hangard takes a launch's key beside the ledger entry that decides the launch (shell/
// transitions.h, BeginLaunches), not after it: a stop between the two can leave a key whose launch
// the ledger does not hold. The mission is still in queued/ (its move comes after the entries)
// and no supervisor ran. Left there, the key would end that attempt lost at its launch
// ([LaunchKeyExisted]); so a start takes it back first, and the mission launches anew.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "env/env.h"
#include "kernel/layout.h"

namespace hangar {

// For each launch key in keys/ of a mission in queued/ whose "ledger_seq" BACKED says the ledger
// does not hold: queued/ID/launch.json removed when it
// names the key's attempt (queued/ID fsynced: no launch.json stands without its key), then the key
// (keys/ fsynced). A key without ledger_seq was written after its entry (by a hangard before this
// one) and is left, as is every key of a mission elsewhere. Only for a ledger that verified and
// was not rolled back: a key whose entry a restored ledger lacks may have launched. A key of a
// queued mission that says no seq it can be judged by (empty after a power loss cut its write, or
// not a launch key's JSON) stands too, said, and its launch returns the mission lost. Returns a
// line for each key taken back or left so; a key or launch.json that cannot be listed, read (but
// for its contents) or removed is an error naming it.
struct KeySeq {
  std::string key;  // launch.ID.ATTEMPT
  int64_t seq = 0;  // its ledger_seq
};
// BACKED answers for every key to judge at once (one read of the ledger), in order.
using KeysBacked = std::function<Result<std::vector<bool>>(const std::vector<KeySeq>& keys)>;
Result<std::vector<std::string>> DropUnbackedKeys(Env* env, const Layout& l,
                                                  const KeysBacked& backed);

}  // namespace hangar
