// Entry: one line of a hangar ledger, its hash, and the strict reader of its text.
//
// A ledger line is the canonical JSON (json::Write: keys sorted by byte, no whitespace, UTF-8,
// integers only) of an object with exactly these members, then "\n":
//
//   {"body":{...},"epoch":E,"hash":H,"kind":K,"prev":P,"seq":S,"time":T}
//
// The hash recipe, byte for byte (man/hangar-ledger.5 shows it worked with printf and sha256sum):
//
//   H = lower-case hex SHA-256 of  P  followed directly by  C
//
// where P is the 64 hex characters of prev and C is the canonical JSON of the same object without
// its "hash" member: {"body":...,"epoch":E,"kind":K,"prev":P,"seq":S,"time":T}. No separator, no
// newline. The first entry's prev is kGenesisPrev (64 zeros).
//
// Doubles are refused everywhere (in body too): their text is not unique across writers, so a hash
// over them could not be recomputed by another tool. Pure code: no disk, no clock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/json.h"
#include "base/sha256.h"
#include "base/status.h"
#include "base/timefmt.h"

namespace hangar::ledger {

inline constexpr std::string_view kGenesisPrev =
    "0000000000000000000000000000000000000000000000000000000000000000";

struct Entry {
  int64_t seq = 0;    // from 1, gap-free across the whole ledger
  int64_t epoch = 0;  // from 1; a new epoch starts only by an explicit, recorded reanchor
  std::string time;   // RFC 3339 UTC as FormatTime writes it
  std::string kind;   // [a-z][a-z0-9._-]{0,63}, e.g. "mission.accepted", "ledger.cut"
  json::Value body;   // an object; integers, strings, bools, null, arrays, objects only
  std::string prev;   // hash of the entry before, or kGenesisPrev
  std::string hash;   // EntryHash of this entry
};

// Ok when every field is well formed (hash may be empty: it is not part of the hashed text).
// Invalid names the field and what was expected.
Status CheckEntryFields(const Entry& e);
// Ok when v holds no double and only valid UTF-8 strings and keys.
Status CheckIntegersOnly(const json::Value& v, std::string_view where);

// The hash as recipe above; Invalid when a field is malformed (a double in the body, a bad prev).
Result<std::string> EntryHash(const Entry& e);
// The canonical text of e without its hash: the C of the recipe. Fields must be valid.
std::string HashedText(const Entry& e);
// The ledger line: canonical JSON of the whole entry plus "\n". Fields must be valid.
std::string EntryLine(const Entry& e);
// For writers: sets e->hash to EntryHash(*e) (whatever it held) and returns EntryLine(*e), writing
// the body's JSON once for both. Invalid as EntryHash.
Result<std::string> SealEntry(Entry* e);

// Reads one line (with or without its trailing "\n"). Strict: exactly the seven members, the
// types above, and the text must be byte-identical to EntryLine of what it parsed to, so
// whitespace, key order, duplicate keys, "1.0" or escaped letters are all refused. The hash is not
// recomputed here (Verify does that); its form is checked. Any number of threads may call it.
// Readers of many lines that need no json::Value use ParseEntryView (entry_view.h).
Result<Entry> ParseEntryLine(std::string_view line);

// True when s is a valid kind: [a-z][a-z0-9._-]{0,63}.
bool IsValidKind(std::string_view s);

}  // namespace hangar::ledger
