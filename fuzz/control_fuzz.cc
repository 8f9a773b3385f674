// ParseControl (kernel/control.h): a request dropped into control/new by a person or a script.
// Promises checked: an accepted request has the fields its kind needs, well formed; a refusal has
// a reason.
#include <variant>

#include "fuzz.h"
#include "kernel/control.h"
#include "kernel/mission.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = ParseControl(fuzz::Bytes(data, size));
  if (const auto* e = std::get_if<ParseError>(&r)) {
    FUZZ_CHECK(!e->reason.empty());
    (void)e->Text();
    return 0;
  }
  const ControlRequest& c = std::get<ControlRequest>(r);
  (void)ControlKindName(c.kind);
  switch (c.kind) {
    case ControlKind::kCancel:
    case ControlKind::kApprove:
    case ControlKind::kRetry:
      FUZZ_CHECK(ValidId(c.id));
      break;
    case ControlKind::kDeny:
      FUZZ_CHECK(ValidId(c.id));
      FUZZ_CHECK(!c.why.empty() && c.why.size() <= 1000);
      break;
    case ControlKind::kGrant:
    case ControlKind::kRevoke:
      FUZZ_CHECK(ValidOpName(c.op));
      FUZZ_CHECK(c.mission.empty() != c.requester.empty());
      break;
    case ControlKind::kReanchor:
      FUZZ_CHECK(!c.why.empty() && c.why.size() <= 1000);
      break;
    case ControlKind::kMemory:
      FUZZ_CHECK(c.memory && ValidId(c.memory->requester));
      break;
  }
  return 0;
}
