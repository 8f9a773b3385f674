// A requester's work state, format v1 (man/hangar-memory.5): what a requesting AI writes down
// about its own work so a later session can pick it up. Fixed sections of UTF-8 text, each
// required (it may be empty), and a small list of references to things hangar can check
// (missions, ledger seqs, grants, paths), each with what the writer claims of it.
//
//   {"hangar_memory": 1, "requester": NAME,
//    "goal": TEXT, "decisions": TEXT, "evidence": TEXT, "unresolved": TEXT,
//    "restore": TEXT, "not_doing": TEXT, "next": TEXT, "constraints": TEXT,
//    "refs": [{"mission": ID [, "state": PHASE] [, "outcome": OUTCOME] [, "approved": true]},
//             {"seq": N [, "kind": KIND]},
//             {"grant": OP, "mission": ID | "requester": NAME},
//             {"path": ABSOLUTE}, ...  each may add "in": SECTION (where it is cited)]}
//
// Text is data: the kernel parses, limits, versions and hashes it, and never reads it as an
// instruction or a proof. A claim in refs ("approved": true, a grant) grants nothing; the resume
// pack (kernel/resume_pack.h) holds each claim against what hangar observed.
//
// Parsing is pure and strict, as for missions: an unknown, missing or ill-typed field, a section
// over its limit or text that is not UTF-8 is an error naming the field.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/json.h"
#include "base/parse_error.h"
#include "base/simdjson_util.h"

namespace hangar {

// The sections, in the order the resume pack and `hangar memory show` print them.
inline constexpr std::array<const char*, 8> kMemorySections = {
    "goal", "decisions", "evidence", "unresolved", "restore", "not_doing", "next", "constraints"};
inline constexpr size_t kMaxSectionBytes = 8 * 1024;
inline constexpr size_t kMaxMemoryTextBytes = 32 * 1024;  // all sections together
inline constexpr size_t kMaxMemoryRefs = 64;

struct MemoryRef {
  enum class Kind { kMission, kSeq, kGrant, kPath };
  Kind kind = Kind::kMission;
  std::string mission;       // kMission; kGrant's subject when a mission
  int64_t seq = 0;           // kSeq
  std::string grant;         // kGrant: the op
  std::string requester;     // kGrant's subject when a requester
  std::string path;          // kPath
  std::string state;         // claimed phase (kMission), "" when not claimed
  std::string outcome;       // claimed outcome (kMission)
  bool approved = false;     // claimed approved by a person (kMission)
  std::string kind_claimed;  // kSeq: the entry kind claimed
  std::string in;            // the section that cites it, "" when not said

  json::Value ToJson() const;
  std::string Text() const;  // "mission M-1", "seq 12", "grant deploy to mission M-1", "path /x"
};

struct RequesterMemory {
  std::string requester;
  std::array<std::string, kMemorySections.size()> sections;  // by kMemorySections
  std::vector<MemoryRef> refs;

  const std::string& Section(std::string_view name) const;
  // The stored form (memory/REQUESTER/vN.json): pretty JSON, members in a fixed order, so the
  // same work state is always the same bytes and the same sha256.
  std::string StoredText() const;
  json::Value ToJson() const;
};

// Reads a work state from its JSON text (a dropped file, `hangar memory put`).
std::variant<RequesterMemory, ParseError> ParseRequesterMemory(std::string_view bytes);
// Reads one from an element of another document (a control request's "memory"), naming fields
// under FIELD; throws strict::Failure.
RequesterMemory ReadRequesterMemory(simdjson::dom::element e, const std::string& field);
// When BYTES is not UTF-8: the field whose text holds the first bad byte (under PREFIX, as
// "memory.goal"), or "" when it is in no section, and the reason. Nothing when it is UTF-8.
std::optional<ParseError> MemoryUtf8Error(std::string_view bytes, const std::string& prefix);

}  // namespace hangar
