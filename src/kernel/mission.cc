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
  } else if (kind == Kind::kChanged) {
    json::Object c;
    if (max_files >= 0) c["max_files"] = max_files;
    if (!paths.empty()) c["paths"] = json::Array(paths.begin(), paths.end());
    o["changed"] = std::move(c);
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

// {"max_files": N, "paths": [GLOB...]}: at least one of the two.
void ParseChanged(element e, const std::string& field, DoneCheck* c) {
  strict::Members(
      e, field, "a changed check has \"max_files\" and \"paths\"",
      [&](const std::string& key, const std::string& f, element value) {
        if (key == "max_files") {
          c->max_files = Integer(value, f);
          if (c->max_files < 0 || c->max_files > 1000000)
            Fail(f, "expected a number of files from 0 to 1000000");
        } else if (key == "paths") {
          c->paths = Strings(value, f);
          if (c->paths.size() > 256) Fail(f, "more than 256 globs");
          for (size_t i = 0; i < c->paths.size(); i++)
            if (c->paths[i].empty() || c->paths[i].size() > 4096 ||
                c->paths[i].find('\0') != std::string::npos)
              Fail(strict::Item(f, i), "expected a glob of 1 to 4096 bytes, no NUL");
        } else {
          return false;
        }
        return true;
      },
      "expected an object {\"max_files\": N, \"paths\": [GLOB...]}");
  if (c->max_files < 0 && c->paths.empty())
    Fail(field, "expected \"max_files\", \"paths\" or both");
}

DoneCheck ParseCheck(element e, const std::string& field) {
  DoneCheck c;
  bool has_file = false, has_run = false, has_rc = false, has_timeout = false;
  bool has_changed = false;
  strict::Members(
      e, field, "a check has \"file\", \"changed\", or \"run\" with \"rc\" and \"timeout_s\"",
      [&](const std::string& key, const std::string& f, element value) {
        if (key == "changed") {
          has_changed = true;
          ParseChanged(value, f, &c);
        } else if (key == "file") {
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
      "expected an object {\"file\": PATH}, {\"changed\": {...}} or {\"run\": [ARGV...], \"rc\": "
      "N, "
      "\"timeout_s\": N}");
  if (int(has_file) + int(has_run) + int(has_changed) != 1)
    Fail(field, "expected exactly one of \"file\", \"run\" or \"changed\"");
  if (!has_run && (has_rc || has_timeout))
    Fail(field, "\"rc\" and \"timeout_s\" belong to a \"run\" check");
  c.kind = has_file  ? DoneCheck::Kind::kFile
           : has_run ? DoneCheck::Kind::kRun
                     : DoneCheck::Kind::kChanged;
  return c;
}

// {"git": PATH, "ref": REF}: the path as "writes" spells one (absolute only), the ref as git
// reads a revision, but never an option.
Workspace ParseWorkspace(element e, const std::string& field) {
  Workspace w;
  bool has_git = false;
  strict::Members(
      e, field, "a workspace has \"git\" and \"ref\"",
      [&](const std::string& key, const std::string& f, element value) {
        if (key == "git") {
          has_git = true;
          w.git = NonEmptyString(value, f);
          if (w.git.size() > 4096 || w.git.find('\0') != std::string::npos)
            Fail(f, "expected a path of 1 to 4096 bytes, no NUL");
          if (w.git[0] != '/') Fail(f, "expected an absolute path");
        } else if (key == "ref") {
          w.ref = NonEmptyString(value, f);
          if (w.ref.size() > 256) Fail(f, "expected a ref of at most 256 bytes");
          if (w.ref[0] == '-') Fail(f, "a ref does not start with '-'");
          for (unsigned char ch : w.ref)
            if (ch < 0x20 || ch == 0x7f || ch == ' ')
              Fail(f, "a ref holds no space or control character");
        } else {
          return false;
        }
        return true;
      },
      "expected an object {\"git\": PATH, \"ref\": REF}");
  if (!has_git) Fail(field + ".git", "missing required field");
  return w;
}

constexpr char kFields[] =
    "a mission has hangar, id, requester, drone, future, now, constraints, acts, ops, writes, "
    "done_when, network, egress, max_minutes, notify, workspace";

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
  } else if (k == "workspace") {
    m->workspace = ParseWorkspace(value, k);
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
  for (size_t i = 0; i < m.done_when.size(); i++)
    if (m.done_when[i].kind == DoneCheck::Kind::kChanged && !m.workspace)
      Fail(strict::Item("done_when", i),
           "a \"changed\" check judges a workspace's change; this mission has no workspace");
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
