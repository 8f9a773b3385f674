// The ledger line readers (ledger/entry.h, ledger/entry_view.h): ParseEntryLine, the reference,
// and ParseEntryView / ScanEntryLine, the fast path Verify takes. Promises checked: the two accept
// exactly the same lines; the scan never accepts a line the reference refuses; an accepted line is
// byte-identical to EntryLine of what it parsed to; the view's fields are the entry's, and the
// hash recomputed from the view (EntryHasher) is EntryHash of the entry.
#include <string>

#include "fuzz.h"
#include "ledger/entry.h"
#include "ledger/entry_view.h"

using namespace hangar;
using namespace hangar::ledger;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line = fuzz::Bytes(data, size);
  Result<Entry> e = ParseEntryLine(line);
  EntryView view;
  Status s = ParseEntryView(line, &view);
  FUZZ_CHECK(s.ok() == e.ok());
  EntryView scanned;
  if (ScanEntryLine(line, &scanned)) FUZZ_CHECK(e.ok());
  if (!e.ok()) {
    FUZZ_CHECK(s.message() == e.status().message());
    return 0;
  }
  std::string_view bare = line;
  if (!bare.empty() && bare.back() == '\n') bare.remove_suffix(1);
  std::string canonical = EntryLine(*e);
  FUZZ_CHECK(canonical.size() == bare.size() + 1 && canonical.compare(0, bare.size(), bare) == 0);

  FUZZ_CHECK(view.line == bare);
  FUZZ_CHECK(view.seq == e->seq && view.epoch == e->epoch);
  FUZZ_CHECK(view.time == e->time && view.kind == e->kind);
  FUZZ_CHECK(view.prev == e->prev && view.hash == e->hash);
  FUZZ_CHECK(view.body == json::Write(e->body));
  Result<std::string> hash = EntryHash(*e);
  FUZZ_CHECK(hash.ok());
  char hex[64];
  EntryHasher hasher;
  hasher.Hash(view, hex);
  FUZZ_CHECK(std::string_view(hex, 64) == *hash);
  FUZZ_CHECK(hasher.Matches(view) == (*hash == e->hash));
  return 0;
}
