#include "kernel/requester_memory.h"

#include <algorithm>

#include "base/id.h"
#include "base/strict_json.h"
#include "base/utf8.h"
#include "kernel/control.h"
#include "kernel/phase.h"

namespace hangar {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using strict::Fail;

constexpr const char* kOutcomes[] = {"done", "failed", "timed_out", "killed", "cancelled", "lost"};

std::string SectionList() {
  std::string s;
  for (const char* n : kMemorySections) s += std::string(s.empty() ? "" : ", ") + n;
  return s;
}

bool IsSection(std::string_view k) {
  return std::find_if(kMemorySections.begin(), kMemorySections.end(),
                      [&](const char* n) { return k == n; }) != kMemorySections.end();
}

std::string Id(element e, const std::string& field) {
  std::string s = strict::NonEmptyString(e, field);
  if (!ValidId(s)) Fail(field, std::string("expected an id (") + kIdGrammar + ")");
  return s;
}

MemoryRef ReadRef(element e, const std::string& field) {
  if (e.type() != element_type::OBJECT) Fail(field, "expected an object");
  MemoryRef r;
  auto has = [&](const char* k) { return !e[k].error(); };
  const int kinds = has("mission") + has("seq") + has("grant") + has("path");
  // A grant names its subject with "mission" or "requester".
  if (has("grant")) {
    r.kind = MemoryRef::Kind::kGrant;
  } else if (kinds != 1) {
    Fail(field, "expected exactly one of \"mission\", \"seq\", \"grant\" and \"path\"");
  } else {
    r.kind = has("mission") ? MemoryRef::Kind::kMission
             : has("seq")   ? MemoryRef::Kind::kSeq
                            : MemoryRef::Kind::kPath;
  }
  const bool grant = r.kind == MemoryRef::Kind::kGrant;
  if (grant && has("seq")) Fail(field, "a grant reference has no \"seq\"");
  if (grant && has("path")) Fail(field, "a grant reference has no \"path\"");
  if (grant && has("mission") == has("requester"))
    Fail(field, "a grant reference names exactly one of \"mission\" and \"requester\"");
  strict::Members(
      e, field,
      "a reference has mission, seq, grant, requester, path, state, outcome, approved, "
      "kind, in",
      [&](const std::string& k, const std::string& kf, element v) {
        const bool mission = r.kind == MemoryRef::Kind::kMission;
        if (k == "mission") {
          r.mission = Id(v, kf);
        } else if (k == "seq" && r.kind == MemoryRef::Kind::kSeq) {
          r.seq = strict::IntegerIn(v, kf, 1, int64_t(1) << 53);
        } else if (k == "grant") {
          r.grant = strict::NonEmptyString(v, kf);
          if (!ValidOpName(r.grant)) Fail(kf, "expected an op name ([a-z][a-z0-9._-]*)");
        } else if (k == "requester" && grant) {
          r.requester = strict::NonEmptyString(v, kf);
          if (r.requester.size() > 256) Fail(kf, "expected at most 256 bytes");
        } else if (k == "path" && r.kind == MemoryRef::Kind::kPath) {
          r.path = strict::NonEmptyString(v, kf);
          if (r.path[0] != '/' || r.path.size() > 4096)
            Fail(kf, "expected an absolute path of at most 4096 bytes");
        } else if (k == "state" && mission) {
          r.state = strict::NonEmptyString(v, kf);
          if (!PhaseFromName(r.state))
            Fail(kf, "expected a state (hold, queued, running, returned, denied, rejected)");
        } else if (k == "outcome" && mission) {
          r.outcome = strict::NonEmptyString(v, kf);
          if (std::find(std::begin(kOutcomes), std::end(kOutcomes), r.outcome) ==
              std::end(kOutcomes))
            Fail(kf, "expected an outcome (done, failed, timed_out, killed, cancelled, lost)");
        } else if (k == "approved" && mission) {
          r.approved = strict::Bool(v, kf);
        } else if (k == "kind" && r.kind == MemoryRef::Kind::kSeq) {
          r.kind_claimed = strict::NonEmptyString(v, kf);
          if (r.kind_claimed.size() > 64) Fail(kf, "expected at most 64 bytes");
        } else if (k == "in") {
          r.in = strict::NonEmptyString(v, kf);
          if (!IsSection(r.in)) Fail(kf, "expected a section (" + SectionList() + ")");
        } else {
          return false;
        }
        return true;
      });
  return r;
}

}  // namespace

json::Value MemoryRef::ToJson() const {
  json::Object o;
  switch (kind) {
    case Kind::kMission:
      o["mission"] = mission;
      if (!state.empty()) o["state"] = state;
      if (!outcome.empty()) o["outcome"] = outcome;
      if (approved) o["approved"] = true;
      break;
    case Kind::kSeq:
      o["seq"] = seq;
      if (!kind_claimed.empty()) o["kind"] = kind_claimed;
      break;
    case Kind::kGrant:
      o["grant"] = grant;
      if (!mission.empty()) o["mission"] = mission;
      if (!requester.empty()) o["requester"] = requester;
      break;
    case Kind::kPath:
      o["path"] = path;
      break;
  }
  if (!in.empty()) o["in"] = in;
  return o;
}

