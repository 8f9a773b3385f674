// ReadClaudeResult (shell/claude_result.h): the stdout of `claude -p --output-format stream-json`,
// printed by the drone's harness: untrusted. Promises checked: any input gives an object of the
// shape the header gives, within small limits (so that inputs reach them); a stream without a
// result line is an error; what is cut is still UTF-8 (json::Write needs it).
#include "base/json.h"
#include "fuzz.h"
#include "shell/claude_result.h"

using namespace hangar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ClaudeResultLimits limits;
  limits.max_result_bytes = 64;
  limits.max_tool_uses = 3;
  limits.max_input_bytes = 16;
  limits.max_errors = 2;
  limits.max_error_bytes = 8;
  json::Value r = ReadClaudeResult(fuzz::Bytes(data, size), limits);
  FUZZ_CHECK(r.is_object());
  const json::Value* present = r.find("present");
  const json::Value* is_error = r.find("is_error");
  FUZZ_CHECK(present && present->is_bool() && is_error && is_error->is_bool());
  if (!present->as_bool()) FUZZ_CHECK(is_error->as_bool());
  const json::Value* result = r.find("result");
  FUZZ_CHECK(result && (result->is_null() || result->is_string()));
  if (result->is_string()) {
    FUZZ_CHECK(result->as_string().size() <= limits.max_result_bytes);
    FUZZ_CHECK(json::ValidUtf8(result->as_string()));
  }
  const json::Value* tools = r.find("tool_uses");
  FUZZ_CHECK(tools && tools->is_array() && tools->as_array().size() <= limits.max_tool_uses);
  for (const json::Value& t : tools->as_array()) {
    const json::Value* input = t.find("input");
    FUZZ_CHECK(input && input->is_string() && json::ValidUtf8(input->as_string()));
    FUZZ_CHECK(input->as_string().size() <= limits.max_input_bytes + 3);
  }
  const json::Value* errors = r.find("errors");
  FUZZ_CHECK(errors && errors->is_array() && errors->as_array().size() <= limits.max_errors);
  for (const json::Value& e : errors->as_array())
    FUZZ_CHECK(e.is_string() && e.as_string().size() <= limits.max_error_bytes);
  const json::Value* bad = r.find("bad_lines");
  FUZZ_CHECK(bad && bad->is_int() && bad->as_int() >= 0);
  (void)json::Write(r);
  return 0;
}
