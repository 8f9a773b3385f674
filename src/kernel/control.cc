#include "kernel/control.h"

#include <algorithm>
#include <vector>

#include "base/strict_json.h"
#include "kernel/mission.h"

namespace hangar {

namespace {

constexpr size_t kMaxControlBytes = 64 * 1024;
constexpr size_t kMaxMemoryRequestBytes = 128 * 1024;  // a work state of up to 64 KiB, wrapped
constexpr size_t kMaxWhy = 1000;
constexpr size_t kMaxSignature = 16384;  // an armored SSH signature is well under 1 KiB

using simdjson::dom::element;
using simdjson::dom::element_type;
using strict::Fail;

// The fields a request of each kind holds besides hangar, request, by and time.
std::vector<std::string> FieldsOf(ControlKind k) {
  switch (k) {
    case ControlKind::kCancel:
    case ControlKind::kRetry:
      return {"id"};
    case ControlKind::kApprove:
      return {"id", "why", "principal", "signature"};
    case ControlKind::kDeny:
      return {"id", "why"};
    case ControlKind::kGrant:
      return {"op", "mission", "requester", "until"};
    case ControlKind::kRevoke:
      return {"op", "mission", "requester"};
    case ControlKind::kReanchor:
      return {"why"};
    case ControlKind::kMemory:
      return {"memory"};
    case ControlKind::kPurge:
      return {"ids", "why"};
    case ControlKind::kReleaseCanary:
      return {"profile", "why"};
  }
  return {};
}

bool Has(element request, const char* field) {
  return !request[field].error();
}

// The string member FIELD of the request, 1 to MAX bytes.
std::string Str(element request, const char* field, size_t max) {
  element m;
  if (request[field].get(m)) Fail(field, "missing required field");
  std::string s = strict::String(m, field);
  if (s.empty() || s.size() > max) Fail(field, "expected 1 to " + std::to_string(max) + " bytes");
  return s;
}

constexpr char kNotAnId[] = "expected a mission id ([A-Za-z0-9][A-Za-z0-9._-]*)";

// A purge's "ids": 1 to kMaxPurgeIds mission ids, none twice.
std::vector<std::string> PurgeIds(element request) {
  element a;
  if (request["ids"].get(a)) Fail("ids", "missing required field");
  std::vector<std::string> ids;
  strict::Items(a, "ids", "expected an array of mission ids",
                [&](element e, const std::string& at) {
                  std::string id = strict::String(e, at);
                  if (!ValidId(id)) Fail(at, kNotAnId);
                  if (std::find(ids.begin(), ids.end(), id) != ids.end())
                    Fail(at, "mission " + id + " twice");
                  ids.push_back(std::move(id));
                });
  if (ids.empty() || ids.size() > kMaxPurgeIds)
    Fail("ids", "expected 1 to " + std::to_string(kMaxPurgeIds) + " mission ids");
  return ids;
}

ControlRequest Parse(element v) {
  if (v.type() != element_type::OBJECT) Fail("", "expected a JSON object");
  element ver;
  if (v["hangar"].get(ver) || ver.type() != element_type::INT64 ||
      ver.get_int64().value_unsafe() != 1)
    Fail("hangar", "expected 1 (the only control format version this hangar reads)");
  const std::string req = Str(v, "request", 64);
  ControlRequest r;
  if (req == "cancel" || req == "approve" || req == "deny" || req == "retry") {
    r.kind = req == "cancel"    ? ControlKind::kCancel
             : req == "approve" ? ControlKind::kApprove
             : req == "retry"   ? ControlKind::kRetry
                                : ControlKind::kDeny;
    r.id = Str(v, "id", 64);
    if (!ValidId(r.id)) Fail("id", kNotAnId);
    if (r.kind == ControlKind::kDeny || (r.kind == ControlKind::kApprove && Has(v, "why")))
      r.why = Str(v, "why", kMaxWhy);
    if (r.kind == ControlKind::kApprove && (Has(v, "principal") || Has(v, "signature"))) {
      if (!Has(v, "principal") || !Has(v, "signature"))
        Fail("", "a signed approve needs both \"principal\" and \"signature\"");
      r.principal = Str(v, "principal", 256);
      r.signature = Str(v, "signature", kMaxSignature);
    }
  } else if (req == "grant" || req == "revoke") {
    r.kind = req == "grant" ? ControlKind::kGrant : ControlKind::kRevoke;
    r.op = Str(v, "op", 64);
    if (!ValidOpName(r.op)) Fail("op", "expected an op name ([a-z][a-z0-9._-]*)");
    const bool m = Has(v, "mission"), q = Has(v, "requester");
    if (m == q) Fail("", "expected exactly one of \"mission\" and \"requester\"");
    if (m) {
      r.mission = Str(v, "mission", 64);
      if (!ValidId(r.mission)) Fail("mission", "expected a mission id");
    } else {
      r.requester = Str(v, "requester", 256);
    }
    if (r.kind == ControlKind::kGrant && Has(v, "until")) {
      std::optional<TimeMs> t = ParseRfc3339(Str(v, "until", 64));
      if (!t) Fail("until", "expected an RFC 3339 time such as 2026-12-01T00:00:00Z");
      r.until = t;
    }
  } else if (req == "reanchor") {
    r.kind = ControlKind::kReanchor;
    r.why = Str(v, "why", kMaxWhy);
  } else if (req == "memory") {
    r.kind = ControlKind::kMemory;
    element m;
    if (v["memory"].get(m)) Fail("memory", "missing required field");
    r.memory = ReadRequesterMemory(m, "memory");
  } else if (req == "purge") {
    r.kind = ControlKind::kPurge;
    r.ids = PurgeIds(v);
    if (Has(v, "why")) r.why = Str(v, "why", kMaxWhy);
  } else if (req == "release-canary") {
    r.kind = ControlKind::kReleaseCanary;
    r.profile = Str(v, "profile", 256);
    if (Has(v, "why")) r.why = Str(v, "why", kMaxWhy);
  } else {
    Fail("request", "unknown request \"" + req +
                        "\" (known: cancel, approve, deny, retry, grant, revoke, reanchor, "
                        "memory, purge, release-canary)");
  }
  if (Has(v, "by")) r.by = Str(v, "by", 256);
  if (Has(v, "time") && !ParseRfc3339(Str(v, "time", 64)))
    Fail("time", "expected an RFC 3339 time");
  // Last, so that a missing or wrong field of the request is named before a stray one.
  std::vector<std::string> fields = FieldsOf(r.kind);
  fields.insert(fields.begin(), {"hangar", "request"});
  fields.insert(fields.end(), {"by", "time"});
  std::string known = "a " + req + " request has";
  for (size_t i = 0; i < fields.size(); i++) known += (i ? ", " : " ") + fields[i];
  strict::Members(v, "", known, [&](const std::string& k, const std::string&, element) {
    return std::find(fields.begin(), fields.end(), k) != fields.end();
  });
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
    case ControlKind::kMemory:
      return "memory";
    case ControlKind::kPurge:
      return "purge";
    case ControlKind::kReleaseCanary:
      return "release-canary";
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
  if (bytes.size() > kMaxMemoryRequestBytes)
    return ParseError{"", "larger than " + std::to_string(kMaxMemoryRequestBytes) + " bytes"};
  // A work state's text is where bad bytes come from: say which section holds them.
  if (bytes.find("\"hangar_memory\"") != std::string_view::npos)
    if (std::optional<ParseError> e = MemoryUtf8Error(bytes, "memory")) return *e;
  auto r = strict::ReadDocument<ControlRequest>(bytes, Parse);
  if (auto* c = std::get_if<ControlRequest>(&r);
      c && c->kind != ControlKind::kMemory && bytes.size() > kMaxControlBytes)
    return ParseError{"", "larger than " + std::to_string(kMaxControlBytes) + " bytes"};
  return r;
}

}  // namespace hangar
