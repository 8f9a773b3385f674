// json::Parse and json::Write (base/json.h), under every JSON file hangar reads. Promises checked:
// what Parse accepts, Write writes as canonical text that parses back to the same value (numbers
// by value: 7.0 is written "7" and reads back as the integer 7) and is written again byte for
// byte; WritePretty's text parses to it too; StringMembers agrees with Parse and find.
#include <string>

#include "base/json.h"
#include "fuzz.h"

using namespace hangar;

namespace {

bool Same(const json::Value& a, const json::Value& b) {
  if ((a.is_int() || a.is_double()) && (b.is_int() || b.is_double())) {
    if (a.is_int() && b.is_int()) return a.as_int() == b.as_int();
    return a.as_double() == b.as_double();
  }
  if (a.is_array() && b.is_array()) {
    if (a.as_array().size() != b.as_array().size()) return false;
    for (size_t i = 0; i < a.as_array().size(); i++)
      if (!Same(a.as_array()[i], b.as_array()[i])) return false;
    return true;
  }
  if (a.is_object() && b.is_object()) {
    if (a.as_object().size() != b.as_object().size()) return false;
    for (auto i = a.as_object().begin(), j = b.as_object().begin(); i != a.as_object().end();
         ++i, ++j)
      if (i->first != j->first || !Same(i->second, j->second)) return false;
    return true;
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::Bytes(data, size);
  Result<json::Value> v = json::Parse(text);
  auto members = json::StringMembers(text, {"id", "type", "hangar"});
  FUZZ_CHECK(members.ok() == v.ok());
  if (!v.ok()) return 0;
  for (size_t i = 0; i < 3; i++) {
    static const char* const kNames[] = {"id", "type", "hangar"};
    const json::Value* m = v->is_object() ? v->find(kNames[i]) : nullptr;
    std::optional<std::string> want;
    if (m && m->is_string()) want = m->as_string();
    FUZZ_CHECK((*members)[i] == want);
  }
  std::string out = json::Write(*v);
  Result<json::Value> back = json::Parse(out);
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(Same(*back, *v));
  FUZZ_CHECK(json::Write(*back) == out);
  Result<json::Value> pretty = json::Parse(json::WritePretty(*v));
  FUZZ_CHECK(pretty.ok() && Same(*pretty, *v));
  return 0;
}
