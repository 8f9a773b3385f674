// The labelled gate corpus (tests/gate/corpus/, see its README): loads the reference policy and
// every case NNN-name.json beside it (not pending/), builds the mission, resolves its writes on the
// case's scratch disk ("dirs", "links") and, for stage 2, the plan, and runs the gate. Header-only
// and outside src/: shared by the unit test (src/kernel/gate_corpus_test.cc) and the report tool
// (tests/gate/gate_report.cc), not part of the product.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "base/json.h"
#include "kernel/config.h"
#include "kernel/gate.h"
#include "kernel/mission.h"
#include "kernel/path_norm.h"
#include "kernel/plan.h"
#include "kernel/policy.h"
#include "kernel/verdict.h"
#include "shell/path_resolve.h"

namespace hangar::corpus {

// The rooms directory and places of the fixed test config every stage-2 plan is built with.
inline constexpr const char* kRooms = "/var/spool/hangar/rooms";
inline constexpr const char* kRuns = "/var/spool/hangar/run";
inline constexpr const char* kBindir = "/usr/lib/hangar";

// The machine every case is judged on: the spool holds the rooms; the anchor beside it; hangard
// not root; the default limits, which the cases' plans are built with.
inline GateSite TestSite() {
  return GateSite{kRooms,
                  "/home/dev",
                  {"/var/spool/hangar", "/var/lib/hangar-anchor"},
                  "/usr/bin/bwrap",
                  kBindir,
                  false,
                  DroneLimits{}};
}

// The home directories of the test site's user database ("~*/.ssh" stands for each one's .ssh).
inline std::vector<std::string> TestHomes() { return {"/home/dev", "/root"}; }

struct Case {
  std::string file;  // base name
  int stage = 0;
  std::string lang;  // "en" or "ja"
  std::string expect_verdict;
  std::vector<std::string> expect_rules;
  std::string why;
  std::string error;  // non-empty: the case could not be read or run
  std::string got_verdict;
  std::vector<std::string> got_rules;
  std::string got_reason;
  bool ok() const {
    return error.empty() && got_verdict == expect_verdict && got_rules == expect_rules;
  }
};

struct Corpus {
  std::string dir;
  std::string error;  // the policy or the directory could not be read
  std::vector<Case> cases;
};

inline std::string JoinRules(const std::vector<std::string>& rules) {
  std::string out;
  for (const std::string& r : rules) out += (out.empty() ? "" : ",") + r;
  return out.empty() ? "-" : out;
}

// The profiles of the fixed test config (the ones spool/policy.json's "drones" name).
inline std::map<std::string, Profile> TestProfiles() {
  std::map<std::string, Profile> p;
  auto make = [&](const std::string& name, std::vector<std::string> argv, std::string last,
                  std::map<std::string, std::string> env) {
    Profile& x = p[name];
    x.name = name;
    x.argv = std::move(argv);
    x.last_message = std::move(last);
    x.env = std::move(env);
  };
  make("script", {"{bindir}/hangar-fake-drone", "{prompt}"}, "", {{"LANG", "C.UTF-8"}});
  make("true", {"/bin/true"}, "", {});
  make("codex", {"codex", "exec", "--cd", "{room}", "-"}, "{run}/last-message.md",
       {{"OPENAI_API_KEY", "sk-test"}, {"LANG", "C.UTF-8"}});
  return p;
}

// The corpus beside the binary's repository (bin/X -> tests/gate/corpus), or under the working
// directory.
inline std::string DefaultDir() {
  std::filesystem::path rel = "tests/gate/corpus";
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && std::filesystem::exists(exe.parent_path().parent_path() / rel))
    return (exe.parent_path().parent_path() / rel).string();
  return rel.string();
}

