#include "kernel/mission.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "base/simdjson_util.h"

namespace hangar {

using simdjson::dom::element;
using simdjson::dom::element_type;

bool ValidId(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(id[0])) return false;
  for (char c : id)
    if (!alnum(c) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

json::Value DoneCheck::ToJson() const {
  json::Object o;
  if (kind == Kind::kFile) {
    o["file"] = file;
  } else {
    json::Array a(argv.begin(), argv.end());
    o["run"] = a;
    o["rc"] = rc;
    o["timeout_s"] = timeout_s;
  }
  return o;
}

json::Value ParseError::ToJson() const {
  json::Object o;
  o["field"] = field;
  o["reason"] = reason;
  return o;
}

std::string ParseError::Text() const {
  return field.empty() ? reason : field + ": " + reason;
}

namespace {

struct Fail {
  ParseError e;
};

[[noreturn]] void Throw(std::string field, std::string reason) {
  throw Fail{ParseError{std::move(field), std::move(reason)}};
}

std::string String(element e, const std::string& field) {
  if (e.type() != element_type::STRING) Throw(field, "expected a string");
  return std::string(e.get_string().value_unsafe());
}

std::string NonEmptyString(element e, const std::string& field) {
  std::string s = String(e, field);
  if (s.empty()) Throw(field, "expected a non-empty string");
  return s;
}

std::vector<std::string> StringList(element e, const std::string& field) {
  if (e.type() != element_type::ARRAY) Throw(field, "expected a list of strings");
  std::vector<std::string> out;
  size_t i = 0;
  for (element x : AsArray(e)) out.push_back(String(x, field + "[" + std::to_string(i++) + "]"));
  return out;
}

int64_t Integer(element e, const std::string& field) {
  if (e.type() == element_type::INT64) return e.get_int64().value_unsafe();
  if (e.type() == element_type::UINT64) Throw(field, "integer out of range");
  Throw(field, "expected an integer");
}

double Number(element e, const std::string& field) {
  switch (e.type()) {
    case element_type::INT64:
      return double(e.get_int64().value_unsafe());
    case element_type::UINT64:
      return double(e.get_uint64().value_unsafe());
    case element_type::DOUBLE:
      return e.get_double().value_unsafe();
    default:
      Throw(field, "expected a number");
  }
}

bool SafeRelativePath(const std::string& p) {
  if (p.empty() || p[0] == '/' || p.find('\0') != std::string::npos) return false;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    std::string_view seg(p.data() + start, end - start);
    if (seg == "..") return false;
    start = end + 1;
  }
  return true;
}

DoneCheck ParseCheck(element e, const std::string& field) {
  if (e.type() != element_type::OBJECT)
    Throw(
        field,
        "expected an object {\"file\": PATH} or {\"run\": [ARGV...], \"rc\": N, \"timeout_s\": N}");
  DoneCheck c;
  bool has_file = false, has_run = false, has_rc = false, has_timeout = false;
  std::set<std::string> seen;
  for (auto [key, value] : AsObject(e)) {
    std::string f = field + "." + std::string(key);
    if (!seen.insert(std::string(key)).second) Throw(f, "field given twice");
    if (key == "file") {
      has_file = true;
      c.file = NonEmptyString(value, f);
      if (!SafeRelativePath(c.file))
        Throw(f, "expected a relative path inside the room (no leading '/', no '..')");
    } else if (key == "run") {
      has_run = true;
      c.argv = StringList(value, f);
      if (c.argv.empty() || c.argv[0].empty()) Throw(f, "expected a non-empty argv list");
    } else if (key == "rc") {
      has_rc = true;
      int64_t rc = Integer(value, f);
      if (rc < 0 || rc > 255) Throw(f, "expected an exit status from 0 to 255");
      c.rc = int(rc);
    } else if (key == "timeout_s") {
      has_timeout = true;
      int64_t t = Integer(value, f);
      if (t < 1 || t > 3600) Throw(f, "expected seconds from 1 to 3600");
      c.timeout_s = int(t);
    } else {
      Throw(f, "unknown field (a check has \"file\", or \"run\" with \"rc\" and \"timeout_s\")");
    }
  }
  if (has_file == has_run) Throw(field, "expected exactly one of \"file\" or \"run\"");
  if (has_file && (has_rc || has_timeout))
    Throw(field, "\"rc\" and \"timeout_s\" belong to a \"run\" check");
  c.kind = has_file ? DoneCheck::Kind::kFile : DoneCheck::Kind::kRun;
  return c;
}

Mission Parse(element root) {
  if (root.type() != element_type::OBJECT) Throw("", "expected a JSON object");
  Mission m;
  std::set<std::string> seen;
  for (auto [key, value] : AsObject(root)) {
    std::string k(key);
    if (!seen.insert(k).second) Throw(k, "field given twice");
    if (k == "hangar") {
      if (value.type() != element_type::INT64 || value.get_int64().value_unsafe() != 1)
        Throw(k, "expected 1 (the only mission format version this hangar reads)");
    } else if (k == "id") {
      m.id = String(value, k);
      if (!ValidId(m.id)) Throw(k, "expected [A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    } else if (k == "requester") {
      m.requester = NonEmptyString(value, k);
    } else if (k == "drone") {
      m.drone = NonEmptyString(value, k);
    } else if (k == "future") {
      m.future = String(value, k);
    } else if (k == "now") {
      m.now = String(value, k);
    } else if (k == "constraints") {
      m.constraints = StringList(value, k);
    } else if (k == "acts") {
      m.acts = StringList(value, k);
    } else if (k == "ops") {
      m.ops = StringList(value, k);
    } else if (k == "writes") {
      m.writes = StringList(value, k);
      if (m.writes.size() > kMaxMissionWrites) Throw(k, "more than 64 paths");
      for (size_t i = 0; i < m.writes.size(); i++) {
        const std::string& w = m.writes[i];
        const std::string f = k + "[" + std::to_string(i) + "]";
        if (w.empty() || w.size() > 4096) Throw(f, "expected a path of 1 to 4096 bytes");
        if (w.find('\0') != std::string::npos) Throw(f, "a path holds no NUL byte");
        if (w[0] == '~' && w.size() > 1 && w[1] != '/')
          Throw(f, "\"~user\" is not looked up; write the absolute path");
        if (w[0] != '/' && w[0] != '~')
          Throw(f, "expected an absolute path, \"~\" or \"~/...\" (the room needs no entry)");
      }
    } else if (k == "done_when") {
      if (value.type() != element_type::ARRAY) Throw(k, "expected a list of checks");
      size_t i = 0;
      for (element c : AsArray(value))
        m.done_when.push_back(ParseCheck(c, k + "[" + std::to_string(i++) + "]"));
    } else if (k == "network") {
      m.network = String(value, k);
      m.network_given = true;
      if (m.network != "none" && m.network != "egress" && m.network != "host")
        Throw(k, "expected \"none\", \"egress\" or \"host\"");
    } else if (k == "egress") {
      if (value.type() != element_type::ARRAY) Throw(k, "expected a list of \"host:port\"");
      size_t i = 0;
      for (element e : AsArray(value)) {
        const std::string f = k + "[" + std::to_string(i++) + "]";
        Result<Destination> d = ParseDestination(String(e, f));
        if (!d.ok()) Throw(f, d.status().message());
        if (std::find(m.egress.begin(), m.egress.end(), *d) != m.egress.end())
          Throw(f, d->Text() + " given twice");
        m.egress.push_back(*d);
      }
      if (m.egress.size() > 64) Throw(k, "at most 64 destinations");
    } else if (k == "max_minutes") {
      m.max_minutes = Number(value, k);
      if (!(m.max_minutes > 0) || m.max_minutes > kMaxMinutes || !std::isfinite(m.max_minutes))
        Throw(k, "expected a number greater than 0 and at most 1440");
      if (m.deadline_ms() < 1)  // a tiny positive number rounds to no deadline at all
        Throw(k, "expected a deadline of at least 1 ms (max_minutes x 60000, rounded)");
    } else if (k == "notify") {
      if (value.type() != element_type::OBJECT) Throw(k, "expected an object {\"dir\": PATH}");
      for (auto [nk, nv] : AsObject(value)) {
        if (nk == "dir" && m.notify_dir) Throw(k + ".dir", "field given twice");
        if (nk != "dir")
          Throw(k + "." + std::string(nk), "unknown field (notify has only \"dir\")");
        std::string d = NonEmptyString(nv, k + ".dir");
        if (d[0] != '/') Throw(k + ".dir", "expected an absolute path");
        m.notify_dir = d;
      }
      if (!m.notify_dir) Throw(k + ".dir", "missing required field");
    } else {
      Throw(k, "unknown field");
    }
  }
  for (const char* req : {"hangar", "requester", "drone", "future", "now", "max_minutes"})
    if (!seen.count(req)) Throw(req, "missing required field");
  if (seen.count("egress") && m.network != "egress")
    Throw("egress", "only a mission whose network is \"egress\" lists destinations");
  return m;
}

}  // namespace

MissionOrError ParseMission(std::string_view bytes) {
  if (bytes.size() > kMaxMissionBytes)
    return ParseError{"", "file larger than 1 MiB (" + std::to_string(bytes.size()) + " bytes)"};
  if (!json::ValidUtf8(bytes)) return ParseError{"", "not valid UTF-8"};
  simdjson::dom::parser parser;
  simdjson::padded_string padded(bytes);
  element root;
  if (auto err = parser.parse(padded).get(root))
    return ParseError{"", std::string("not valid JSON: ") + simdjson::error_message(err)};
  try {
    return Parse(root);
  } catch (const Fail& f) {
    return f.e;
  }
}

}  // namespace hangar
