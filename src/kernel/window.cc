#include "kernel/window.h"

#include "base/id.h"
#include "kernel/control.h"

namespace hangar {

namespace {

ParseError Bad(std::string field, std::string reason) {
  return ParseError{std::move(field), std::move(reason)};
}

}  // namespace

OpRequestOrError ParseOpRequest(std::string_view bytes) {
  if (bytes.size() > kMaxOpRequestBytes)
    return Bad("", "more than " + std::to_string(kMaxOpRequestBytes) + " bytes");
  if (!json::ValidUtf8(bytes)) return Bad("", "not UTF-8 text");
  Result<json::Value> v = json::Parse(bytes);
  if (!v.ok()) return Bad("", "not JSON: " + v.status().message());
  if (!v->is_object()) return Bad("", "expected a JSON object");
  OpRequest r;
  bool has_args = false;
  for (const auto& [k, x] : v->as_object()) {
    if (k == "op") {
      if (!x.is_string() || !ValidOpName(x.as_string()))
        return Bad(k, "expected an op name ([a-z][a-z0-9._-]*, at most 64 bytes)");
      r.op = x.as_string();
    } else if (k == "key") {
      if (!x.is_string() || !ValidId(x.as_string()))
        return Bad(k, "expected a key ([A-Za-z0-9][A-Za-z0-9._-]*, at most 64 bytes)");
      r.key = x.as_string();
    } else if (k == "args") {
      if (!x.is_object()) return Bad(k, "expected an object");
      r.args = x;
      has_args = true;
    } else {
      return Bad(k, "unknown field (a request has op, args, key)");
    }
  }
  if (r.op.empty()) return Bad("op", "missing required field");
  if (!has_args) return Bad("args", "missing required field");
  if (r.key.empty()) return Bad("key", "missing required field");
  return r;
}

std::string OpRequestName(std::string_view file) {
  if (!file.ends_with(".json")) return "";
  std::string_view name = file.substr(0, file.size() - 5);
  if (name.ends_with(".result") || !ValidId(name)) return "";
  return std::string(name);
}

bool Declares(const json::Value& d, const char* list, const std::string& op) {
  const json::Value* valid = d.is_object() ? d.find("valid") : nullptr;
  const json::Value* content = d.is_object() ? d.find("content") : nullptr;
  if (!valid || !valid->is_bool() || !valid->as_bool() || !content || !content->is_object())
    return false;
  const json::Value* l = content->find(list);
  if (!l || !l->is_array()) return false;
  for (const json::Value& x : l->as_array())
    if (x.is_string() && x.as_string() == op) return true;
  return false;
}

OpJudgement JudgeOp(const OpRequest& r, const OpContext& c) {
  auto refuse = [](std::string rule, std::string reason) {
    return OpJudgement{false, std::move(rule), std::move(reason)};
  };
  const json::Value& d = *c.declaration;
  const json::Value* present = d.is_object() ? d.find("present") : nullptr;
  const json::Value* valid = d.is_object() ? d.find("valid") : nullptr;
  if (!present || !present->is_bool() || !present->as_bool())
    return refuse("op.declaration", "no DECLARATION.json in the room: declare ops before asking");
  if (!valid || !valid->is_bool() || !valid->as_bool()) {
    const json::Value* e = d.find("error");
    return refuse("op.declaration", "DECLARATION.json is invalid" +
                                        (e && e->is_string() ? ": " + e->as_string() : ""));
  }
  if (!Declares(d, "ops", r.op))
    return refuse("op.undeclared", "op " + r.op + " is not in DECLARATION.json's ops");
  bool listed = false;
  for (const std::string& o : c.mission->ops) listed = listed || o == r.op;
  if (!listed) return refuse("op.unlisted", "op " + r.op + " is not in the mission's ops");
  const OpRule rule = c.policy->OpAccessFor(r.op);
  if (rule.access == OpAccess::kDeny) return refuse(rule.rule, "the policy denies op " + r.op);
  if (rule.access == OpAccess::kGrant &&
      !c.grants->Allows(r.op, c.mission->id, c.mission->requester, c.now))
    return refuse(rule.rule, "op " + r.op + " needs a grant; the ledger holds none for mission " +
                                 c.mission->id + " or requester " + c.mission->requester);
  if (!c.fail_closed.empty())
    return refuse("ledger.fail-closed", "the ledger is failed closed (" + c.fail_closed + ")");
  if (!c.has_handler) return refuse("op.handler", "the config names no handler for op " + r.op);
  return {true, "", ""};
}

}  // namespace hangar