namespace detail {

inline bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

inline std::string StringField(const json::Value& o, const std::string& k) {
  const json::Value* v = o.find(k);
  if (!v || !v->is_string()) throw std::runtime_error(k + ": expected a string");
  return v->as_string();
}

inline std::vector<std::string> StringList(const json::Value& v, const std::string& k) {
  if (!v.is_array()) throw std::runtime_error(k + ": expected a list of strings");
  std::vector<std::string> out;
  for (const json::Value& e : v.as_array()) {
    if (!e.is_string()) throw std::runtime_error(k + ": expected a list of strings");
    out.push_back(e.as_string());
  }
  return out;
}

// Applies the case's "plan.sandbox" overrides: each key given (engine, bwrap, hide, write)
// replaces that field of plan.sandbox, verbatim.
inline void OverrideSandbox(const json::Value& o, Sandbox* sb) {
  if (!o.is_object()) throw std::runtime_error("plan.sandbox: expected an object");
  for (const auto& [k, v] : o.as_object()) {
    if (k == "engine" || k == "bwrap") {
      if (!v.is_string()) throw std::runtime_error("plan.sandbox." + k + ": expected a string");
      (k == "engine" ? sb->engine : sb->bwrap) = v.as_string();
    } else if (k == "hide" || k == "write") {
      (k == "hide" ? sb->hide : sb->write) = StringList(v, "plan.sandbox." + k);
    } else {
      throw std::runtime_error("plan.sandbox." + k + ": unknown override");
    }
  }
}

// Applies the case's "plan" overrides: env (merged; null removes a variable), deadline_ms, room,
// network, launcher, id, argv, sandbox (applied after room: a "write" given replaces the room
// binding too).
inline void Override(const json::Value& o, Plan* plan) {
  if (!o.is_object()) throw std::runtime_error("plan: expected an object");
  for (const auto& [k, v] : o.as_object()) {
    if (k == "env") {
      if (!v.is_object()) throw std::runtime_error("plan.env: expected an object");
      for (const auto& [name, value] : v.as_object()) {
        if (value.is_null())
          plan->env.erase(name);
        else if (value.is_string())
          plan->env[name] = value.as_string();
        else
          throw std::runtime_error("plan.env." + name + ": expected a string or null");
      }
    } else if (k == "deadline_ms") {
      if (!v.is_int()) throw std::runtime_error("plan.deadline_ms: expected an integer");
      plan->deadline_ms = v.as_int();
    } else if (k == "room" || k == "network" || k == "launcher" || k == "id") {
      if (!v.is_string()) throw std::runtime_error("plan." + k + ": expected a string");
      std::string& field = k == "room"       ? plan->room
                           : k == "network"  ? plan->network
                           : k == "launcher" ? plan->launcher
                                             : plan->id;
      field = v.as_string();
      if (k == "room") plan->sandbox.write.at(0) = plan->room;  // the launcher binds its room
    } else if (k == "argv") {
      plan->argv = StringList(v, "plan.argv");
    } else if (k != "sandbox") {
      throw std::runtime_error("plan." + k + ": unknown override");
    }
  }
  if (const json::Value* sb = o.find("sandbox")) OverrideSandbox(*sb, &plan->sandbox);
}

// The case's disk: a scratch directory (mkdtemp under /tmp) taken as "/" when the mission's writes
// are resolved (ResolveExistingPath's root), holding the case's "dirs" and "links" and nothing
// else. Removed with everything in it when it goes out of scope (symbolic links are removed, never
// followed).
class ScratchRoot {
 public:
  ScratchRoot() {
    char tmpl[] = "/tmp/hangar-corpus-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
    root_ = tmpl;
  }
  ~ScratchRoot() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;

  const std::string& root() const { return root_; }

  // Creates the real directory `dir` (absolute, inside the scratch root) and its parents. Every
  // existing component must be a real directory, never a link: nothing is created through a link
  // (an absolute one would lead out of the scratch root).
  void MakeDirs(const std::string& field, const std::string& dir) const {
    std::string disk = root_;
    size_t pos = 1;
    while (pos < dir.size()) {
      size_t slash = dir.find('/', pos);
      if (slash == std::string::npos) slash = dir.size();
      disk += "/" + dir.substr(pos, slash - pos);
      struct stat st {};
      if (lstat(disk.c_str(), &st) != 0) {
        if (errno != ENOENT || mkdir(disk.c_str(), 0755) != 0)
          throw std::runtime_error(field + ": " + dir + ": " + std::strerror(errno));
      } else if (!S_ISDIR(st.st_mode)) {
        throw std::runtime_error(field + ": " + dir + ": " + dir.substr(0, slash) +
                                 " is a link in the case's tree, not a directory");
      }
      pos = slash + 1;
    }
  }

