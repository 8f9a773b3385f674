#include "shell/claude_result.h"

#include <string>
#include <utility>

#include "base/utf8.h"

namespace hangar {

namespace {

const json::Value* Member(const json::Value& obj, const char* key) {
  return obj.is_object() ? obj.find(key) : nullptr;
}

const std::string* StringMember(const json::Value& obj, const char* key) {
  const json::Value* v = Member(obj, key);
  return v && v->is_string() ? &v->as_string() : nullptr;
}

json::Value StringOrNull(const json::Value& obj, const char* key) {
  const std::string* s = StringMember(obj, key);
  return s ? json::Value(*s) : json::Value();
}

json::Value IntOrNull(const json::Value& obj, const char* key) {
  const json::Value* v = Member(obj, key);
  return v && v->is_int() ? *v : json::Value();
}

std::string InputSummary(const json::Value& input, size_t max) {
  std::string s;
  bool found = false;
  for (const char* key : {"command", "file_path", "path", "pattern", "url"}) {
    if (const std::string* v = StringMember(input, key)) {
      s = *v;
      found = true;
      break;
    }
  }
  if (!found) s = json::Write(input);
  if (s.size() <= max) return s;
  std::string cut(Utf8Prefix(s, max));
  cut += "...";
  return cut;
}

// The result line's facts (every key of the contract but tool_uses and bad_lines).
void ReadResultLine(const json::Value& line, const ClaudeResultLimits& limits, json::Object* out) {
  json::Object& o = *out;
  o["present"] = true;
  const json::Value* is_error = Member(line, "is_error");
  o["is_error"] = !(is_error && is_error->is_bool() && !is_error->as_bool());
  o["subtype"] = StringOrNull(line, "subtype");
  o["terminal_reason"] = StringOrNull(line, "terminal_reason");
  o["api_error_status"] = IntOrNull(line, "api_error_status");
  o["num_turns"] = IntOrNull(line, "num_turns");
  o["result"] = nullptr;
  o["result_truncated"] = false;
  if (const std::string* text = StringMember(line, "result")) {
    std::string_view kept = Utf8Prefix(*text, limits.max_result_bytes);
    o["result"] = kept;
    o["result_truncated"] = kept.size() < text->size();
  }
  json::Array errors;
  int64_t errors_omitted = 0;
  if (const json::Value* e = Member(line, "errors"); e && e->is_array()) {
    for (const json::Value& x : e->as_array()) {
      if (errors.size() >= limits.max_errors) {
        errors_omitted++;
        continue;
      }
      std::string s = x.is_string() ? x.as_string() : json::Write(x);
      errors.push_back(std::string(Utf8Prefix(s, limits.max_error_bytes)));
    }
  }
  o["errors"] = std::move(errors);
  o["errors_omitted"] = errors_omitted;
  const json::Value* denials = Member(line, "permission_denials");
  o["permission_denials"] =
      int64_t(denials && denials->is_array() ? denials->as_array().size() : 0);
}

}  // namespace

json::Value ReadClaudeResult(std::string_view jsonl, const ClaudeResultLimits& limits) {
  json::Object out;
  // The shape without a result line; a result line overwrites all of these.
  out["present"] = false;
  out["is_error"] = true;
  for (const char* key : {"subtype", "terminal_reason", "api_error_status", "num_turns", "result"})
    out[key] = nullptr;
  out["result_truncated"] = false;
  out["errors"] = json::Array();
  out["errors_omitted"] = 0;
  out["permission_denials"] = 0;

  json::Array tool_uses;
  int64_t tool_uses_omitted = 0;
  int64_t bad_lines = 0;
  while (!jsonl.empty()) {
    size_t nl = jsonl.find('\n');
    std::string_view text = jsonl.substr(0, nl);
    jsonl.remove_prefix(nl == std::string_view::npos ? jsonl.size() : nl + 1);
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto parsed = json::Parse(text);
    if (!parsed.ok() || !parsed->is_object()) {
      bad_lines++;
      continue;
    }
    const json::Value& line = *parsed;
    const std::string* type = StringMember(line, "type");
    if (!type) continue;
    if (*type == "result") {
      ReadResultLine(line, limits, &out);
      continue;
    }
    if (*type != "assistant") continue;
    const json::Value* message = Member(line, "message");
    const json::Value* content = message ? Member(*message, "content") : nullptr;
    if (!content || !content->is_array()) continue;
    for (const json::Value& block : content->as_array()) {
      const std::string* block_type = StringMember(block, "type");
      if (!block_type || *block_type != "tool_use") continue;
      if (tool_uses.size() >= limits.max_tool_uses) {
        tool_uses_omitted++;
        continue;
      }
      const json::Value* input = Member(block, "input");
      json::Object use;
      use["name"] = StringOrNull(block, "name");
      use["input"] = input ? InputSummary(*input, limits.max_input_bytes) : std::string();
      tool_uses.emplace_back(std::move(use));
    }
  }
  out["tool_uses"] = std::move(tool_uses);
  out["tool_uses_omitted"] = tool_uses_omitted;
  out["bad_lines"] = bad_lines;
  return out;
}

}  // namespace hangar