std::string MemoryRef::Text() const {
  switch (kind) {
    case Kind::kMission:
      return "mission " + mission;
    case Kind::kSeq:
      return "seq " + std::to_string(seq);
    case Kind::kGrant:
      return "grant " + grant + " to " +
             (mission.empty() ? "requester " + requester : "mission " + mission);
    case Kind::kPath:
      return "path " + path;
  }
  return "?";
}

const std::string& RequesterMemory::Section(std::string_view name) const {
  for (size_t i = 0; i < kMemorySections.size(); i++)
    if (name == kMemorySections[i]) return sections[i];
  static const std::string none;
  return none;
}

json::Value RequesterMemory::ToJson() const {
  json::Object o{{"hangar_memory", 1}, {"requester", requester}};
  for (size_t i = 0; i < kMemorySections.size(); i++) o[kMemorySections[i]] = sections[i];
  json::Array rs;
  for (const MemoryRef& r : refs) rs.push_back(r.ToJson());
  o["refs"] = std::move(rs);
  return o;
}

std::string RequesterMemory::StoredText() const {
  return json::WritePretty(ToJson());
}

RequesterMemory ReadRequesterMemory(element v, const std::string& field) {
  if (v.type() != element_type::OBJECT) Fail(field, "expected a JSON object (a work state)");
  element ver;
  if (v["hangar_memory"].get(ver) || ver.type() != element_type::INT64 ||
      ver.get_int64().value_unsafe() != 1)
    Fail(strict::Member(field, "hangar_memory"),
         "expected 1 (the only work-state format version this hangar reads)");
  RequesterMemory m;
  std::array<bool, kMemorySections.size()> seen{};
  bool have_requester = false;
  size_t total = 0;
  const std::string known =
      "a work state has hangar_memory, requester, " + SectionList() + ", refs";
  strict::Members(v, field, known, [&](const std::string& k, const std::string& kf, element x) {
    if (k == "hangar_memory") return true;
    if (k == "requester") {
      m.requester = strict::NonEmptyString(x, kf);
      if (!ValidId(m.requester))
        Fail(kf,
             std::string("expected a requester name usable as a directory (") + kIdGrammar + ")");
      have_requester = true;
      return true;
    }
    if (k == "refs") {
      strict::Items(x, kf, "expected a list of references", [&](element r, const std::string& rf) {
        if (m.refs.size() == kMaxMemoryRefs)
          Fail(kf, "more than " + std::to_string(kMaxMemoryRefs) + " references");
        m.refs.push_back(ReadRef(r, rf));
      });
      return true;
    }
    for (size_t i = 0; i < kMemorySections.size(); i++) {
      if (k != kMemorySections[i]) continue;
      m.sections[i] = strict::String(x, kf);
      if (m.sections[i].size() > kMaxSectionBytes)
        Fail(kf, std::to_string(m.sections[i].size()) + " bytes, over the section limit of " +
                     std::to_string(kMaxSectionBytes));
      total += m.sections[i].size();
      seen[i] = true;
      return true;
    }
    return false;
  });
  if (!have_requester) Fail(strict::Member(field, "requester"), "missing required field");
  for (size_t i = 0; i < kMemorySections.size(); i++)
    if (!seen[i])
      Fail(strict::Member(field, kMemorySections[i]),
           "missing required section (each section must be present; it may be \"\")");
  if (total > kMaxMemoryTextBytes)
    Fail(field, "the sections hold " + std::to_string(total) + " bytes, over the total limit of " +
                    std::to_string(kMaxMemoryTextBytes));
  return m;
}

std::optional<ParseError> MemoryUtf8Error(std::string_view bytes, const std::string& prefix) {
  const std::string fixed = ReplaceInvalidUtf8(bytes);
  if (fixed.size() == bytes.size() && fixed == bytes) return std::nullopt;
  size_t bad = 0;
  while (bad < bytes.size() && bad < fixed.size() && bytes[bad] == fixed[bad]) bad++;
  // The member whose key comes last before the bad byte: the text it is in.
  std::string field;
  size_t best = 0;
  auto consider = [&](const std::string& name) {
    const std::string key = "\"" + name + "\"";
    for (size_t at = bytes.find(key); at != std::string_view::npos && at < bad;
         at = bytes.find(key, at + 1))
      if (at >= best) {
        best = at;
        field = name;
      }
  };
  for (const char* s : kMemorySections) consider(s);
  consider("requester");
  consider("refs");
  const std::string where = field.empty() ? prefix : strict::Member(prefix, field);
  return ParseError{where, "not valid UTF-8 (byte " + std::to_string(bad) + ")"};
}

std::variant<RequesterMemory, ParseError> ParseRequesterMemory(std::string_view bytes) {
  if (std::optional<ParseError> e = MemoryUtf8Error(bytes, "")) return *e;
  return strict::ReadDocument<RequesterMemory>(
      bytes, [](element root) { return ReadRequesterMemory(root, ""); });
}

}  // namespace hangar
