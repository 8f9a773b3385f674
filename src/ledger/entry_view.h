// EntryView: a ledger line checked in place, and its hash recomputed from the line itself, for
// readers that go through many lines (Verify walks a million in about a second).
//
// ParseEntryView accepts exactly the lines ParseEntryLine accepts (entry.h: the seven members,
// integers only, byte-identical canonical text, every field well formed) but builds no json::Value:
// the view's fields point into the line. Because an accepted line is canonical, the hashed text
// of the recipe is the line with its hash member cut out: the member always stands between epoch
// and kind, as `,"hash":"<64 hex>"` (kHashMemberBytes), so EntryHasher hashes
// prev || line[0, hash_member) || line[hash_member + kHashMemberBytes, end).
//
// Thread-safety: ParseEntryView may be called from any number of threads at once (each thread
// keeps its own simdjson parser); an EntryHasher belongs to one thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/sha256.h"
#include "base/status.h"

namespace hangar::ledger {

inline constexpr size_t kHashMemberBytes = 74;  // ,"hash":" + 64 hex + "

struct EntryView {
  int64_t seq = 0, epoch = 0;
  std::string_view time, kind, prev, hash;  // the fields' text (none of them has escapes)
  std::string_view body;                    // the body's canonical JSON text
  std::string_view line;                    // the whole line, without "\n"
  size_t hash_member = 0;                   // offset in line of `,"hash":"`
};

// Reads one line (with or without its trailing "\n") into *out, whose views point into line.
// Ok exactly when ParseEntryLine(line) is ok; otherwise ParseEntryLine's Invalid, and *out is
// unspecified.
Status ParseEntryView(std::string_view line, EntryView* out);

// The fast acceptor behind ParseEntryView and ParseEntryLine: true when line is a valid ledger
// line (then *out is filled). False for everything else, without a reason: the callers ask the
// reference reader for one. Never true for a line the reference reader refuses.
bool ScanEntryLine(std::string_view line, EntryView* out);

// Recomputes the hash of the recipe (entry.h) for accepted views, reusing one OpenSSL context.
class EntryHasher {
 public:
  // The hash of v as 64 lower-case hex digits into out (no terminator).
  void Hash(const EntryView& v, char out[64]);
  // True when v's own hash recomputes.
  bool Matches(const EntryView& v);

 private:
  Sha256 sha_;
};

}  // namespace hangar::ledger
