// The strict reader: every error names the file, the field and the reason.
#include <gtest/gtest.h>

#include "kernel/policy.h"

namespace hangar {
namespace {

std::string Err(const std::string& text) {
  Result<Policy> p = ParsePolicy(text, "p.json");
  return p.ok() ? "(parsed)" : p.status().message();
}

// A version line plus one section.
std::string With(const std::string& section) {
  return R"({"hangar_policy": 1, )" + section + "}";
}

TEST(PolicyErrors, WholeDocument) {
  EXPECT_EQ(Err("[]"), "p.json: expected a JSON object");
  EXPECT_EQ(Err("{"),
            "p.json: not valid JSON: The JSON document has an improper structure: missing or "
            "superfluous commas, braces, missing keys, etc.");
  EXPECT_EQ(Err("{}"), "p.json: hangar_policy: missing required field");
  EXPECT_EQ(Err(R"({"hangar_policy": 2, "future": true})"),
            "p.json: hangar_policy: expected 1 (the only policy format version this hangar reads)");
  EXPECT_EQ(Err(R"({"hangar_policy": "1"})"),
            "p.json: hangar_policy: expected 1 (the only policy format version this hangar reads)");
  EXPECT_EQ(Err(With(R"("hangar_policy": 1)")), "p.json: hangar_policy: field given twice");
  EXPECT_EQ(Err(With(R"("act": {})")),
            "p.json: act: unknown field (a policy has hangar_policy, acts, drones, check_programs, "
            "max_minutes, network, egress, ops, protected_paths, deny_read, notify_dirs, env_deny, "
            "env_hold, "
            "env_allow, text_rules)");
  EXPECT_EQ(Err(With(R"("check_programs": ["make", ""])")),
            "p.json: check_programs[1]: expected a program name or path");
  EXPECT_EQ(Err(With(R"("check_programs": ["make", "make"])")),
            "p.json: check_programs[1]: \"make\" given twice");
  EXPECT_EQ(Err(std::string(kMaxPolicyBytes + 1, ' ')),
            "p.json: larger than 1 MiB (1048577 bytes)");
  EXPECT_EQ(Err("{\"hangar_policy\":1,\"drones\":[\"\xff\"]}").substr(0, 25),
            "p.json: not valid JSON: T");  // not UTF-8
}

TEST(PolicyErrors, Acts) {
  EXPECT_EQ(Err(With(R"("acts": {"deny": ["post"], "hold": ["send", "buy", "Pay"]})")),
            "p.json: acts.hold[2]: expected a verb of lower-case letters");
  EXPECT_EQ(Err(With(R"("acts": {"deny": ["post"], "hold": ["send", "post"]})")),
            "p.json: acts.hold[1]: \"post\" is in acts.deny already (a verb goes in one list)");
  EXPECT_EQ(Err(With(R"("acts": {"allow": ["read"], "deny": ["read"]})")),
            "p.json: acts.deny[0]: \"read\" is in acts.allow already (a verb goes in one list)");
  EXPECT_EQ(Err(With(R"("acts": {"deny": ["post", "post"]})")),
            "p.json: acts.deny[1]: \"post\" given twice");
  EXPECT_EQ(Err(With(R"("acts": {"deny": "post"})")),
            "p.json: acts.deny: expected a list of strings");
  EXPECT_EQ(Err(With(R"("acts": {"deny": [1]})")), "p.json: acts.deny[0]: expected a string");
  EXPECT_EQ(Err(With(R"("acts": {"deny": [""]})")),
            "p.json: acts.deny[0]: expected a verb of lower-case letters");
  EXPECT_EQ(Err(With(R"("acts": {"deny": ["send mail"]})")),
            "p.json: acts.deny[0]: expected a verb of lower-case letters");
  EXPECT_EQ(Err(With(R"("acts": {"unknown": "ask"})")),
            "p.json: acts.unknown: expected \"hold\", \"deny\" or \"allow\"");
  EXPECT_EQ(Err(With(R"("acts": {"maybe": []})")),
            "p.json: acts.maybe: unknown field (acts has deny, hold, allow, unknown)");
  EXPECT_EQ(Err(With(R"("acts": {"deny": [], "deny": []})")),
            "p.json: acts.deny: field given twice");
  EXPECT_EQ(Err(With(R"("acts": ["post"])")), "p.json: acts: expected an object");
}

TEST(PolicyErrors, DronesMinutesNetwork) {
  EXPECT_EQ(Err(With(R"("drones": ["codex", "codex"])")),
            "p.json: drones[1]: \"codex\" given twice");
  EXPECT_EQ(Err(With(R"("drones": [""])")), "p.json: drones[0]: expected a profile name");
  EXPECT_EQ(Err(With(R"("max_minutes": 0)")),
            "p.json: max_minutes: expected minutes greater than 0 and at most 1440");
  EXPECT_EQ(Err(With(R"("max_minutes": 1440.5)")),
            "p.json: max_minutes: expected minutes greater than 0 and at most 1440");
  EXPECT_EQ(Err(With(R"("max_minutes": -3)")),
            "p.json: max_minutes: expected minutes greater than 0 and at most 1440");
  EXPECT_EQ(Err(With(R"("max_minutes": "60")")), "p.json: max_minutes: expected a number");
  EXPECT_EQ(Err(With(R"("max_minutes": 1440)")), "(parsed)");
  EXPECT_EQ(Err(With(R"("network": {"allow": ["none", "bridge"]})")),
            "p.json: network.allow[1]: expected a network mode, \"none\", \"egress\" or \"host\"");
  EXPECT_EQ(Err(With(R"("network": {"allow": ["host"], "hold": ["host"]})")),
            "p.json: network.hold[0]: \"host\" is in network.allow already (a mode goes in one "
            "list)");
  EXPECT_EQ(Err(With(R"("network": {"deny": ["host"]})")),
            "p.json: network.deny: unknown field (network has allow, hold)");
}

TEST(PolicyErrors, Ops) {
  EXPECT_EQ(Err(With(R"("ops": {"allow": ["git.push"], "grant": ["git.push"]})")),
            "p.json: ops.grant[0]: \"git.push\" is in ops.allow already (an op goes in one list)");
  EXPECT_EQ(Err(With(R"("ops": {"deny": ["Git.push"]})")),
            "p.json: ops.deny[0]: expected an op name ([a-z][a-z0-9._-]*, at most 64 bytes)");
  EXPECT_EQ(Err(With(R"("ops": {"deny": ["9p"]})")),
            "p.json: ops.deny[0]: expected an op name ([a-z][a-z0-9._-]*, at most 64 bytes)");
  EXPECT_EQ(Err(With(R"("ops": {"unknown": "hold"})")),
            "p.json: ops.unknown: expected \"deny\", \"grant\" or \"allow\"");
  EXPECT_EQ(Err(With(R"("ops": {"grant": ["a.b"], "unknown": "grant"})")), "(parsed)");
}

// Home patterns (protected_paths and deny_read only): "~*/REL" every home, "~/REL" hangard's.
TEST(PolicyErrors, HomePatternsNameAPathInsideTheHome) {
  Result<Policy> p = ParsePolicy(
      R"({"hangar_policy": 1, "deny_read": ["/root", "~*/.ssh/", "~/.codex", "~*/.config//gh"]})",
      "p.json");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->deny_read,
            (std::vector<std::string>{"/root", "~*/.config/gh", "~*/.ssh", "~/.codex"}));
  for (const char* bad : {"~*/", "~/..", "~*/a/../../etc", "~*/./x", "~user/.ssh", "~*"})
    EXPECT_NE(Err(With(std::string(R"("protected_paths": [")") + bad + "\"]")), "(parsed)") << bad;
  EXPECT_EQ(Err(With(R"("deny_read": ["~*/a/../../etc"])")),
            "p.json: deny_read[0]: expected a path inside the home after \"~*/\", such as "
            "\"~*/.ssh\", not \"~*/a/../../etc\"");
}

TEST(Policy, HomePatternsExpandToEveryHomeAndNameThemselvesInReasons) {
  Result<Policy> p =
      ParsePolicy(R"({"hangar_policy": 1, "deny_read": ["~*/.aws", "~/.codex"]})", "p.json");
  ASSERT_TRUE(p.ok());
  Policy e = ExpandHomePatterns(*p, {"/home/a", "/srv/b/"}, "/var/lib/hangar");
  EXPECT_EQ(e.deny_read,
            (std::vector<std::string>{"/home/a/.aws", "/srv/b/.aws", "/var/lib/hangar/.codex",
                                      "~*/.aws", "~/.codex"}));
  EXPECT_EQ(e.from_pattern.at("/srv/b/.aws"), "~*/.aws");
  EXPECT_EQ(PolicyDigest(e), PolicyDigest(*p)) << "the digest is the file's, whatever the homes";
}

TEST(Policy, AHomePatternAddsNothingInsideAPathTheListNames) {
  Result<Policy> p = ParsePolicy(
      R"({"hangar_policy": 1, "deny_read": ["/root", "~*/.ssh"], "protected_paths": ["~*/.ssh"]})",
      "p.json");
  ASSERT_TRUE(p.ok());
  Policy e = ExpandHomePatterns(*p, {"/root", "/home/a"}, "/root");
  EXPECT_EQ(e.deny_read, (std::vector<std::string>{"/home/a/.ssh", "/root", "~*/.ssh"}));
  EXPECT_EQ(e.protected_paths,
            (std::vector<std::string>{"/home/a/.ssh", "/root/.ssh", "~*/.ssh"}));
}

TEST(PolicyErrors, PathsMustBeAbsoluteAndAreNormalised) {
  EXPECT_EQ(Err(With(R"("protected_paths": ["/etc", "srv/prod"])")),
            "p.json: protected_paths[1]: expected an absolute path (starting with \"/\"), not "
            "\"srv/prod\"");
  EXPECT_EQ(Err(With(R"("notify_dirs": ["~/inbox"])")),
            "p.json: notify_dirs[0]: expected an absolute path (\"~\" is not expanded here)");
  EXPECT_EQ(Err(With(R"("deny_read": [""])")),
            "p.json: deny_read[0]: expected an absolute path, not an empty string");
  EXPECT_EQ(Err(With(R"("deny_read": ["./x"])")),
            "p.json: deny_read[0]: expected an absolute path (starting with \"/\"), not \"./x\"");
  EXPECT_EQ(Err(With(R"("protected_paths": ["/etc", "//etc/"])")),
            "p.json: protected_paths[1]: \"//etc/\" is \"/etc\", given already as \"/etc\"");
  EXPECT_EQ(Err(With(R"("protected_paths": ["/etc", "/etc"])")),
            "p.json: protected_paths[1]: \"/etc\" given twice");
  EXPECT_EQ(Err(With(R"("protected_paths": "/etc")")),
            "p.json: protected_paths: expected a list of strings");
  EXPECT_EQ(Err(With(R"("deny_read": ["/a\u0000b"])")),
            "p.json: deny_read[0]: a path may not hold a NUL byte");
  Policy p = ParsePolicy(With(R"("protected_paths": ["/srv/work/../../etc/cron.d/", "//a/./b"],)"
                              R"("deny_read": ["/../root//.ssh/"])"),
                         "p.json")
                 .value();
  EXPECT_EQ(p.protected_paths, (std::vector<std::string>{"/a/b", "/etc/cron.d"}));
  EXPECT_EQ(p.deny_read, (std::vector<std::string>{"/root/.ssh"}));
}

TEST(PolicyErrors, EnvGlobsAndAllowances) {
  EXPECT_EQ(Err(With(R"("env_deny": ["AWS_?"])")),
            "p.json: env_deny[0]: expected a glob of letters, digits, '_' and '*' (the only "
            "wildcard), not \"AWS_?\"");
  EXPECT_EQ(Err(With(R"("env_deny": ["[A-Z]*"])")),
            "p.json: env_deny[0]: expected a glob of letters, digits, '_' and '*' (the only "
            "wildcard), not \"[A-Z]*\"");
  EXPECT_EQ(Err(With(R"("env_deny": ["AWS_**"])")),
            "p.json: env_deny[0]: write one '*' for any run, not \"**\"");
  EXPECT_EQ(Err(With(R"("env_deny": [""])")),
            "p.json: env_deny[0]: expected a glob of 1 to 128 bytes, such as \"*_TOKEN\"");
  EXPECT_EQ(Err(With(R"("env_deny": ["1X"])")),
            "p.json: env_deny[0]: a variable name does not start with a digit: \"1X\"");
  EXPECT_EQ(Err(With(R"("env_deny": ["*_TOKEN", "*_TOKEN"])")),
            "p.json: env_deny[1]: \"*_TOKEN\" given twice");
  EXPECT_EQ(Err(With(R"("env_allow": {"codex": ["OPENAI-KEY"]})")),
            "p.json: env_allow.codex[0]: expected a variable name ([A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(Err(With(R"("env_allow": {"codex": []})")),
            "p.json: env_allow.codex: expected a non-empty list of variable names");
  EXPECT_EQ(Err(With(R"("env_allow": ["OPENAI_API_KEY"])")),
            "p.json: env_allow: expected an object of profiles");
  // A name no glob denies needs no allowing: most likely a typo.
  EXPECT_EQ(Err(With(R"("env_allow": {"codex": ["OPENAI_API_KEY", "OPENAI_APIKEY"]})")),
            "p.json: env_allow.codex[1]: \"OPENAI_APIKEY\" matches no env_deny or env_hold glob: "
            "there is "
            "nothing to allow");
  // Checked against the env_deny of the file, wherever it stands.
  EXPECT_EQ(Err(With(R"("env_allow": {"codex": ["OPENAI_API_KEY"]}, "env_deny": ["AWS_*"])")),
            "p.json: env_allow.codex[0]: \"OPENAI_API_KEY\" matches no env_deny or env_hold glob: "
            "there is "
            "nothing to allow");
  EXPECT_EQ(Err(With(R"("drones": ["script"], "env_allow": {"codex": ["OPENAI_API_KEY"]})")),
            "p.json: env_allow.codex: profile \"codex\" is not in drones");
}

TEST(PolicyErrors, TextRules) {
  auto rule = [](const std::string& body) { return With(R"("text_rules": [)" + body + "]"); };
  EXPECT_EQ(Err(rule(R"({"id": "sns", "verbs": {"en": ["post"]}, "verdict": "deny", "why": "x"})")),
            "p.json: text_rules[0].verdict: a text rule can only raise a verdict to hold: "
            "\"deny\" is refused (deny an act by its verb in acts.deny)");
  EXPECT_EQ(
      Err(rule(R"({"id": "sns", "verbs": {"en": ["post"]}, "verdict": "allow", "why": "x"})")),
      "p.json: text_rules[0].verdict: a text rule can only raise a verdict to hold: "
      "\"allow\" is refused (deny an act by its verb in acts.deny)");
  EXPECT_EQ(Err(rule(R"({"id": "sns", "verbs": {"en": ["post"]}, "verdict": 1, "why": "x"})")),
            "p.json: text_rules[0].verdict: expected \"hold\"");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {"en": ["post"]}, "why": "x"},)"
                     R"({"id": "a", "verbs": {"en": ["send"]}, "why": "y"})")),
            "p.json: text_rules[1].id: \"a\" given twice (text_rules[0])");
  EXPECT_EQ(Err(rule(R"({"id": "SNS", "verbs": {"en": ["post"]}, "why": "x"})")),
            "p.json: text_rules[0].id: expected a rule id ([a-z0-9][a-z0-9._-]*, at most 64 "
            "bytes)");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {"en": []}, "why": "x"})")),
            "p.json: text_rules[0].verbs.en: expected a non-empty list of verbs");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {}, "why": "x"})")),
            "p.json: text_rules[0].verbs: expected verbs in \"en\", \"ja\" or both");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {"fr": ["poster"]}, "why": "x"})")),
            "p.json: text_rules[0].verbs.fr: unknown field (verbs has en, ja)");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {"en": ["Post"]}, "why": "x"})")),
            "p.json: text_rules[0].verbs.en[0]: expected an English verb of lower-case letters");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {"ja": ["投稿", "投稿"]}, "why": "x"})")),
            "p.json: text_rules[0].verbs.ja[1]: \"投稿\" given twice");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {"ja": ["投稿 する"]}, "why": "x"})")),
            "p.json: text_rules[0].verbs.ja[0]: expected a Japanese verb: 1 to 64 bytes, no "
            "spaces");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {"ja": ["投稿　する"]}, "why": "x"})")),
            "p.json: text_rules[0].verbs.ja[0]: expected a Japanese verb: 1 to 64 bytes, no "
            "spaces");
  EXPECT_EQ(Err(rule(R"({"id": "a", "why": "x"})")),
            "p.json: text_rules[0].verbs: missing required field");
  EXPECT_EQ(Err(rule(R"({"verbs": {"en": ["post"]}, "why": "x"})")),
            "p.json: text_rules[0].id: missing required field");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {"en": ["post"]}})")),
            "p.json: text_rules[0].why: missing required field");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {"en": ["post"]}, "why": ""})")),
            "p.json: text_rules[0].why: expected a reason of 1 to 1000 bytes, for the person who "
            "decides");
  EXPECT_EQ(Err(rule(R"({"id": "a", "verbs": {"en": ["post"]}, "why": "x", "lang": "en"})")),
            "p.json: text_rules[0].lang: unknown field (a text rule has id, verbs, verdict, why)");
  EXPECT_EQ(Err(rule(R"("post")")),
            "p.json: text_rules[0]: expected an object {\"id\", \"verbs\", \"verdict\": \"hold\", "
            "\"why\"}");
  EXPECT_EQ(Err(With(R"("text_rules": {})")), "p.json: text_rules: expected a list of text rules");
}

TEST(PolicyErrors, NothingLoadsHalfWay) {
  // A good section before a bad one: the result is an error, never a policy with half of it.
  Result<Policy> r = ParsePolicy(
      With(R"("acts": {"deny": ["post"]}, "max_minutes": 60, "drones": [1])"), "p.json");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalid);
  EXPECT_EQ(r.status().message(), "p.json: drones[0]: expected a string");
}

}  // namespace
}  // namespace hangar
