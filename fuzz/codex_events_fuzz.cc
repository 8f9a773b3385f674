// SummarizeCodexEvents (shell/harness_events.h): `codex exec --json`'s event stream
// (RUN/events.jsonl), printed by the drone's harness: untrusted. Promises checked: any input gives
// an object with the counts and lists the header names, every list within its cap (a small cap
// here, so that inputs reach it), bad lines no more than lines.
#include "fuzz.h"
#include "shell/harness_events.h"

using namespace hangar;

namespace {
constexpr size_t kCap = 4;

int64_t Count(const json::Value& s, const char* k) {
  const json::Value* v = s.find(k);
  FUZZ_CHECK(v && v->is_int() && v->as_int() >= 0);
  return v->as_int();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  json::Value s = SummarizeCodexEvents(fuzz::Bytes(data, size), kCap);
  FUZZ_CHECK(s.is_object());
  int64_t lines = Count(s, "lines");
  FUZZ_CHECK(Count(s, "bad_lines") <= lines);
  FUZZ_CHECK(Count(s, "messages") <= lines);
  for (const char* k : {"commands", "file_changes", "errors"}) {
    const json::Value* list = s.find(k);
    FUZZ_CHECK(list && list->is_array() && list->as_array().size() <= kCap);
  }
  (void)json::Write(s);
  return 0;
}