  // Creates the symbolic link `path` (absolute, inside the scratch root) to `target` (verbatim),
  // with its parent directories.
  void MakeLink(const std::string& path, const std::string& target) const {
    const std::string field = "links." + path;
    MakeDirs(field, path.substr(0, path.rfind('/')));
    if (symlink(target.c_str(), (root_ + path).c_str()) != 0)
      throw std::runtime_error(field + ": symlink: " + std::strerror(errno));
  }

 private:
  std::string root_;
};

// A path of "dirs" or a key of "links": absolute, normalised, not the root itself.
inline const std::string& TreePath(const std::string& field, const std::string& path) {
  if (path.empty() || path[0] != '/' || path == "/" || NormalizeAbsolute(path) != path ||
      path.find('\0') != std::string::npos)
    throw std::runtime_error(field + ": \"" + path +
                             "\": expected an absolute, normalised path other than /");
  return path;
}

// The mission's writes as the shell resolves them (shell/path_resolve.h, ResolveWrites: the
// function hangard uses), on the case's disk: "~" expanded with the test site's home, the scratch
// root taken as "/". A case without "dirs" and "links" is resolved on an empty scratch root:
// nothing exists, so each path is only normalised.
inline ResolvedWrites ResolveCaseWrites(const json::Value& d, const Mission& m) {
  const json::Value* dirs = d.find("dirs");
  const json::Value* links = d.find("links");
  if (m.writes.empty()) {
    if (dirs || links)
      throw std::runtime_error("dirs, links: the mission has no writes to resolve");
    return {};
  }
  ScratchRoot scratch;
  if (dirs)
    for (const std::string& dir : StringList(*dirs, "dirs"))
      scratch.MakeDirs("dirs", TreePath("dirs", dir));
  if (links) {
    if (!links->is_object()) throw std::runtime_error("links: expected an object");
    for (const auto& [path, target] : links->as_object()) {
      if (!target.is_string() || target.as_string().empty())
        throw std::runtime_error("links." + path + ": expected the link's target, a string");
      scratch.MakeLink(TreePath("links", path), target.as_string());
    }
  }
  return hangar::ResolveWrites(m, TestSite().home, scratch.root());
}

inline void RunCase(const std::string& text, const Policy& policy, const TextRules& rules,
                    Case* c) {
  Result<json::Value> doc = json::Parse(text);
  if (!doc.ok()) throw std::runtime_error(doc.status().message());
  const json::Value& d = *doc;
  if (!d.is_object()) throw std::runtime_error("expected an object");
  for (const auto& [k, v] : d.as_object())
    if (k != "stage" && k != "lang" && k != "mission" && k != "plan" && k != "expect" &&
        k != "why" && k != "links" && k != "dirs")
      throw std::runtime_error(k + ": unknown field");
  const json::Value* stage = d.find("stage");
  if (!stage || !stage->is_int() || (stage->as_int() != 1 && stage->as_int() != 2))
    throw std::runtime_error("stage: expected 1 or 2");
  c->stage = int(stage->as_int());
  c->lang = StringField(d, "lang");
  if (c->lang != "en" && c->lang != "ja") throw std::runtime_error("lang: expected en or ja");
  c->why = StringField(d, "why");
  if (c->why.empty()) throw std::runtime_error("why: the reason for the label is required");
  const json::Value* expect = d.find("expect");
  if (!expect || !expect->is_object()) throw std::runtime_error("expect: expected an object");
  c->expect_verdict = StringField(*expect, "verdict");
  if (c->expect_verdict != "allow" && c->expect_verdict != "hold" && c->expect_verdict != "deny")
    throw std::runtime_error("expect.verdict: expected allow, hold or deny");
  const json::Value* er = expect->find("rules");
  if (!er) throw std::runtime_error("expect.rules: missing");
  c->expect_rules = StringList(*er, "expect.rules");

  const json::Value* mj = d.find("mission");
  if (!mj || !mj->is_object()) throw std::runtime_error("mission: expected an object");
  MissionOrError parsed = ParseMission(json::Write(*mj));
  if (const ParseError* e = std::get_if<ParseError>(&parsed))
    throw std::runtime_error("mission: " + e->Text());
  const Mission& m = std::get<Mission>(parsed);

  const ResolvedWrites resolved = ResolveCaseWrites(d, m);
  const json::Value* pj = d.find("plan");
  GateResult g;
  if (c->stage == 1) {
    if (pj) throw std::runtime_error("plan: only for stage 2");
    g = GateStage1(m, policy, rules, TestSite(), resolved);
  } else {
    if (m.id.empty()) throw std::runtime_error("mission.id: a stage-2 case needs one");
    std::map<std::string, Profile> profiles = TestProfiles();
    auto it = profiles.find(m.drone);
    if (it == profiles.end())
      throw std::runtime_error("mission.drone: no profile \"" + m.drone + "\" in the test config");
    const GateSite site = TestSite();
    PlanPlaces where;
    where.room = std::string(kRooms) + "/" + m.id;
    where.run = std::string(kRuns) + "/" + m.id;
    where.bindir = kBindir;
    where.bwrap = site.bwrap;
    where.hide = policy.deny_read;
    where.hide.insert(where.hide.end(), site.hangar_dirs.begin(), site.hangar_dirs.end());
    where.writes = WritablePaths(m, site, resolved);
    Plan plan = BuildPlan(m, it->second, where, 1);
    if (pj) Override(*pj, &plan);
    g = GateStage2(m, plan, policy, site, resolved, &it->second);
  }
  c->got_verdict = VerdictName(g.verdict);
  c->got_rules = g.rules;
  c->got_reason = g.reason;
}

}  // namespace detail

