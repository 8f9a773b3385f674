// ParseMission (kernel/mission.h): the bytes a requester drops into incoming/new. Promises checked:
// same bytes, same result; an accepted mission has a valid or empty id, max_minutes in (0, 1440]
// and at most kMaxMissionWrites writes; a refusal has a reason.
#include <variant>

#include "fuzz.h"
#include "kernel/mission.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes = fuzz::Bytes(data, size);
  MissionOrError r = ParseMission(bytes);
  MissionOrError again = ParseMission(bytes);
  FUZZ_CHECK(r.index() == again.index());
  if (const auto* e = std::get_if<ParseError>(&r)) {
    FUZZ_CHECK(!e->reason.empty());
    FUZZ_CHECK(e->Text() == std::get<ParseError>(again).Text());
    return 0;
  }
  const Mission& m = std::get<Mission>(r);
  FUZZ_CHECK(m.id.empty() || ValidId(m.id));
  FUZZ_CHECK(m.id == std::get<Mission>(again).id);
  FUZZ_CHECK(m.max_minutes > 0 && m.max_minutes <= kMaxMinutes);
  FUZZ_CHECK(m.deadline_ms() > 0);
  FUZZ_CHECK(m.writes.size() <= kMaxMissionWrites);
  for (const DoneCheck& c : m.done_when) (void)c.ToJson();
  return 0;
}
