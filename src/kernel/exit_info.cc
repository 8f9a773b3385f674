#include "kernel/exit_info.h"

namespace hangar {

json::Value ExitInfo::ToJson() const {
  json::Object o;
  o["hangar"] = 1;
  o["rc"] = rc ? json::Value(*rc) : json::Value(nullptr);
  o["signal"] = signal ? json::Value(*signal) : json::Value(nullptr);
  o["timed_out"] = timed_out;
  o["cancelled"] = cancelled;
  o["started"] = FormatTime(started);
  o["ended"] = FormatTime(ended);
  o["error"] = error.empty() ? json::Value(nullptr) : json::Value(error);
  return o;
}

Result<ExitInfo> ExitInfo::FromJson(const json::Value& v) {
  auto bad = [](const std::string& f, const std::string& why) {
    return Status::Invalid("exit.json: " + f + ": " + why);
  };
  if (!v.is_object()) return bad("", "expected an object");
  const json::Value* ver = v.find("hangar");
  if (!ver || !ver->is_int() || ver->as_int() != 1) return bad("hangar", "expected 1");
  ExitInfo e;
  auto opt_int = [&](const char* k, std::optional<int>* out) -> bool {
    const json::Value* x = v.find(k);
    if (!x || x->is_null()) return true;
    if (!x->is_int()) return false;
    *out = int(x->as_int());
    return true;
  };
  if (!opt_int("rc", &e.rc)) return bad("rc", "expected an integer or null");
  if (!opt_int("signal", &e.signal)) return bad("signal", "expected an integer or null");
  for (auto [k, out] :
       {std::pair{"timed_out", &e.timed_out}, std::pair{"cancelled", &e.cancelled}}) {
    const json::Value* x = v.find(k);
    if (!x || !x->is_bool()) return bad(k, "expected true or false");
    *out = x->as_bool();
  }
  for (auto [k, out] : {std::pair{"started", &e.started}, std::pair{"ended", &e.ended}}) {
    const json::Value* x = v.find(k);
    std::optional<TimeMs> t = x && x->is_string() ? ParseTime(x->as_string()) : std::nullopt;
    if (!t) return bad(k, "expected a time such as 2026-11-29T19:05:43.123Z");
    *out = *t;
  }
  if (const json::Value* x = v.find("error"); x && x->is_string()) e.error = x->as_string();
  return e;
}

}  // namespace hangar
