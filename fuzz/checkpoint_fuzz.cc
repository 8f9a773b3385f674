// ParseCheckpoint (ledger/checkpoint.h): ANCHOR_DIR/NAME.checkpoint, and the copy every requester
// is handed with a return. Promises checked: an accepted text is byte-identical to CheckpointText
// of what it parsed to (with or without its "\n"); its fields are in range; a refusal says
// "bad checkpoint". The signature is not checked by the parser, nor here.
#include <string>

#include "base/id.h"
#include "fuzz.h"
#include "ledger/checkpoint.h"
#include "ledger/entry.h"

using namespace hangar;
using namespace hangar::ledger;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::Bytes(data, size);
  Result<Checkpoint> c = ParseCheckpoint(text);
  if (!c.ok()) {
    FUZZ_CHECK(c.status().message().rfind("bad checkpoint: ", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(ValidId(c->ledger) && c->epoch >= 1 && c->size >= 0);
  FUZZ_CHECK(IsHexHash(c->head) && IsHexHash(c->key) && c->sig.size() == 88);
  FUZZ_CHECK((c->size == 0) == (c->head == kGenesisPrev));
  std::string line(text);
  if (line.empty() || line.back() != '\n') line += '\n';
  FUZZ_CHECK(CheckpointText(*c) == line);
  std::string signed_text = SignedText(*c);
  FUZZ_CHECK(signed_text.find("\"sig\"") == std::string::npos);
  return 0;
}
