#include "kernel/mission.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "base/strict_json.h"

namespace hangar {

using simdjson::dom::element;
using simdjson::dom::element_type;

json::Value DoneCheck::ToJson() const {
  json::Object o;
  if (kind == Kind::kFile) {
    o["file"] = file;
  } else {
    json::Array a(argv.begin(), argv.end());
    o["run"] = a;
    o["rc"] = rc;
    o["timeout_s"] = (timeout_ms + 999) / 1000;  // whole seconds, but for a test's shorter one
  }
  return o;
}

namespace {

using strict::Fail;
using strict::Integer;
using strict::NonEmptyString;
using strict::Number;
using strict::String;
using strict::Strings;

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
  DoneCheck c;
  bool has_file = false, has_run = false, has_rc = false, has_timeout = false;
  strict::Members(
      e, field, "a check has \"file\", or \"run\" with \"rc\" and \"timeout_s\"",
      [&](const std::string& key, const std::string& f, element value) {
        if (key == "file") {
          has_file = true;
          c.file = NonEmptyString(value, f);
          if (!SafeRelativePath(c.file))
            Fail(f, "expected a relative path inside the room (no leading '/', no '..')");
        } else if (key == "run") {
          has_run = true;
          c.argv = Strings(value, f);
          if (c.argv.empty() || c.argv[0].empty()) Fail(f, "expected a non-empty argv list");
        } else if (key == "rc") {
          has_rc = true;
          int64_t rc = Integer(value, f);
          if (rc < 0 || rc > 255) Fail(f, "expected an exit status from 0 to 255");
          c.rc = int(rc);
        } else if (key == "timeout_s") {
          has_timeout = true;
          int64_t t = Integer(value, f);
          if (t < 1 || t > 3600) Fail(f, "expected seconds from 1 to 3600");
          c.timeout_ms = t * 1000;
        } else {
          return false;
        }
        return true;
      },
      "expected an object {\"file\": PATH} or {\"run\": [ARGV...], \"rc\": N, \"timeout_s\": N}");
  if (has_file == has_run) Fail(field, "expected exactly one of \"file\" or \"run\"");
  if (has_file && (has_rc || has_timeout))
    Fail(field, "\"rc\" and \"timeout_s\" belong to a \"run\" check");
  c.kind = has_file ? DoneCheck::Kind::kFile : DoneCheck::Kind::kRun;
  return c;
}

constexpr char kFields[] =
    "a mission has hangar, id, requester, drone, future, now, constraints, acts, ops, writes, "
    "done_when, network, egress, max_minutes, notify";

// Reads the top-level field K of a mission into M; false when a mission has no such field.
bool ReadField(const std::string& k, element value, Mission* m) {
  if (k == "hangar") {
    if (value.type() != element_type::INT64 || value.get_int64().value_unsafe() != 1)
      Fail(k, "expected 1 (the only mission format version this hangar reads)");
  } else if (k == "id") {
    m->id = String(value, k);
    if (!ValidId(m->id)) Fail(k, std::string("expected ") + kIdGrammar);
  } else if (k == "requester") {
    m->requester = NonEmptyString(value, k);
  } else if (k == "drone") {
    m->drone = NonEmptyString(value, k);
  } else if (k == "future") {
    m->future = String(value, k);
  } else if (k == "now") {
    m->now = String(value, k);
  } else if (k == "constraints") {
    m->constraints = Strings(value, k);
  } else if (k == "acts") {
    m->acts = Strings(value, k);
  } else if (k == "ops") {
    m->ops = Strings(value, k);
  } else if (k == "writes") {
    m->writes = Strings(value, k);
    if (m->writes.size() > kMaxMissionWrites) Fail(k, "more than 64 paths");
    for (size_t i = 0; i < m->writes.size(); i++) {
      const std::string& w = m->writes[i];
      const std::string f = strict::Item(k, i);
      if (w.empty() || w.size() > 4096) Fail(f, "expected a path of 1 to 4096 bytes");
      if (w.find('\0') != std::string::npos) Fail(f, "a path holds no NUL byte");
      if (w[0] == '~' && w.size() > 1 && w[1] != '/')
        Fail(f, "\"~user\" is not looked up; write the absolute path");
      if (w[0] != '/' && w[0] != '~')
        Fail(f, "expected an absolute path, \"~\" or \"~/...\" (the room needs no entry)");
    }
  } else if (k == "done_when") {
    strict::Items(value, k, "expected a list of checks", [&](element c, const std::string& f) {
      m->done_when.push_back(ParseCheck(c, f));
    });
  } else if (k == "network") {
    m->network = String(value, k);
    m->network_given = true;
    if (m->network != "none" && m->network != "egress" && m->network != "host")
      Fail(k, "expected \"none\", \"egress\" or \"host\"");
  } else if (k == "egress") {
    strict::Items(value, k, "expected a list of \"host:port\"",
                  [&](element e, const std::string& f) {
                    Result<Destination> d = ParseDestination(String(e, f));
                    if (!d.ok()) Fail(f, d.status().message());
                    if (std::find(m->egress.begin(), m->egress.end(), *d) != m->egress.end())
                      Fail(f, d->Text() + " given twice");
                    m->egress.push_back(*d);
                  });
    if (m->egress.size() > 64) Fail(k, "at most 64 destinations");
  } else if (k == "max_minutes") {
    m->max_minutes = Number(value, k);
    if (!(m->max_minutes > 0) || m->max_minutes > kMaxMinutes || !std::isfinite(m->max_minutes))
      Fail(k, "expected a number greater than 0 and at most 1440");
    if (m->deadline_ms() < 1)  // a tiny positive number rounds to no deadline at all
      Fail(k, "expected a deadline of at least 1 ms (max_minutes x 60000, rounded)");
  } else if (k == "notify") {
    strict::Members(
        value, k, "notify has only \"dir\"",
        [&](const std::string& nk, const std::string& f, element nv) {
          if (nk != "dir") return false;
          std::string d = NonEmptyString(nv, f);
          if (d[0] != '/') Fail(f, "expected an absolute path");
          m->notify_dir = d;
          return true;
        },
        "expected an object {\"dir\": PATH}");
    if (!m->notify_dir) Fail(k + ".dir", "missing required field");
  } else {
    return false;
  }
  return true;
}

Mission Parse(element root) {
  Mission m;
  std::set<std::string> given;
  strict::Members(
      root, "", kFields,
      [&](const std::string& k, const std::string&, element value) {
        given.insert(k);
        return ReadField(k, value, &m);
      },
      "expected a JSON object");
  for (const char* req : {"hangar", "requester", "drone", "future", "now", "max_minutes"})
    if (!given.count(req)) Fail(req, "missing required field");
  if (given.count("egress") && m.network != "egress")
    Fail("egress", "only a mission whose network is \"egress\" lists destinations");
  return m;
}

}  // namespace

MissionOrError ParseMission(std::string_view bytes) {
  if (bytes.size() > kMaxMissionBytes)
    return ParseError{"", "file larger than 1 MiB (" + std::to_string(bytes.size()) + " bytes)"};
  if (!json::ValidUtf8(bytes)) return ParseError{"", "not valid UTF-8"};
  return strict::ReadDocument<Mission>(bytes, Parse);
}

}  // namespace hangar
