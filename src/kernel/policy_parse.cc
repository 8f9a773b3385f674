// ParsePolicy (kernel/policy.h): the strict reader of policy files, on base/strict_json.h. Every
// check throws a strict::Failure that ParsePolicy turns into "FILE: FIELD: reason"; nothing is
// returned until the whole document has been read, so a bad policy never loads half-way.
#include <algorithm>

#include "base/strict_json.h"
#include "kernel/control.h"
#include "kernel/path_norm.h"
#include "kernel/policy.h"

namespace hangar {

using simdjson::dom::element;
using simdjson::dom::element_type;

namespace {

using strict::Fail;

std::string Quote(std::string_view s) {
  std::string out;
  json::AppendQuoted(&out, s);
  return out;
}

bool Lower(char c) {
  return c >= 'a' && c <= 'z';
}
bool Digit(char c) {
  return c >= '0' && c <= '9';
}
bool Letter(char c) {
  return Lower(c) || (c >= 'A' && c <= 'Z');
}

bool ValidVerb(std::string_view v) {
  if (v.empty() || v.size() > 64) return false;
  for (char c : v)
    if (!Lower(c)) return false;
  return true;
}

bool ValidRuleId(std::string_view id) {
  if (id.empty() || id.size() > 64 || !(Lower(id[0]) || Digit(id[0]))) return false;
  for (char c : id)
    if (!(Lower(c) || Digit(c) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

bool ValidEnvName(std::string_view n) {
  if (n.empty() || n.size() > 128 || Digit(n[0])) return false;
  for (char c : n)
    if (!(Letter(c) || Digit(c) || c == '_')) return false;
  return true;
}

// Japanese verbs: no ASCII control byte, no space (ASCII or U+3000), at most 64 bytes.
bool ValidJaVerb(std::string_view v) {
  if (v.empty() || v.size() > 64 || v.find("\xE3\x80\x80") != std::string_view::npos) return false;
  for (unsigned char c : v)
    if (c <= 0x20 || c == 0x7f) return false;
  return true;
}

// Calls fn(string, field) for each string of the list e.
template <typename Fn>
void Strings(element e, const std::string& f, Fn fn) {
  strict::Items(e, f, "expected a list of strings",
                [&](element x, const std::string& xf) { fn(strict::String(x, xf), xf); });
}

// A list of unique names, each checked by valid(); the reason says what was expected.
template <typename Valid>
std::vector<std::string> Names(element e, const std::string& f, Valid valid,
                               const std::string& expected) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  Strings(e, f, [&](std::string s, const std::string& sf) {
    if (!valid(s)) Fail(sf, expected);
    if (!seen.insert(s).second) Fail(sf, Quote(s) + " given twice");
    out.push_back(std::move(s));
  });
  return out;
}

// The lists of a section ("acts", "ops", "network"): each name in at most one list.
template <typename V>
void SortInto(std::map<std::string, V>* into, std::map<std::string, std::string>* where,
              const std::vector<std::string>& names, V v, const std::string& list,
              const std::string& noun) {
  for (size_t i = 0; i < names.size(); ++i) {
    auto [it, fresh] = where->emplace(names[i], list);
    if (!fresh)
      Fail(strict::Item(list, i),
           Quote(names[i]) + " is in " + it->second + " already (" + noun + " goes in one list)");
    (*into)[names[i]] = v;
  }
}

void ParseActs(element e, Policy* p) {
  p->acts.clear();
  std::map<std::string, std::string> where;
  const std::string expected = "expected a verb of lower-case letters";
  strict::Members(e, "acts", "acts has deny, hold, allow, unknown",
                  [&](const std::string& k, const std::string& f, element v) {
                    if (k == "deny" || k == "hold" || k == "allow") {
                      Verdict verdict = k == "deny"   ? Verdict::kDeny
                                        : k == "hold" ? Verdict::kHold
                                                      : Verdict::kAllow;
                      SortInto(&p->acts, &where, Names(v, f, ValidVerb, expected), verdict, f,
                               "a verb");
                    } else if (k == "unknown") {
                      std::string s = strict::String(v, f);
                      if (s == "hold")
                        p->acts_unknown = Verdict::kHold;
                      else if (s == "deny")
                        p->acts_unknown = Verdict::kDeny;
                      else if (s == "allow")
                        p->acts_unknown = Verdict::kAllow;
                      else
                        Fail(f, "expected \"hold\", \"deny\" or \"allow\"");
                    } else {
                      return false;
                    }
                    return true;
                  });
}

void ParseEgress(element e, Policy* p) {
  p->egress_deny.clear();
  p->egress_hold.clear();
  std::set<std::string> seen;
  strict::Members(e, "egress", "egress has deny, hold",
                  [&](const std::string& k, const std::string& f, element v) {
                    if (k != "deny" && k != "hold") return false;
                    std::vector<std::string>& out = k == "deny" ? p->egress_deny : p->egress_hold;
                    Strings(v, f, [&](std::string s, const std::string& sf) {
                      if (Status c = CheckEgressPattern(s); !c.ok()) Fail(sf, c.message());
                      if (!seen.insert(s).second) Fail(sf, Quote(s) + " given twice");
                      out.push_back(std::move(s));
                    });
                    std::sort(out.begin(), out.end());
                    return true;
                  });
}

void ParseNetwork(element e, Policy* p) {
  p->network.clear();
  std::map<std::string, std::string> where;
  auto mode = [](const std::string& m) { return m == "none" || m == "egress" || m == "host"; };
  strict::Members(
      e, "network", "network has allow, hold",
      [&](const std::string& k, const std::string& f, element v) {
        if (k != "allow" && k != "hold") return false;
        SortInto(&p->network, &where,
                 Names(v, f, mode, "expected a network mode, \"none\", \"egress\" or \"host\""),
                 k == "allow" ? Verdict::kAllow : Verdict::kHold, f, "a mode");
        return true;
      });
}

void ParseOps(element e, Policy* p) {
  p->ops.clear();
  std::map<std::string, std::string> where;
  const std::string expected = "expected an op name ([a-z][a-z0-9._-]*, at most 64 bytes)";
  strict::Members(e, "ops", "ops has allow, deny, grant, unknown",
                  [&](const std::string& k, const std::string& f, element v) {
                    if (k == "allow" || k == "deny" || k == "grant") {
                      OpAccess a = k == "allow"  ? OpAccess::kAllow
                                   : k == "deny" ? OpAccess::kDeny
                                                 : OpAccess::kGrant;
                      SortInto(&p->ops, &where, Names(v, f, ValidOpName, expected), a, f, "an op");
                    } else if (k == "unknown") {
                      std::string s = strict::String(v, f);
                      if (s == "deny")
                        p->ops_unknown = OpAccess::kDeny;
                      else if (s == "grant")
                        p->ops_unknown = OpAccess::kGrant;
                      else if (s == "allow")
                        p->ops_unknown = OpAccess::kAllow;
                      else
                        Fail(f, "expected \"deny\", \"grant\" or \"allow\"");
                    } else {
                      return false;
                    }
                    return true;
                  });
}

// Absolute paths, stored normalised and sorted; two that normalise alike are a duplicate.
// homes: home patterns are accepted too (protected_paths, deny_read): "~*/REL" (REL in every home
// directory) and "~/REL" (in hangard's home), REL a relative path without "." or ".." parts,
// kept as "~*/" or "~/" and REL normalised.
std::vector<std::string> Paths(element e, const std::string& f, bool homes = false) {
  std::map<std::string, std::string> seen;  // normalised -> as written
  Strings(e, f, [&](const std::string& s, const std::string& sf) {
    if (s.empty()) Fail(sf, "expected an absolute path, not an empty string");
    if (s.find('\0') != std::string::npos) Fail(sf, "a path may not hold a NUL byte");
    if (s.size() > 4096) Fail(sf, "expected a path of at most 4096 bytes");
    std::string n;
    if (homes && (s.starts_with("~*/") || s.starts_with("~/"))) {
      const std::string head = s.substr(0, s.find('/') + 1), rel = s.substr(head.size());
      n = NormalizeAbsolute("/" + rel);
      if (n == "/" || ("/" + rel + "/").find("/../") != std::string::npos ||
          ("/" + rel + "/").find("/./") != std::string::npos)
        Fail(sf, "expected a path inside the home after " + Quote(head) + ", such as " +
                     Quote(head + ".ssh") + ", not " + Quote(s));
      n = head + n.substr(1);
    } else if (s[0] == '~') {
      Fail(sf, homes ? "expected an absolute path or a home pattern (\"~*/REL\": every home; "
                       "\"~/REL\": hangard's), not " +
                           Quote(s)
                     : "expected an absolute path (\"~\" is not expanded here)");
    } else if (s[0] != '/') {
      Fail(sf, "expected an absolute path (starting with \"/\"), not " + Quote(s));
    } else {
      n = NormalizeAbsolute(s);
    }
    auto [it, fresh] = seen.emplace(n, s);
    if (!fresh)
      Fail(sf, it->second == s
                   ? Quote(s) + " given twice"
                   : Quote(s) + " is " + Quote(n) + ", given already as " + Quote(it->second));
  });
  std::vector<std::string> out;
  for (const auto& [n, s] : seen) out.push_back(n);
  return out;
}

std::vector<std::string> EnvGlobs(element e, const std::string& f) {
  std::set<std::string> seen;
  Strings(e, f, [&](const std::string& s, const std::string& sf) {
    if (s.empty() || s.size() > 128)
      Fail(sf, "expected a glob of 1 to 128 bytes, such as \"*_TOKEN\"");
    for (char c : s)
      if (!(Letter(c) || Digit(c) || c == '_' || c == '*'))
        Fail(sf, "expected a glob of letters, digits, '_' and '*' (the only wildcard), not " +
                     Quote(s));
    if (Digit(s[0])) Fail(sf, "a variable name does not start with a digit: " + Quote(s));
    if (s.find("**") != std::string::npos) Fail(sf, "write one '*' for any run, not \"**\"");
    if (!seen.insert(s).second) Fail(sf, Quote(s) + " given twice");
  });
  return {seen.begin(), seen.end()};
}

// Returns the lists as written, for the checks made once env_deny and drones are known.
std::map<std::string, std::vector<std::string>> ParseEnvAllow(element e, Policy* p) {
  p->env_allow.clear();
  std::map<std::string, std::vector<std::string>> written;
  if (e.type() != element_type::OBJECT) Fail("env_allow", "expected an object of profiles");
  strict::Members(e, "env_allow", "", [&](const std::string& k, const std::string& f, element v) {
    if (k.empty()) Fail(f, "expected a profile name, not an empty string");
    std::vector<std::string> names =
        Names(v, f, ValidEnvName, "expected a variable name ([A-Za-z_][A-Za-z0-9_]*)");
    if (names.empty()) Fail(f, "expected a non-empty list of variable names");
    p->env_allow[k] = std::set<std::string>(names.begin(), names.end());
    written[k] = std::move(names);
    return true;
  });
  return written;
}

TextRule ParseTextRule(element e, const std::string& f) {
  if (e.type() != element_type::OBJECT)
    Fail(f, "expected an object {\"id\", \"verbs\", \"verdict\": \"hold\", \"why\"}");
  TextRule r;
  bool has_id = false, has_verbs = false, has_why = false;
  strict::Members(
      e, f, "a text rule has id, verbs, verdict, why",
      [&](const std::string& k, const std::string& kf, element v) {
        if (k == "id") {
          r.id = strict::String(v, kf);
          if (!ValidRuleId(r.id))
            Fail(kf, "expected a rule id ([a-z0-9][a-z0-9._-]*, at most 64 bytes)");
          has_id = true;
        } else if (k == "verbs") {
          has_verbs = true;
          strict::Members(v, kf, "verbs has en, ja",
                          [&](const std::string& lang, const std::string& lf, element list) {
                            std::vector<std::string> verbs;
                            if (lang == "en")
                              verbs = Names(list, lf, ValidVerb,
                                            "expected an English verb of lower-case letters");
                            else if (lang == "ja")
                              verbs = Names(list, lf, ValidJaVerb,
                                            "expected a Japanese verb: 1 to 64 bytes, no spaces");
                            else
                              return false;
                            if (verbs.empty()) Fail(lf, "expected a non-empty list of verbs");
                            std::sort(verbs.begin(), verbs.end());
                            r.verbs[lang] = std::move(verbs);
                            return true;
                          });
          if (r.verbs.empty()) Fail(kf, "expected verbs in \"en\", \"ja\" or both");
        } else if (k == "verdict") {
          if (v.type() != element_type::STRING) Fail(kf, "expected \"hold\"");
          std::string s = strict::String(v, kf);
          if (s != "hold")
            Fail(kf, "a text rule can only raise a verdict to hold: " + Quote(s) +
                         " is refused (deny an act by its verb in acts.deny)");
        } else if (k == "why") {
          r.why = strict::String(v, kf);
          if (r.why.empty() || r.why.size() > 1000)
            Fail(kf, "expected a reason of 1 to 1000 bytes, for the person who decides");
          has_why = true;
        } else {
          return false;
        }
        return true;
      });
  if (!has_id) Fail(f + ".id", "missing required field");
  if (!has_verbs) Fail(f + ".verbs", "missing required field");
  if (!has_why) Fail(f + ".why", "missing required field");
  return r;
}

void ParseTextRules(element e, Policy* p) {
  p->text_rules.clear();
  if (e.type() != element_type::ARRAY) Fail("text_rules", "expected a list of text rules");
  std::map<std::string, std::string> seen;  // id -> where
  size_t i = 0;
  for (element x : AsArray(e)) {
    const std::string f = strict::Item("text_rules", i++);
    TextRule r = ParseTextRule(x, f);
    auto [it, fresh] = seen.emplace(r.id, f);
    if (!fresh) Fail(f + ".id", Quote(r.id) + " given twice (" + it->second + ")");
    p->text_rules.push_back(std::move(r));
  }
  std::sort(p->text_rules.begin(), p->text_rules.end(),
            [](const TextRule& a, const TextRule& b) { return a.id < b.id; });
}

double MaxMinutes(element e) {
  const double v = strict::Number(e, "max_minutes");
  if (!(v > 0 && v <= kPolicyMaxMinutes))
    Fail("max_minutes", "expected minutes greater than 0 and at most 1440");
  return v;
}

const char* const kFields =
    "a policy has hangar_policy, acts, drones, check_programs, max_minutes, network, egress, ops, "
    "protected_paths, deny_read, notify_dirs, env_deny, env_hold, env_allow, text_rules";

Policy Parse(element root) {
  if (root.type() != element_type::OBJECT) Fail("", "expected a JSON object");
  // The version first, so that a newer file is refused for its version, not its new fields.
  element version;
  bool has_version = false;
  for (auto [key, v] : AsObject(root))
    if (key == "hangar_policy") {
      version = v;
      has_version = true;
    }
  if (!has_version) Fail("hangar_policy", "missing required field");
  if (version.type() != element_type::INT64 || version.get_int64().value_unsafe() != kPolicyVersion)
    Fail("hangar_policy", "expected 1 (the only policy format version this hangar reads)");

  Policy p = DefaultPolicy();
  std::map<std::string, std::vector<std::string>> env_allow;
  strict::Members(root, "", kFields, [&](const std::string& k, const std::string& f, element v) {
    if (k == "hangar_policy") {
    } else if (k == "acts") {
      ParseActs(v, &p);
    } else if (k == "drones") {
      std::vector<std::string> d = Names(
          v, f, [](const std::string& s) { return !s.empty(); }, "expected a profile name");
      p.drones = std::set<std::string>(d.begin(), d.end());
    } else if (k == "check_programs") {
      std::vector<std::string> c = Names(
          v, f,
          [](const std::string& s) {
            return !s.empty() && s.find_first_of(std::string("\0\n", 2)) == std::string::npos;
          },
          "expected a program name or path");
      p.check_programs = std::set<std::string>(c.begin(), c.end());
    } else if (k == "max_minutes") {
      p.max_minutes = MaxMinutes(v);
    } else if (k == "network") {
      ParseNetwork(v, &p);
    } else if (k == "egress") {
      ParseEgress(v, &p);
    } else if (k == "ops") {
      ParseOps(v, &p);
    } else if (k == "protected_paths") {
      p.protected_paths = Paths(v, f, /*homes=*/true);
    } else if (k == "deny_read") {
      p.deny_read = Paths(v, f, /*homes=*/true);
    } else if (k == "notify_dirs") {
      p.notify_dirs = Paths(v, f);
    } else if (k == "env_deny") {
      p.env_deny = EnvGlobs(v, f);
    } else if (k == "env_hold") {
      p.env_hold = EnvGlobs(v, f);
    } else if (k == "env_allow") {
      env_allow = ParseEnvAllow(v, &p);
    } else if (k == "text_rules") {
      ParseTextRules(v, &p);
    } else {
      return false;
    }
    return true;
  });
  // Checks across sections, once every section is known.
  for (size_t i = 0; i < p.env_hold.size(); ++i)
    if (std::binary_search(p.env_deny.begin(), p.env_deny.end(), p.env_hold[i]))
      Fail("env_hold", Quote(p.env_hold[i]) + " is also in env_deny");
  for (const auto& [profile, names] : env_allow) {
    const std::string f = "env_allow." + profile;
    if (p.drones && !p.drones->count(profile))
      Fail(f, "profile " + Quote(profile) + " is not in drones");
    for (size_t i = 0; i < names.size(); ++i) {
      bool denied = false;
      for (const std::string& g : p.env_deny) denied = denied || EnvGlobMatch(g, names[i]);
      for (const std::string& g : p.env_hold) denied = denied || EnvGlobMatch(g, names[i]);
      if (!denied)
        Fail(strict::Item(f, i),
             Quote(names[i]) + " matches no env_deny or env_hold glob: there is nothing to allow");
    }
  }
  return p;
}

}  // namespace

Result<Policy> ParsePolicy(std::string_view text, const std::string& file) {
  if (text.size() > kMaxPolicyBytes)
    return Status::Invalid(file + ": larger than 1 MiB (" + std::to_string(text.size()) +
                           " bytes)");
  auto p = strict::ReadDocument<Policy>(text, Parse);
  if (const ParseError* e = std::get_if<ParseError>(&p))
    return Status::Invalid(file + ": " + e->Text());
  return std::move(std::get<Policy>(p));
}

}  // namespace hangar
