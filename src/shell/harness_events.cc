#include "shell/harness_events.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace hangar {
namespace {

// The first `cap` entries of a list, and a count of the rest.
class CappedList {
 public:
  explicit CappedList(size_t cap) : cap_(cap) {}
  // Takes what a json::Value is made from, built in place (a moved Value trips GCC 12's
  // -Wmaybe-uninitialized).
  template <typename T>
  void Add(T&& v) {
    if (items_.size() < cap_)
      items_.emplace_back(std::forward<T>(v));
    else
      omitted_++;
  }
  void MoveInto(json::Object* out, const std::string& name) {
    (*out)[name] = std::move(items_);
    if (omitted_ > 0) (*out)[name + "_omitted"] = omitted_;
  }

 private:
  size_t cap_;
  json::Array items_;
  int64_t omitted_ = 0;
};

struct Summary {
  explicit Summary(size_t cap) : commands(cap), file_changes(cap), errors(cap) {}
  CappedList commands, file_changes, errors;
  int64_t lines = 0, bad_lines = 0, messages = 0;
  bool has_usage = false;
  json::Object usage;
};

const json::Value* Member(const json::Value& v, const char* key) {
  return v.is_object() ? v.find(key) : nullptr;
}

// The string member key, or nullptr when absent or not a string.
const std::string* StringMember(const json::Value& v, const char* key) {
  const json::Value* m = Member(v, key);
  return m && m->is_string() ? &m->as_string() : nullptr;
}

// An absent member or null reads as null; anything but `want` is the wrong shape.
bool OptionalMember(const json::Value& v, const char* key, bool (json::Value::*want)() const,
                    json::Value* out) {
  const json::Value* m = Member(v, key);
  if (!m || m->is_null()) {
    *out = nullptr;
    return true;
  }
  if (!(m->*want)()) return false;
  *out = *m;
  return true;
}

bool TakeCommand(const json::Value& item, Summary* s) {
  const std::string* command = StringMember(item, "command");
  json::Value exit_code, status;
  if (!command || !OptionalMember(item, "exit_code", &json::Value::is_int, &exit_code) ||
      !OptionalMember(item, "status", &json::Value::is_string, &status))
    return false;
  json::Object entry;
  entry["command"] = *command;
  entry["exit_code"] = std::move(exit_code);
  entry["status"] = std::move(status);
  s->commands.Add(std::move(entry));
  return true;
}

// All changes are checked before any is taken: a bad item adds nothing.
bool TakeFileChange(const json::Value& item, Summary* s) {
  const json::Value* changes = Member(item, "changes");
  json::Value status;
  if (!changes || !changes->is_array() ||
      !OptionalMember(item, "status", &json::Value::is_string, &status))
    return false;
  for (const json::Value& c : changes->as_array())
    if (!StringMember(c, "path") || !StringMember(c, "kind")) return false;
  for (const json::Value& c : changes->as_array()) {
    json::Object entry;
    entry["path"] = *StringMember(c, "path");
    entry["kind"] = *StringMember(c, "kind");
    entry["status"] = status;
    s->file_changes.Add(std::move(entry));
  }
  return true;
}

bool TakeItem(const json::Value& item, Summary* s) {
  const std::string* type = StringMember(item, "type");
  if (!type) return false;
  if (*type == "command_execution") return TakeCommand(item, s);
  if (*type == "file_change") return TakeFileChange(item, s);
  if (*type == "agent_message") {
    s->messages++;
    return true;
  }
  if (*type == "error") {
    const std::string* message = StringMember(item, "message");
    if (!message) return false;
    s->errors.Add(*message);
  }
  return true;  // reasoning, todo_list, web_search, ...: not summarized
}

// A sum that would overflow makes the line bad, and none of its numbers is added.
bool TakeUsage(const json::Value& usage, Summary* s) {
  if (!usage.is_object()) return false;
  json::Object sums = s->usage;
  for (const auto& [key, v] : usage.as_object()) {
    if (!v.is_int()) continue;
    json::Value& sum = sums[key];
    int64_t total = 0;
    if (__builtin_add_overflow(sum.is_int() ? sum.as_int() : 0, v.as_int(), &total)) return false;
    sum = total;
  }
  s->usage = std::move(sums);
  s->has_usage = true;
  return true;
}

// False when the event has the wrong shape.
bool TakeEvent(const json::Value& event, Summary* s) {
  const std::string* type = StringMember(event, "type");
  if (!type) return false;
  if (*type == "item.completed") {
    const json::Value* item = Member(event, "item");
    return item && TakeItem(*item, s);
  }
  if (*type == "error") {
    const std::string* message = StringMember(event, "message");
    if (!message) return false;
    s->errors.Add(*message);
  } else if (*type == "turn.failed") {
    const json::Value* error = Member(event, "error");
    const std::string* message = error ? StringMember(*error, "message") : nullptr;
    if (!message) return false;
    s->errors.Add(*message);
  } else if (*type == "turn.completed") {
    const json::Value* usage = Member(event, "usage");
    if (usage && !TakeUsage(*usage, s)) return false;
  }
  return true;
}

bool Blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

json::Object Summarize(std::string_view jsonl, size_t max_entries) {
  Summary s(max_entries);
  while (!jsonl.empty()) {
    size_t nl = jsonl.find('\n');
    std::string_view line = jsonl.substr(0, nl);
    jsonl.remove_prefix(nl == std::string_view::npos ? jsonl.size() : nl + 1);
    if (Blank(line)) continue;
    s.lines++;
    Result<json::Value> event = json::Parse(line);
    if (!event.ok() || !TakeEvent(*event, &s)) s.bad_lines++;
  }
  json::Object out{{"lines", s.lines}, {"bad_lines", s.bad_lines}, {"messages", s.messages}};
  s.commands.MoveInto(&out, "commands");
  s.file_changes.MoveInto(&out, "file_changes");
  s.errors.MoveInto(&out, "errors");
  if (s.has_usage) out["usage"] = std::move(s.usage);
  return out;
}

}  // namespace

json::Value SummarizeCodexEvents(std::string_view jsonl, size_t max_entries) {
  return Summarize(jsonl, max_entries);
}

json::Value ReadCodexEvents(Env& env, const std::string& path, size_t max_bytes) {
  Result<uint64_t> size = env.FileSize(path);
  if (!size.ok() && size.status().code() == Code::kNotFound)
    return json::Object{{"present", false}};
  // One byte more than the cap tells whether anything lies beyond it, even if the file grew since
  // it was measured.
  Result<std::string> text = size.ok() ? env.ReadAt(path, 0, max_bytes + 1) : size.status();
  if (!text.ok()) return json::Object{{"present", true}, {"error", text.status().message()}};
  uint64_t bytes = std::max<uint64_t>(*size, text->size());
  std::string_view read = *text;
  if (read.size() > max_bytes) {  // keep whole lines only
    size_t last_newline = max_bytes > 0 ? read.rfind('\n', max_bytes - 1) : std::string::npos;
    read = read.substr(0, last_newline + 1);  // npos + 1 == 0
  }
  json::Object summary = Summarize(read, kMaxHarnessEntries);
  summary["present"] = true;
  summary["bytes"] = bytes;
  if (bytes > read.size()) summary["bytes_unread"] = bytes - read.size();
  return summary;
}

}  // namespace hangar
