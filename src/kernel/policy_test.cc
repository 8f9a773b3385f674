// The policy's queries, rule ids, defaults and canonical form (the reader's errors are in
// policy_parse_test.cc).
#include "kernel/policy.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/sha256.h"

namespace hangar {
namespace {

// The example of the issue and the man page, every section given.
const char* const kFull = R"({
  "hangar_policy": 1,
  "acts": {"deny": ["post", "tweet"], "hold": ["send", "buy"], "allow": ["read"],
           "unknown": "hold"},
  "drones": ["script", "codex"],
  "max_minutes": 120,
  "network": {"allow": ["none"], "hold": ["host"]},
  "ops": {"allow": ["fs.read"], "deny": ["sns.post"], "grant": ["git.push"], "unknown": "deny"},
  "protected_paths": ["/etc", "/srv/prod/"],
  "deny_read": ["/root/.ssh", "/etc/shadow"],
  "env_deny": ["*_TOKEN", "AWS_*", "GITHUB_TOKEN", "*_API_KEY"],
  "env_allow": {"codex": ["OPENAI_API_KEY"]},
  "text_rules": [
    {"id": "sns-post", "verbs": {"en": ["tweet", "post"], "ja": ["投稿"]}, "verdict": "hold",
     "why": "posting on social networks needs a person"},
    {"id": "buy", "verbs": {"en": ["buy"]}, "why": "money"}
  ]
})";

// A version line plus one section.
std::string With(const std::string& section) {
  return R"({"hangar_policy": 1, )" + section + "}";
}

