#include "kernel/control.h"

#include <set>

#include "base/json.h"
#include "base/strict_json.h"
#include "kernel/mission.h"

namespace hangar {

namespace {

constexpr size_t kMaxControlBytes = 64 * 1024;
constexpr size_t kMaxWhy = 1000;
constexpr size_t kMaxSignature = 16384;  // an armored SSH signature is well under 1 KiB

using strict::Fail;

const json::Value* Member(const json::Value& v, const char* k) {
  return v.find(k);
}

std::string Str(const json::Value& v, const std::string& field, size_t max) {
  const json::Value* m = v.find(field);
  if (!m) Fail(field, "missing required field");
  if (!m->is_string()) Fail(field, "expected a string");
  if (m->as_string().empty() || m->as_string().size() > max)
    Fail(field, "expected 1 to " + std::to_string(max) + " bytes");
  return m->as_string();
}

ControlRequest Parse(const json::Value& v) {
  if (!v.is_object()) Fail("", "expected a JSON object");
  const json::Value* ver = Member(v, "hangar");
  if (!ver || !ver->is_int() || ver->as_int() != 1)
    Fail("hangar", "expected 1 (the only control format version this hangar reads)");
  const std::string req = Str(v, "request", 64);
  ControlRequest r;
  std::set<std::string> allowed{"hangar", "request", "by", "time"};
  if (req == "cancel" || req == "approve" || req == "deny" || req == "retry") {
    r.kind = req == "cancel"    ? ControlKind::kCancel
             : req == "approve" ? ControlKind::kApprove
             : req == "retry"   ? ControlKind::kRetry
                                : ControlKind::kDeny;
    r.id = Str(v, "id", 64);
    if (!ValidId(r.id)) Fail("id", "expected a mission id ([A-Za-z0-9][A-Za-z0-9._-]*)");
    allowed.insert("id");
    if (r.kind == ControlKind::kDeny || (r.kind == ControlKind::kApprove && v.find("why"))) {
      r.why = Str(v, "why", kMaxWhy);
      allowed.insert("why");
    }
    if (r.kind == ControlKind::kApprove && (v.find("principal") || v.find("signature"))) {
      if (!v.find("principal") || !v.find("signature"))
        Fail("", "a signed approve needs both \"principal\" and \"signature\"");
      r.principal = Str(v, "principal", 256);
      r.signature = Str(v, "signature", kMaxSignature);
      allowed.insert({"principal", "signature"});
    }
  } else if (req == "grant" || req == "revoke") {
    r.kind = req == "grant" ? ControlKind::kGrant : ControlKind::kRevoke;
    r.op = Str(v, "op", 64);
    if (!ValidOpName(r.op)) Fail("op", "expected an op name ([a-z][a-z0-9._-]*)");
    const bool m = v.find("mission"), q = v.find("requester");
    if (m == q) Fail("", "expected exactly one of \"mission\" and \"requester\"");
    if (m) {
      r.mission = Str(v, "mission", 64);
      if (!ValidId(r.mission)) Fail("mission", "expected a mission id");
    } else {
      r.requester = Str(v, "requester", 256);
    }
    allowed.insert({"op", "mission", "requester"});
    if (r.kind == ControlKind::kGrant && v.find("until")) {
      std::optional<TimeMs> t = ParseRfc3339(Str(v, "until", 64));
      if (!t) Fail("until", "expected an RFC 3339 time such as 2026-12-01T00:00:00Z");
      r.until = t;
      allowed.insert("until");
    }
  } else if (req == "reanchor") {
    r.kind = ControlKind::kReanchor;
    r.why = Str(v, "why", kMaxWhy);
    allowed.insert("why");
  } else {
    Fail("request", "unknown request \"" + req +
                        "\" (known: cancel, approve, deny, retry, grant, revoke, reanchor)");
  }
  if (v.find("by")) r.by = Str(v, "by", 256);
  if (v.find("time") && !ParseRfc3339(Str(v, "time", 64)))
    Fail("time", "expected an RFC 3339 time");
  for (const auto& [k, m] : v.as_object())
    if (!allowed.count(k)) Fail(k, "unknown field for a " + req + " request");
  return r;
}

}  // namespace

const char* ControlKindName(ControlKind k) {
  switch (k) {
    case ControlKind::kCancel:
      return "cancel";
    case ControlKind::kApprove:
      return "approve";
    case ControlKind::kDeny:
      return "deny";
    case ControlKind::kGrant:
      return "grant";
    case ControlKind::kRevoke:
      return "revoke";
    case ControlKind::kReanchor:
      return "reanchor";
    case ControlKind::kRetry:
      return "retry";
  }
  return "?";
}

std::string ApprovalMessage(const std::string& id, const std::string& mission_sha256,
                            const std::string& plan_sha256) {
  return "hangar approve v1\nid " + id + "\nmission_sha256 " + mission_sha256 + "\nplan_sha256 " +
         plan_sha256 + "\n";
}

bool ValidOpName(std::string_view op) {
  if (op.empty() || op.size() > 64 || op[0] < 'a' || op[0] > 'z') return false;
  for (char c : op)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      return false;
  return true;
}

std::variant<ControlRequest, ParseError> ParseControl(std::string_view bytes) {
  if (bytes.size() > kMaxControlBytes)
    return ParseError{"", "larger than " + std::to_string(kMaxControlBytes) + " bytes"};
  Result<json::Value> v = json::Parse(bytes);
  if (!v.ok()) return ParseError{"", v.status().message()};
  try {
    return Parse(*v);
  } catch (const strict::Failure& f) {
    return f.error;
  }
}

}  // namespace hangar
