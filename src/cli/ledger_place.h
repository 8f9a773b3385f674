// Where the live ledger is: its name and its anchor file, as the readers of the ledger (ledger
// verify, replay) find them.
#pragma once

#include <string>

#include "cli/context.h"

namespace hangar::cli {

struct LedgerPlace {
  std::string name = "live";
  std::string anchor_file;  // empty when nothing names the anchor
  std::string key_file;     // the checkpoint signing key (its .pub is what verifiers read)

  // The anchor's directory, and the signed checkpoint hangard writes there (NAME.checkpoint);
  // both empty when nothing names the anchor.
  std::string AnchorDir() const;
  std::string CheckpointFile() const;
};

// The ledger's name and anchor: --anchor DIR (ANCHOR_DIR), else what the running (or last)
// hangard said in hangard.json, else the config file.
LedgerPlace FindLedger(const Context& ctx, const std::string& anchor_dir);

}  // namespace hangar::cli