TEST(Policy, ParsesEverySection) {
  Result<Policy> r = ParsePolicy(kFull, "p.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Policy& p = *r;
  EXPECT_EQ(p.acts.at("post"), Verdict::kDeny);
  EXPECT_EQ(p.acts.at("buy"), Verdict::kHold);
  EXPECT_EQ(p.acts.at("read"), Verdict::kAllow);
  EXPECT_EQ(p.acts_unknown, Verdict::kHold);
  ASSERT_TRUE(p.drones);
  EXPECT_EQ(*p.drones, (std::set<std::string>{"codex", "script"}));
  EXPECT_EQ(p.max_minutes, 120);
  EXPECT_EQ(p.ops.at("git.push"), OpAccess::kGrant);
  EXPECT_EQ(p.protected_paths, (std::vector<std::string>{"/etc", "/srv/prod"}));
  EXPECT_EQ(p.deny_read, (std::vector<std::string>{"/etc/shadow", "/root/.ssh"}));
  EXPECT_EQ(p.env_deny,
            (std::vector<std::string>{"*_API_KEY", "*_TOKEN", "AWS_*", "GITHUB_TOKEN"}));
  ASSERT_EQ(p.text_rules.size(), 2u);
  EXPECT_EQ(p.text_rules[0].id, "buy");  // sorted by id
  EXPECT_EQ(p.text_rules[1].id, "sns-post");
  EXPECT_EQ(p.text_rules[1].verbs.at("en"), (std::vector<std::string>{"post", "tweet"}));
  EXPECT_EQ(p.text_rules[1].verbs.at("ja"), (std::vector<std::string>{"投稿"}));
  EXPECT_EQ(p.text_rules[1].why, "posting on social networks needs a person");
}

TEST(Policy, RuleIdsAreDerivedFromTheFile) {
  Policy p = ParsePolicy(kFull, "p.json").value();
  EXPECT_EQ(p.RuleIds(),
            (std::vector<std::string>{
                "acts.deny.post", "acts.deny.tweet", "acts.hold.buy", "acts.hold.send",
                "acts.unknown", "drones", "max_minutes", "network.host", "ops.deny.sns.post",
                "ops.grant.git.push", "ops.unknown", "paths.protected", "paths.deny_read",
                "notify.dir.protected", "env.deny", "text.buy", "text.sns-post"}));
  Policy checks = DefaultPolicy();
  checks.check_programs = std::set<std::string>{"pytest"};
  const std::vector<std::string> ids = checks.RuleIds();
  EXPECT_NE(std::find(ids.begin(), ids.end(), "checks.program"), ids.end());
  EXPECT_EQ(ids.size(), DefaultPolicy().RuleIds().size() + 1);
}

TEST(Policy, QueriesNameTheRuleThatSpoke) {
  Policy p = ParsePolicy(kFull, "p.json").value();
  auto act = [&](const char* v) {
    RuleVerdict r = p.ActVerdict(v);
    return std::string(VerdictName(r.verdict)) + " " + r.rule;
  };
  EXPECT_EQ(act("post"), "deny acts.deny.post");
  EXPECT_EQ(act("send"), "hold acts.hold.send");
  EXPECT_EQ(act("read"), "allow ");
  EXPECT_EQ(act("dance"), "hold acts.unknown");
  EXPECT_EQ(act("Post"), "hold acts.unknown");  // exact match: the gate lower-cases if it wants
  EXPECT_EQ(p.NetworkVerdict("none").verdict, Verdict::kAllow);
  EXPECT_EQ(p.NetworkVerdict("host").rule, "network.host");
  EXPECT_EQ(p.NetworkVerdict("host").verdict, Verdict::kHold);
  EXPECT_EQ(p.OpAccessFor("git.push").rule, "ops.grant.git.push");
  EXPECT_EQ(p.OpAccessFor("sns.post").access, OpAccess::kDeny);
  EXPECT_EQ(p.OpAccessFor("fs.read").access, OpAccess::kAllow);
  EXPECT_EQ(p.OpAccessFor("fs.read").rule, "");
  EXPECT_EQ(p.OpAccessFor("web.get").rule, "ops.unknown");
  EXPECT_TRUE(p.DroneAllowed("codex"));
  EXPECT_FALSE(p.DroneAllowed("claude"));
  EXPECT_TRUE(p.EnvDenied("script", "OPENAI_API_KEY"));
  EXPECT_FALSE(p.EnvDenied("codex", "OPENAI_API_KEY"));  // env_allow
  EXPECT_TRUE(p.EnvDenied("codex", "GITHUB_TOKEN"));     // allowed by name only
  EXPECT_FALSE(p.EnvDenied("script", "PATH"));
  ASSERT_NE(p.ProtectedDirOf("/srv/work/../../etc/cron.d/x"), nullptr);
  EXPECT_EQ(*p.ProtectedDirOf("/srv/work/../../etc/cron.d/x"), "/etc");
  EXPECT_EQ(*p.ProtectedDirOf("//srv//prod/"), "/srv/prod");
  EXPECT_EQ(p.ProtectedDirOf("/etcetera/x"), nullptr);
  EXPECT_EQ(p.ProtectedDirOf("/srv/production"), nullptr);
}

TEST(Policy, NetworkModeInNeitherListIsDenied) {
  Policy p = ParsePolicy(With(R"("network": {"allow": ["none"]})"), "p.json").value();
  EXPECT_EQ(p.NetworkVerdict("host").verdict, Verdict::kDeny);
  EXPECT_EQ(p.NetworkVerdict("host").rule, "network.host");
  EXPECT_EQ(p.NetworkVerdict("bridge").verdict, Verdict::kDeny);
}

TEST(Policy, DefaultIsTheVersionLineAlone) {
  Result<Policy> r = ParsePolicy(R"({"hangar_policy":1})", "p.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(json::Write(r->ToJson()), json::Write(DefaultPolicy().ToJson()));
  const Policy d = DefaultPolicy();
  EXPECT_EQ(d.acts_unknown, Verdict::kHold);
  EXPECT_FALSE(d.drones);
  EXPECT_EQ(d.max_minutes, 1440);
  EXPECT_EQ(d.NetworkVerdict("none").verdict, Verdict::kAllow);
  EXPECT_EQ(d.NetworkVerdict("host").verdict, Verdict::kHold);
  EXPECT_EQ(d.OpAccessFor("git.push").access, OpAccess::kDeny);
  EXPECT_TRUE(d.protected_paths.empty());
  EXPECT_EQ(d.deny_read,
            (std::vector<std::string>{"/etc/shadow", "/root", "~*/.aws", "~*/.azure", "~*/.claude",
                                      "~*/.codex", "~*/.config/gcloud", "~*/.config/gh",
                                      "~*/.docker/config.json", "~*/.git-credentials", "~*/.gnupg",
                                      "~*/.kube", "~*/.netrc", "~*/.ssh"}));
  for (const char* v : {"GH_TOKEN", "DB_SECRET", "DB_SECRET_FILE", "STRIPE_KEY", "AWS_REGION",
                        "GITHUB_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"})
    EXPECT_TRUE(d.EnvDenied("any", v)) << v;
  for (const char* v : {"PATH", "HOME", "LANG", "TOKEN", "KEYBOARD"})
    EXPECT_FALSE(d.EnvDenied("any", v)) << v;
  EXPECT_FALSE(d.notify_dirs);
  EXPECT_EQ(d.RuleIds(),
            (std::vector<std::string>{"acts.unknown", "max_minutes", "network.host", "ops.unknown",
                                      "paths.deny_read", "notify.dir.protected", "env.deny"}));
  // A default-constructed Policy is closed, not open.
  Policy closed;
  EXPECT_EQ(closed.ActVerdict("read").verdict, Verdict::kDeny);
  EXPECT_EQ(closed.NetworkVerdict("none").verdict, Verdict::kDeny);
}

TEST(Policy, NotifyDirsAreAbsoluteNormalisedAndOnlyInTheDigestWhenGiven) {
  Policy p =
      ParsePolicy(With(R"("notify_dirs": ["/srv/inbox/", "//home//u/inbox"])"), "p.json").value();
  ASSERT_TRUE(p.notify_dirs);
  EXPECT_EQ(*p.notify_dirs, (std::vector<std::string>{"/home/u/inbox", "/srv/inbox"}));
  const std::vector<std::string> ids = p.RuleIds();
  EXPECT_NE(std::find(ids.begin(), ids.end(), "notify.dir.unlisted"), ids.end());
  EXPECT_EQ(*p.ToJson().find("notify_dirs"),
            json::Value(json::Array{"/home/u/inbox", "/srv/inbox"}));
  EXPECT_EQ(*ParsePolicy(json::Write(p.ToJson()), "c.json")->notify_dirs, *p.notify_dirs);
  // Given empty: returns are delivered nowhere.
  Policy none = ParsePolicy(With(R"("notify_dirs": [])"), "p.json").value();
  EXPECT_TRUE(none.notify_dirs && none.notify_dirs->empty());
  EXPECT_NE(PolicyDigest(none), PolicyDigest(DefaultPolicy()));
  // Absent: no key in the canonical document, so older policies keep their digests.
  EXPECT_EQ(DefaultPolicy().ToJson().find("notify_dirs"), nullptr);
  EXPECT_EQ(ParsePolicy(With(R"("notify_dirs": ["inbox"])"), "p.json").status().message(),
            "p.json: notify_dirs[0]: expected an absolute path (starting with \"/\"), not "
            "\"inbox\"");
}

TEST(Policy, AGivenSectionReplacesTheDefaultWhole) {
  Policy p = ParsePolicy(With(R"("env_deny": [], "deny_read": [])"), "p.json").value();
  EXPECT_TRUE(p.env_deny.empty());
  EXPECT_TRUE(p.deny_read.empty());
  EXPECT_FALSE(p.EnvDenied("x", "GITHUB_TOKEN"));
  Policy q = ParsePolicy(With(R"("acts": {"deny": ["post"]}, "ops": {"grant": ["a.b"]})"), "p.json")
                 .value();
  EXPECT_EQ(q.acts_unknown, Verdict::kHold);  // unknown left out: the default
  EXPECT_EQ(q.ops_unknown, OpAccess::kDeny);
  EXPECT_EQ(q.acts.size(), 1u);
  Policy n = ParsePolicy(With(R"("network": {"allow": ["none", "host"]})"), "p.json").value();
  EXPECT_EQ(n.NetworkVerdict("host").verdict, Verdict::kAllow);
}

TEST(Policy, CanonicalJsonParsesBackAndFixesTheDigest) {
  Policy p = ParsePolicy(kFull, "p.json").value();
  const std::string canon = json::Write(p.ToJson());
  Result<Policy> back = ParsePolicy(canon, "canon.json");
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << canon;
  EXPECT_EQ(json::Write(back->ToJson()), canon);
  EXPECT_EQ(PolicyDigest(p), Sha256Hex(canon));
  EXPECT_EQ(PolicyDigest(*back), PolicyDigest(p));
  EXPECT_EQ(PolicyDigest(p).size(), 64u);
  // The same meaning written otherwise: other order, other spelling of the paths, other spacing.
  Policy q =
      ParsePolicy(
          R"({"text_rules":[{"why":"money","verbs":{"en":["buy"]},"id":"buy"},)"
          R"({"verdict":"hold","id":"sns-post","why":"posting on social networks needs a person",)"
          R"("verbs":{"ja":["投稿"],"en":["post","tweet"]}}],)"
          R"("env_allow":{"codex":["OPENAI_API_KEY"]},"env_deny":["GITHUB_TOKEN","AWS_*","*_API_KEY","*_TOKEN"],)"
          R"("deny_read":["/etc//shadow","/root/.ssh/"],"protected_paths":["/srv/prod","/etc/."],)"
          R"("ops":{"unknown":"deny","grant":["git.push"],"deny":["sns.post"],"allow":["fs.read"]},)"
          R"("network":{"hold":["host"],"allow":["none"]},"max_minutes":120.0,)"
          R"("drones":["codex","script"],"acts":{"allow":["read"],"hold":["buy","send"],"deny":["tweet","post"]},)"
          R"("hangar_policy":1})",
          "q.json")
          .value();
  EXPECT_EQ(PolicyDigest(q), PolicyDigest(p));
  // A different meaning, a different digest.
  EXPECT_NE(PolicyDigest(DefaultPolicy()), PolicyDigest(p));
  Policy r = p;
  r.max_minutes = 121;
  EXPECT_NE(PolicyDigest(r), PolicyDigest(p));
}

TEST(Policy, FractionalMinutesStayExact) {
  Policy p = ParsePolicy(With(R"("max_minutes": 0.5)"), "p.json").value();
  EXPECT_EQ(p.max_minutes, 0.5);
  Policy back = ParsePolicy(json::Write(p.ToJson()), "c.json").value();
  EXPECT_EQ(back.max_minutes, 0.5);
}

TEST(PolicyGlob, StarMatchesAnyRun) {
  EXPECT_TRUE(EnvGlobMatch("*_TOKEN", "GH_TOKEN"));
  EXPECT_TRUE(EnvGlobMatch("*_TOKEN", "_TOKEN"));
  EXPECT_FALSE(EnvGlobMatch("*_TOKEN", "TOKEN"));
  EXPECT_FALSE(EnvGlobMatch("*_TOKEN", "GH_TOKENS"));
  EXPECT_TRUE(EnvGlobMatch("AWS_*", "AWS_"));
  EXPECT_TRUE(EnvGlobMatch("AWS_*", "AWS_SECRET_ACCESS_KEY"));
  EXPECT_FALSE(EnvGlobMatch("AWS_*", "XAWS_A"));
  EXPECT_TRUE(EnvGlobMatch("*_SECRET*", "DB_SECRET"));
  EXPECT_TRUE(EnvGlobMatch("*_SECRET*", "A_SECRET_B_SECRET_C"));
  EXPECT_TRUE(EnvGlobMatch("A*B*C", "AxxBxxBxxC"));
  EXPECT_FALSE(EnvGlobMatch("A*B*C", "AxxBxxBxxD"));
  EXPECT_TRUE(EnvGlobMatch("*", ""));
  EXPECT_TRUE(EnvGlobMatch("GITHUB_TOKEN", "GITHUB_TOKEN"));
  EXPECT_FALSE(EnvGlobMatch("GITHUB_TOKEN", "github_token"));  // case matters
  EXPECT_FALSE(EnvGlobMatch("", "X"));
}

}  // namespace
}  // namespace hangar
