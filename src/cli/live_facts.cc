#include "cli/live_facts.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "base/timefmt.h"
#include "cli/output.h"
#include "env/nofollow.h"
#include "shell/harness_line.h"

namespace hangar::cli {

namespace {

constexpr size_t kTailScan = size_t(16) << 20;
constexpr size_t kLastLines = 3;

std::optional<TimeMs> TimeField(const json::Value& v, const char* key) {
  return ParseTime(StringField(v, key));
}

}  // namespace

off_t StartOfLastLines(int fd, size_t n) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return 0;
  const off_t from = std::max<off_t>(0, st.st_size - off_t(kTailScan));
  std::string text(size_t(st.st_size - from), '\0');
  const ssize_t got = pread(fd, text.data(), text.size(), from);
  if (got <= 0) return from;
  text.resize(size_t(got));
  size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') end--;  // the last line's own newline
  if (n == 0) return st.st_size;
  for (size_t seen = 0; end > 0; end--)
    if (text[end - 1] == '\n' && ++seen == n) return from + off_t(end);
  return from;
}

std::vector<std::string> LastLines(const std::string& path, size_t n) {
  std::vector<std::string> out;
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || n == 0) return out;
  const off_t from = StartOfLastLines(fd.get(), n);
  std::string text(size_t(st.st_size - from), '\0');
  const ssize_t got = pread(fd.get(), text.data(), text.size(), from);
  if (got <= 0) return out;
  text.resize(size_t(got));
  if (!text.empty() && text.back() == '\n') text.pop_back();
  for (size_t at = 0;;) {
    const size_t nl = text.find('\n', at);
    out.push_back(text.substr(at, nl == std::string::npos ? nl : nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

json::Value LiveFacts(const SpoolView& view, const MissionRef& ref, TimeMs now) {
  if (!ref.phase || (*ref.phase != Phase::kRunning && *ref.phase != Phase::kReturned))
    return nullptr;
  Result<json::Value> plan = view.ReadJson(ref.path + "/plan.json");
  if (!plan.ok()) return nullptr;
  const std::string run = ref.path + "/run";
  json::Object f{{"pid", nullptr},        {"elapsed_ms", nullptr}, {"deadline_left_ms", nullptr},
                 {"last_lines", nullptr}, {"last_event", nullptr}, {"last_message", nullptr}};
  const std::string stdout_file = StringField(*plan, "stdout_file");
  const bool events = stdout_file.ends_with(".jsonl");
  if (*ref.phase == Phase::kRunning) {
    Result<json::Value> shim = view.ReadJson(run + "/shim.json");
    if (shim.ok()) {
      if (const json::Value* pid = shim->find("drone_pid"); pid && pid->is_int()) f["pid"] = *pid;
      if (std::optional<TimeMs> t = TimeField(*shim, "started")) {
        f["elapsed_ms"] = now - *t;
        if (const json::Value* d = plan->find("deadline_ms"); d && d->is_int() && d->as_int() > 0)
          f["deadline_left_ms"] = std::max<int64_t>(0, *t + d->as_int() - now);
      }
    }
    const std::vector<std::string> last = LastLines(
        run + "/" + (stdout_file.empty() ? "stdout" : stdout_file), events ? 64 : kLastLines);
    if (events) {
      for (auto l = last.rbegin(); l != last.rend() && f["last_event"].is_null(); ++l)
        if (std::vector<std::string> e = HarnessEventLines(*l); !e.empty())
          f["last_event"] = e.back();
    } else {
      f["last_lines"] = json::Array(last.begin(), last.end());
    }
  } else {
    Result<json::Value> ret = view.ReadJson(ref.path + "/return.json", SpoolView::kMaxReturnFile);
    const json::Value* times = ret.ok() ? ret->find("times") : nullptr;
    if (times && times->is_object()) {
      std::optional<TimeMs> a = TimeField(*times, "started"), b = TimeField(*times, "ended");
      if (a && b) f["elapsed_ms"] = *b - *a;
    }
    const std::vector<std::string> msg = LastLines(run + "/last-message.txt", kLastLines);
    if (!msg.empty()) {
      std::string joined;
      for (const std::string& l : msg) joined += (joined.empty() ? "" : "\n") + l;
      f["last_message"] = joined;
    }
  }
  return f;
}

std::vector<Row> LiveRows(const json::Value& f) {
  std::vector<Row> rows;
  if (!f.is_object()) return rows;
  auto age = [&](const char* k) {
    const json::Value* v = f.find(k);
    return v && v->is_int() ? FormatAge(v->as_int()) : std::string();
  };
  if (const json::Value* pid = f.find("pid"); pid && pid->is_int())
    rows.push_back({"pid", std::to_string(pid->as_int()) + " (the drone)"});
  if (std::string e = age("elapsed_ms"); !e.empty()) rows.push_back({"elapsed", e});
  if (std::string d = age("deadline_left_ms"); !d.empty())
    rows.push_back({"deadline", d + " left"});
  if (const json::Value* l = f.find("last_lines"); l && l->is_array() && !l->as_array().empty()) {
    std::string v;
    for (const json::Value& x : l->as_array()) v += (v.empty() ? "" : "\n") + x.as_string();
    rows.push_back({"output", v});
  }
  if (std::string e = StringField(f, "last_event"); !e.empty()) rows.push_back({"event", e});
  if (std::string m = StringField(f, "last_message"); !m.empty()) rows.push_back({"message", m});
  return rows;
}

}  // namespace hangar::cli
