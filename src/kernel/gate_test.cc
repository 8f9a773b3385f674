// The gate against a policy: stage 1 on the mission's structured fields, stage 2 on the plan.
#include "kernel/gate.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

Policy P(const std::string& text) {
  Result<Policy> p = ParsePolicy(text, "p.json");
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? p.value() : DefaultPolicy();
}

Mission M() {
  Mission m;
  m.id = "M1";
  m.requester = "r";
  m.drone = "script";
  m.future = "f";
  m.now = "n";
  m.max_minutes = 10;
  return m;
}

Plan PlanFor(const Mission& m) {
  Plan p;
  p.id = m.id;
  p.launcher = "direct";
  p.argv = {"/bin/true"};
  p.room = "/s/rooms/" + m.id;
  p.run = "/s/running/" + m.id + "/run";
  p.network = m.network;
  p.deadline_ms = m.deadline_ms();
  p.env = {{"PATH", "/bin"}};
  return p;
}

const char* kPolicy = R"({"hangar_policy":1,
  "acts":{"deny":["buy","tweet"],"hold":["push"],"allow":["read","write"],"unknown":"hold"},
  "drones":["script"],"max_minutes":60,
  "network":{"allow":["none"],"hold":["host"]},
  "ops":{"allow":["fs.read"],"deny":["shell.root"],"grant":["git.push"],"unknown":"deny"},
  "env_deny":["*_TOKEN","AWS_*"],"env_allow":{"script":["CI_TOKEN"]}})";

TEST(Gate, Stage1AllowsWhatThePolicyAllows) {
  Mission m = M();
  m.acts = {"read", "write"};
  m.ops = {"fs.read", "git.push"};  // a grant-needing op passes intake; the window checks it
  GateResult g = GateStage1(m, P(kPolicy));
  EXPECT_EQ(g.verdict, Verdict::kAllow) << g.reason;
  EXPECT_TRUE(g.rules.empty());
}

TEST(Gate, Stage1DenyOutranksHoldAndEveryFiredRuleIsListed) {
  Mission m = M();
  m.acts = {"push", "tweet", "juggle"};
  GateResult g = GateStage1(m, P(kPolicy));
  EXPECT_EQ(g.verdict, Verdict::kDeny);
  EXPECT_EQ(g.rules,
            (std::vector<std::string>{"acts.hold.push", "acts.deny.tweet", "acts.unknown"}));
  EXPECT_EQ(g.reason, "act \"tweet\" is denied by the policy");
}

TEST(Gate, Stage1StructuredFields) {
  Policy p = P(kPolicy);
  Mission m = M();
  m.acts = {"push"};
  GateResult g = GateStage1(m, p);
  EXPECT_EQ(g.verdict, Verdict::kHold);
  EXPECT_EQ(g.reason, "act \"push\" is held for a person by the policy");
  m = M();
  m.network = "host";
  EXPECT_EQ(GateStage1(m, p).rules, (std::vector<std::string>{"network.host"}));
  EXPECT_EQ(GateStage1(m, p).verdict, Verdict::kHold);
  m = M();
  m.max_minutes = 61;
  EXPECT_EQ(GateStage1(m, p).verdict, Verdict::kDeny);
  EXPECT_EQ(GateStage1(m, p).rules, (std::vector<std::string>{"max_minutes"}));
  m = M();
  m.drone = "codex";
  EXPECT_EQ(GateStage1(m, p).rules, (std::vector<std::string>{"drones"}));
  m = M();
  m.ops = {"shell.root", "mystery.op"};
  EXPECT_EQ(GateStage1(m, p).rules,
            (std::vector<std::string>{"ops.deny.shell.root", "ops.unknown"}));
  // Same mission, same policy, same verdict.
  EXPECT_EQ(GateStage1(m, p).ToJson(1, 0), GateStage1(m, p).ToJson(1, 0));
}

TEST(Gate, Stage2DeniesForbiddenEnvironmentUnlessTheProfileMayHaveIt) {
  Policy p = P(kPolicy);
  Mission m = M();
  Plan plan = PlanFor(m);
  EXPECT_EQ(GateStage2(m, plan, p, "/s/rooms").verdict, Verdict::kAllow);
  plan.env["GITHUB_TOKEN"] = "x";
  GateResult g = GateStage2(m, plan, p, "/s/rooms");
  EXPECT_EQ(g.verdict, Verdict::kDeny);
  EXPECT_EQ(g.rules, (std::vector<std::string>{"env.deny"}));
  plan = PlanFor(m);
  plan.env["CI_TOKEN"] = "x";  // env_allow for profile script
  EXPECT_EQ(GateStage2(m, plan, p, "/s/rooms").verdict, Verdict::kAllow);
}

TEST(Gate, Stage2ChecksRoomNetworkAndDeadlineOfTheExactPlan) {
  Policy p = P(kPolicy);
  Mission m = M();
  Plan plan = PlanFor(m);
  plan.room = "/s/rooms/../etc";
  EXPECT_EQ(GateStage2(m, plan, p, "/s/rooms").rules,
            (std::vector<std::string>{"plan.room.outside"}));
  plan.room = "/s/rooms";
  EXPECT_EQ(GateStage2(m, plan, p, "/s/rooms").rules,
            (std::vector<std::string>{"plan.room.outside"}));
  plan = PlanFor(m);
  plan.network = "host";
  EXPECT_EQ(GateStage2(m, plan, p, "/s/rooms").rules,
            (std::vector<std::string>{"plan.network.mismatch"}));
  plan = PlanFor(m);
  plan.deadline_ms += 1;
  EXPECT_EQ(GateStage2(m, plan, p, "/s/rooms").rules,
            (std::vector<std::string>{"plan.deadline.mismatch"}));
}

TEST(Gate, TextRulesJudgeActsNotTopicsAndOnlyHold) {
  Policy p = P(R"({"hangar_policy":1,"acts":{"allow":["write"]},
    "text_rules":[{"id":"sns-post","verbs":{"en":["post","tweet"],"ja":["投稿"]},
                   "why":"posting needs a person"}]})");
  TextRules text(p);
  auto judge = [&](const std::string& future, std::vector<std::string> constraints = {}) {
    Mission m = M();
    m.future = future;
    m.constraints = std::move(constraints);
    return GateStage1(m, p, text);
  };
  EXPECT_EQ(judge("Write the release notes. Do not post them anywhere.").verdict, Verdict::kAllow);
  EXPECT_EQ(judge("Analyse why our last post got few replies.").verdict, Verdict::kAllow);
  EXPECT_EQ(judge("レポートを書く。投稿しない。").verdict, Verdict::kAllow);
  EXPECT_EQ(judge("Write the notes", {"never post or tweet"}).verdict, Verdict::kAllow);
  GateResult g = judge("Summarise the thread, then post the notes on X.");
  EXPECT_EQ(g.verdict, Verdict::kHold);
  EXPECT_EQ(g.rules, (std::vector<std::string>{"text.sns-post"}));
  EXPECT_NE(g.reason.find("future asks to post"), std::string::npos) << g.reason;
  EXPECT_NE(g.reason.find("posting needs a person"), std::string::npos) << g.reason;
  EXPECT_EQ(judge("要約を X に投稿する").verdict, Verdict::kHold);
  // A text rule never lowers a verdict: a denied act stays denied.
  Mission m = M();
  m.acts = {"write"};
  m.drone = "script";
  m.future = "post it";
  m.max_minutes = 5000;
  EXPECT_EQ(GateStage1(m, p, text).verdict, Verdict::kDeny);
}

}  // namespace
}  // namespace hangar
