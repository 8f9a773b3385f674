// ParseAnchorLine (ledger/anchor.h): one line of ANCHOR_DIR/NAME.anchor, read by a fast matcher
// with the reference reader behind it. Promises checked: an accepted line is exactly
// AnchorLineText of what it parsed to (canonical), with a valid ledger name, epoch and seq >= 1
// and a 64-hex hash; a refusal says "bad anchor line".
#include <string>

#include "base/id.h"
#include "fuzz.h"
#include "ledger/anchor.h"
#include "ledger/entry.h"

using namespace hangar;
using namespace hangar::ledger;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line = fuzz::Bytes(data, size);
  Result<AnchorLine> a = ParseAnchorLine(line);
  if (!a.ok()) {
    FUZZ_CHECK(a.status().message().rfind("bad anchor line: ", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(ValidId(a->ledger) && a->epoch >= 1 && a->seq >= 1 && IsHexHash(a->hash));
  std::string text = AnchorLineText(a->ledger, a->epoch, a->seq, a->hash);
  FUZZ_CHECK(text == std::string(line) + "\n");
  return 0;
}