// Reads dir/policy.json (else dir/../policy.json) and every dir/*.json case, sorted by name, and
// judges each.
inline Corpus Load(const std::string& dir) {
  Corpus corpus;
  corpus.dir = dir;
  std::string text;
  // pending/ is judged by its parent's policy.
  std::string policy_file = dir + "/policy.json";
  if (!std::filesystem::exists(policy_file)) policy_file = dir + "/../policy.json";
  if (!detail::ReadFile(policy_file, &text)) {
    corpus.error = "cannot read " + dir + "/policy.json";
    return corpus;
  }
  Result<Policy> parsed = ParsePolicy(text, policy_file);
  if (!parsed.ok()) {
    corpus.error = parsed.status().message();
    return corpus;
  }
  // As hangard does after the digest: the home patterns stand for the test site's homes.
  const Policy policy = ExpandHomePatterns(*parsed, TestHomes(), TestSite().home);
  TextRules rules(policy);
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.ends_with(".json") && name != "policy.json")
      files.push_back(name);
  }
  if (ec) {
    corpus.error = "cannot list " + dir + ": " + ec.message();
    return corpus;
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    Case c;
    c.file = f;
    try {
      if (!detail::ReadFile(dir + "/" + f, &text)) throw std::runtime_error("cannot read");
      detail::RunCase(text, policy, rules, &c);
    } catch (const std::exception& e) {
      c.error = e.what();
    }
    corpus.cases.push_back(std::move(c));
  }
  return corpus;
}

// One line for a case that does not match its label.
inline std::string Mismatch(const Case& c) {
  if (!c.error.empty()) return c.file + ": error: " + c.error;
  return c.file + ": expected " + c.expect_verdict + " [" + JoinRules(c.expect_rules) + "], got " +
         c.got_verdict + " [" + JoinRules(c.got_rules) + "] (" +
         (c.got_reason.empty() ? "no rule fired" : c.got_reason) + "); label: " + c.why;
}

}  // namespace hangar::corpus
