// ParseRequesterMemory (kernel/requester_memory.h): a requester's work state, dropped by a
// requesting AI. Promises checked: an accepted work state has a valid requester, every section
// within its limit and all within the total, at most kMaxMemoryRefs references each naming what
// its kind needs; its stored text reads back as the same state, byte for byte; a refusal has a
// reason, and bytes that are not UTF-8 are refused.
#include <variant>

#include "base/id.h"
#include "base/utf8.h"
#include "fuzz.h"
#include "kernel/requester_memory.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(fuzz::Bytes(data, size));
  auto r = ParseRequesterMemory(bytes);
  if (const auto* e = std::get_if<ParseError>(&r)) {
    FUZZ_CHECK(!e->reason.empty());
    return 0;
  }
  FUZZ_CHECK(ReplaceInvalidUtf8(bytes) == bytes);
  const RequesterMemory& m = std::get<RequesterMemory>(r);
  FUZZ_CHECK(ValidId(m.requester));
  size_t total = 0;
  for (const std::string& s : m.sections) {
    FUZZ_CHECK(s.size() <= kMaxSectionBytes);
    total += s.size();
  }
  FUZZ_CHECK(total <= kMaxMemoryTextBytes);
  FUZZ_CHECK(m.refs.size() <= kMaxMemoryRefs);
  for (const MemoryRef& ref : m.refs) {
    switch (ref.kind) {
      case MemoryRef::Kind::kMission:
        FUZZ_CHECK(ValidId(ref.mission));
        break;
      case MemoryRef::Kind::kSeq:
        FUZZ_CHECK(ref.seq >= 1);
        break;
      case MemoryRef::Kind::kGrant:
        FUZZ_CHECK(!ref.grant.empty() && ref.mission.empty() != ref.requester.empty());
        break;
      case MemoryRef::Kind::kPath:
        FUZZ_CHECK(!ref.path.empty() && ref.path[0] == '/');
        break;
    }
  }
  const std::string text = m.StoredText();
  auto again = ParseRequesterMemory(text);
  FUZZ_CHECK(std::holds_alternative<RequesterMemory>(again));
  FUZZ_CHECK(std::get<RequesterMemory>(again).StoredText() == text);
  return 0;
}
