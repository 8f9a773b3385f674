#include "kernel/evidence.h"

#include <set>
#include <string>
#include <vector>

#include "kernel/window.h"

namespace hangar {

namespace {

std::string Str(const json::Value& o, const char* k) {
  const json::Value* v = o.is_object() ? o.find(k) : nullptr;
  return v && v->is_string() ? v->as_string() : "";
}

const json::Array& List(const json::Value& o, const char* k) {
  static const json::Array kNone;
  const json::Value* v = o.is_object() ? o.find(k) : nullptr;
  return v && v->is_array() ? v->as_array() : kNone;
}

}  // namespace

json::Value JudgeEvidence(const json::Value& declaration, const json::Value& ops) {
  std::vector<std::string> reasons, notes;
  const json::Value* present = declaration.is_object() ? declaration.find("present") : nullptr;
  const json::Value* valid = declaration.is_object() ? declaration.find("valid") : nullptr;
  const bool has = present && present->is_bool() && present->as_bool();
  const bool ok = has && valid && valid->is_bool() && valid->as_bool();
  if (!has) reasons.push_back("no DECLARATION.json in the room");
  if (has && !ok) {
    const std::string e = Str(declaration, "error");
    reasons.push_back("DECLARATION.json is invalid" + (e.empty() ? "" : ": " + e));
  }
  std::set<std::string> requested;
  auto requested_op = [&](const json::Value& r, bool answered) {
    const std::string op = Str(r, "op");
    if (op.empty()) return;
    requested.insert(op);
    if (ok && !Declares(declaration, "ops", op))
      reasons.push_back("op " + op + " requested (ops/" + Str(r, "request") +
                        ".json) but not declared in DECLARATION.json's ops" +
                        (answered ? "" : " (left unanswered)"));
  };
  for (const json::Value& r : List(ops, "answered")) {
    requested_op(r, true);
    const std::string status = Str(r, "status");
    const std::string op = Str(r, "op");
    if ((status == "executed") && !op.empty() && ok && !Declares(declaration, "ops", op) &&
        !Declares(declaration, "external_acts", op))
      reasons.push_back("external act " + op + " executed (ops/" + Str(r, "request") +
                        ".json) but not declared");
  }
  for (const json::Value& r : List(ops, "unanswered")) requested_op(r, false);
  if (ok) {
    const json::Value* content = declaration.find("content");
    for (const json::Value& d : List(*content, "ops"))
      if (d.is_string() && !requested.count(d.as_string()))
        notes.push_back("declared op " + d.as_string() + " never requested");
  }
  json::Object out;
  std::string text = reasons.empty() ? "allow: declaration matches evidence" : "reassess: ";
  for (size_t i = 0; i < reasons.size(); i++) text += (i ? "; " : "") + reasons[i];
  out["verdict"] = reasons.empty() ? "allow" : "reassess";
  out["text"] = text;
  out["reasons"] = json::Array(reasons.begin(), reasons.end());
  out["notes"] = json::Array(notes.begin(), notes.end());
  return out;
}

}  // namespace hangar
