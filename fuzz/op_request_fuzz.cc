// ParseOpRequest (kernel/window.h): ROOM/ops/NAME.json, written by the drone, read as untrusted
// bytes (shell/op_files.h hands them over unparsed). Also OpRequestName, on the first line taken
// as a file name. Promises checked: an accepted request has a valid op and key and an object of
// args; a refusal has a reason; a request name is an id not ending in ".result".
#include <variant>

#include "fuzz.h"
#include "kernel/control.h"
#include "kernel/mission.h"
#include "kernel/window.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes = fuzz::Bytes(data, size);
  std::string name = OpRequestName(fuzz::FirstLine(bytes).first);
  if (!name.empty()) {
    FUZZ_CHECK(ValidId(name));
    FUZZ_CHECK(name.size() < 7 || name.substr(name.size() - 7) != ".result");
  }
  OpRequestOrError r = ParseOpRequest(bytes);
  if (const auto* e = std::get_if<ParseError>(&r)) {
    FUZZ_CHECK(!e->reason.empty());
    return 0;
  }
  const OpRequest& op = std::get<OpRequest>(r);
  FUZZ_CHECK(ValidOpName(op.op));
  FUZZ_CHECK(ValidId(op.key));
  FUZZ_CHECK(op.args.is_object());
  return 0;
}
