#include "shell/harness_line.h"

#include "base/json.h"
#include "base/utf8.h"

namespace hangar {

namespace {

constexpr size_t kMaxText = 200;

std::string Cut(const std::string& s) {
  std::string one = s;
  for (char& c : one)
    if (c == '\n' || c == '\r') c = ' ';
  if (one.size() <= kMaxText) return one;
  return std::string(Utf8Prefix(one, kMaxText)) + "...";
}

const std::string* Str(const json::Value& v, const char* key) {
  const json::Value* m = v.is_object() ? v.find(key) : nullptr;
  return m && m->is_string() ? &m->as_string() : nullptr;
}

void CodexItem(const json::Value& item, std::vector<std::string>* out) {
  const std::string* type = Str(item, "type");
  if (!type) return;
  if (*type == "command_execution") {
    const std::string* cmd = Str(item, "command");
    const json::Value* rc = item.find("exit_code");
    out->push_back("command: " + Cut(cmd ? *cmd : "?") +
                   (rc && rc->is_int() ? " (exit " + std::to_string(rc->as_int()) + ")" : ""));
  } else if (*type == "file_change") {
    const json::Value* changes = item.find("changes");
    if (!changes || !changes->is_array()) return;
    for (const json::Value& c : changes->as_array()) {
      const std::string *kind = Str(c, "kind"), *path = Str(c, "path");
      if (path) out->push_back("file: " + (kind ? *kind + " " : "") + Cut(*path));
    }
  } else if (*type == "agent_message") {
    if (const std::string* text = Str(item, "text")) out->push_back("message: " + Cut(*text));
  } else if (*type == "error") {
    if (const std::string* m = Str(item, "message")) out->push_back("error: " + Cut(*m));
  }
}

void ClaudeAssistant(const json::Value& line, std::vector<std::string>* out) {
  const json::Value* message = line.find("message");
  const json::Value* content = message && message->is_object() ? message->find("content") : nullptr;
  if (!content || !content->is_array()) return;
  for (const json::Value& block : content->as_array()) {
    const std::string* type = Str(block, "type");
    if (!type) continue;
    if (*type == "text") {
      if (const std::string* text = Str(block, "text")) out->push_back("message: " + Cut(*text));
    } else if (*type == "tool_use") {
      const std::string* name = Str(block, "name");
      const json::Value* input = block.find("input");
      std::string what;
      for (const char* key : {"command", "file_path", "path", "pattern", "url"})
        if (const std::string* v = input ? Str(*input, key) : nullptr) {
          what = *v;
          break;
        }
      if (what.empty() && input) what = json::Write(*input);
      out->push_back("tool: " + (name ? *name : std::string("?")) + " " + Cut(what));
    }
  }
}

}  // namespace

std::vector<std::string> HarnessEventLines(std::string_view text) {
  std::vector<std::string> out;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return out;
  Result<json::Value> parsed = json::Parse(text);
  if (!parsed.ok() || !parsed->is_object()) return out;
  const json::Value& v = *parsed;
  const std::string* type = Str(v, "type");
  if (!type) return out;
  if (*type == "item.completed") {
    if (const json::Value* item = v.find("item")) CodexItem(*item, &out);
  } else if (*type == "error") {
    if (const std::string* m = Str(v, "message")) out.push_back("error: " + Cut(*m));
  } else if (*type == "turn.failed") {
    const json::Value* e = v.find("error");
    const std::string* m = e ? Str(*e, "message") : nullptr;
    out.push_back("error: " + Cut(m ? *m : "the turn failed"));
  } else if (*type == "assistant") {
    ClaudeAssistant(v, &out);
  } else if (*type == "result") {
    const std::string* sub = Str(v, "subtype");
    out.push_back("result: " + (sub ? *sub : std::string("?")));
  }
  return out;
}

}  // namespace hangar
