// The window's pure half: a drone's request parsed strictly, and judged by its checks in order.
#include "kernel/window.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

constexpr TimeMs kNow = 1767225600000;  // 2026-01-01T00:00:00Z

json::Value Json(const std::string& text) {
  Result<json::Value> v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? v.value() : json::Value();
}

OpRequest Ok(const std::string& bytes) {
  OpRequestOrError r = ParseOpRequest(bytes);
  EXPECT_TRUE(std::holds_alternative<OpRequest>(r))
      << bytes << ": "
      << (std::holds_alternative<ParseError>(r) ? std::get<ParseError>(r).Text() : "");
  return std::holds_alternative<OpRequest>(r) ? std::get<OpRequest>(r) : OpRequest{};
}

ParseError Err(const std::string& bytes) {
  OpRequestOrError r = ParseOpRequest(bytes);
  EXPECT_TRUE(std::holds_alternative<ParseError>(r)) << bytes;
  return std::holds_alternative<ParseError>(r) ? std::get<ParseError>(r)
                                               : ParseError{"(parsed)", "(parsed)"};
}

// ---- ParseOpRequest ----

TEST(ParseOpRequest, AGoodRequestGivesOpArgsAndKey) {
  OpRequest r = Ok(R"({"op":"post.message","args":{"text":"hi","n":2},"key":"K-1.a_b"})");
  EXPECT_EQ(r.op, "post.message");
  EXPECT_EQ(r.key, "K-1.a_b");
  EXPECT_EQ(json::Write(r.args), R"({"n":2,"text":"hi"})");
  EXPECT_TRUE(Ok(R"({"key":"k","args":{},"op":"a"})").args.as_object().empty());
}

TEST(ParseOpRequest, AnUnknownFieldIsNamed) {
  ParseError e = Err(R"({"op":"a","args":{},"key":"k","approved":true})");
  EXPECT_EQ(e.field, "approved");
  EXPECT_NE(e.reason.find("unknown field"), std::string::npos) << e.reason;
}

TEST(ParseOpRequest, EachMissingFieldIsNamed) {
  EXPECT_EQ(Err(R"({"args":{},"key":"k"})").field, "op");
  EXPECT_EQ(Err(R"({"op":"a","key":"k"})").field, "args");
  EXPECT_EQ(Err(R"({"op":"a","args":{}})").field, "key");
  EXPECT_EQ(Err(R"({"op":"a","args":{}})").reason, "missing required field");
}

TEST(ParseOpRequest, ABadOpNameIsRefused) {
  for (const char* op : {R"("Post")", R"("post message")", R"("1post")", R"(".post")", R"("")",
                         R"("a/b")", "7", "null", R"(["a"])"}) {
    ParseError e = Err(std::string(R"({"args":{},"key":"k","op":)") + op + "}");
    EXPECT_EQ(e.field, "op") << op;
  }
  EXPECT_EQ(Err(R"({"op":")" + std::string(65, 'a') + R"(","args":{},"key":"k"})").field, "op");
  EXPECT_EQ(Ok(R"({"op":")" + std::string(64, 'a') + R"(","args":{},"key":"k"})").op.size(), 64u);
}

TEST(ParseOpRequest, ABadKeyIsRefused) {
  for (const char* key :
       {R"("../x")", R"("a/b")", R"(".k")", R"("")", R"("k k")", R"("-k")", "1", "null"}) {
    ParseError e = Err(std::string(R"({"op":"a","args":{},"key":)") + key + "}");
    EXPECT_EQ(e.field, "key") << key;
  }
  EXPECT_EQ(Err(R"({"op":"a","args":{},"key":")" + std::string(65, 'k') + R"("})").field, "key");
}

TEST(ParseOpRequest, ArgsMustBeAnObject) {
  for (const char* args : {"[1]", "null", R"("x")", "3", "true"}) {
    ParseError e = Err(std::string(R"({"op":"a","key":"k","args":)") + args + "}");
    EXPECT_EQ(e.field, "args") << args;
    EXPECT_EQ(e.reason, "expected an object") << args;
  }
}

TEST(ParseOpRequest, TheWholeDocumentMustBeUtf8JsonObject) {
  ParseError e = Err("{\"op\":\"a\",\"args\":{\"t\":\"\xff\"},\"key\":\"k\"}");
  EXPECT_EQ(e.field, "");
  EXPECT_EQ(e.reason, "not UTF-8 text");
  e = Err(R"({"op":"a","args":{},"key":"k")");
  EXPECT_EQ(e.field, "");
  EXPECT_TRUE(e.reason.starts_with("not JSON")) << e.reason;
  e = Err(R"([{"op":"a","args":{},"key":"k"}])");
  EXPECT_EQ(e.field, "");
  EXPECT_EQ(e.reason, "expected a JSON object");
  EXPECT_EQ(Err("").field, "");
}

TEST(ParseOpRequest, AtMost64KiB) {
  const std::string head = R"({"op":"a","key":"k","args":{"pad":")", tail = R"("}})";
  std::string exact =
      head + std::string(kMaxOpRequestBytes - head.size() - tail.size(), 'x') + tail;
  ASSERT_EQ(exact.size(), kMaxOpRequestBytes);
  EXPECT_EQ(Ok(exact).op, "a");
  std::string over =
      head + std::string(kMaxOpRequestBytes + 1 - head.size() - tail.size(), 'x') + tail;
  ParseError e = Err(over);
  EXPECT_EQ(e.field, "");
  EXPECT_EQ(e.reason, "more than 65536 bytes");
}

// ---- OpRequestName ----

TEST(OpRequestName, OnlyRequestFilesHaveAName) {
  EXPECT_EQ(OpRequestName("post-1.json"), "post-1");
  EXPECT_EQ(OpRequestName("A.b_c-9.json"), "A.b_c-9");
  EXPECT_EQ(OpRequestName(std::string(64, 'n') + ".json"), std::string(64, 'n'));
  EXPECT_EQ(OpRequestName("post-1.result.json"), "");  // an answer, not a request
  EXPECT_EQ(OpRequestName(".post-1.json"), "");        // a dot file (a temp file, say)
  EXPECT_EQ(OpRequestName(".post-1.result.json.hangar-tmp"), "");
  EXPECT_EQ(OpRequestName("post-1"), "");
  EXPECT_EQ(OpRequestName("post-1.txt"), "");
  EXPECT_EQ(OpRequestName("post-1.json.swp"), "");
  EXPECT_EQ(OpRequestName(".json"), "");
  EXPECT_EQ(OpRequestName("bad name.json"), "");
  EXPECT_EQ(OpRequestName("-x.json"), "");
  EXPECT_EQ(OpRequestName(std::string(65, 'n') + ".json"), "");
}

// ---- JudgeOp ----

// shell/declaration.h's record of a valid DECLARATION.json.
json::Value Declared(const std::vector<std::string>& ops,
                     const std::vector<std::string>& external_acts = {}) {
  json::Object content{{"will", json::Array{}},
                       {"will_not", json::Array{}},
                       {"ops", json::Array(ops.begin(), ops.end())},
                       {"external_acts", json::Array(external_acts.begin(), external_acts.end())}};
  return json::Object{{"present", true}, {"valid", true}, {"content", std::move(content)}};
}

GrantRecord GrantEntry(int64_t seq, json::Object body) {
  GrantRecord e;
  e.seq = seq;
  e.kind = "grant";
  e.body = std::move(body);
  return e;
}

// Everything in order for "post.message" (allowed by the policy) and "git.push" (grant-listed):
// each test breaks one thing, or several to show which check comes first.
class JudgeOpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mission_.id = "M1";
    mission_.requester = "alice";
    mission_.ops = {"post.message", "git.push"};
    policy_ = DefaultPolicy();
    policy_.ops["post.message"] = OpAccess::kAllow;
    policy_.ops["git.push"] = OpAccess::kGrant;
    policy_.ops["rm.rf"] = OpAccess::kDeny;
    declaration_ = Declared({"post.message", "git.push", "rm.rf", "other.op"});
  }

  OpJudgement Judge(const std::string& op) {
    OpRequest r;
    r.op = op;
    r.args = json::Object{};
    r.key = "k1";
    OpContext c;
    c.mission = &mission_;
    c.declaration = &declaration_;
    c.policy = &policy_;
    c.grants = &grants_;
    c.fail_closed = fail_closed_;
    c.has_handler = has_handler_;
    c.now = kNow;
    return JudgeOp(r, c);
  }

  void Grant(json::Object body) {
    ASSERT_TRUE(grants_.Apply(GrantEntry(++seq_, std::move(body))).ok());
  }

  Mission mission_;
  Policy policy_;
  json::Value declaration_;
  GrantBook grants_;
  std::string fail_closed_;
  bool has_handler_ = true;
  int64_t seq_ = 0;
};

TEST_F(JudgeOpTest, AllChecksPassedIsAllowed) {
  OpJudgement j = Judge("post.message");
  EXPECT_TRUE(j.allowed);
  EXPECT_EQ(j.rule, "");
}

TEST_F(JudgeOpTest, NoDeclarationIsRefused) {
  declaration_ = Json(R"({"present":false})");
  OpJudgement j = Judge("post.message");
  EXPECT_FALSE(j.allowed);
  EXPECT_EQ(j.rule, "op.declaration");
  EXPECT_NE(j.reason.find("no DECLARATION.json"), std::string::npos) << j.reason;
  declaration_ = json::Value();  // not even a record
  EXPECT_EQ(Judge("post.message").rule, "op.declaration");
}

TEST_F(JudgeOpTest, AnInvalidDeclarationIsRefusedWithItsError) {
  // Its content lists the op, but an invalid declaration declares nothing.
  declaration_ =
      Json(R"({"present":true,"valid":false,"error":"will: expected a list of strings",)"
           R"("content":{"will":"x","will_not":[],"ops":["post.message"],"external_acts":[]}})");
  OpJudgement j = Judge("post.message");
  EXPECT_FALSE(j.allowed);
  EXPECT_EQ(j.rule, "op.declaration");
  EXPECT_EQ(j.reason, "DECLARATION.json is invalid: will: expected a list of strings");
  declaration_ = Json(R"({"present":true,"valid":false})");
  EXPECT_EQ(Judge("post.message").reason, "DECLARATION.json is invalid");
}

TEST_F(JudgeOpTest, AnOpNotInTheDeclarationsOpsIsUndeclared) {
  // external_acts is what the drone says it does outside; only "ops" lets it ask the window.
  declaration_ = Declared({"git.push"}, {"post.message"});
  OpJudgement j = Judge("post.message");
  EXPECT_FALSE(j.allowed);
  EXPECT_EQ(j.rule, "op.undeclared");
  EXPECT_NE(j.reason.find("post.message"), std::string::npos) << j.reason;
}

TEST_F(JudgeOpTest, AnOpNotInTheMissionsOpsIsUnlisted) {
  mission_.ops = {"git.push"};
  OpJudgement j = Judge("post.message");
  EXPECT_FALSE(j.allowed);
  EXPECT_EQ(j.rule, "op.unlisted");
}

TEST_F(JudgeOpTest, APolicyDenyIsRefusedByItsRule) {
  mission_.ops.push_back("rm.rf");
  OpJudgement j = Judge("rm.rf");
  EXPECT_FALSE(j.allowed);
  EXPECT_EQ(j.rule, "ops.deny.rm.rf");
}

TEST_F(JudgeOpTest, AnOpThePolicyDoesNotKnowFollowsOpsUnknown) {
  mission_.ops.push_back("other.op");
  policy_.ops_unknown = OpAccess::kDeny;
  OpJudgement j = Judge("other.op");
  EXPECT_FALSE(j.allowed);
  EXPECT_EQ(j.rule, "ops.unknown");
  policy_.ops_unknown = OpAccess::kAllow;
  EXPECT_TRUE(Judge("other.op").allowed);
  policy_.ops_unknown = OpAccess::kGrant;
  EXPECT_EQ(Judge("other.op").rule, "ops.unknown");
  Grant({{"op", "other.op"}, {"mission", "M1"}, {"until", nullptr}});
  EXPECT_TRUE(Judge("other.op").allowed);
}

TEST_F(JudgeOpTest, AGrantListedOpNeedsAGrant) {
  OpJudgement j = Judge("git.push");
  EXPECT_FALSE(j.allowed);
  EXPECT_EQ(j.rule, "ops.grant.git.push");
  EXPECT_NE(j.reason.find("M1"), std::string::npos) << j.reason;
  EXPECT_NE(j.reason.find("alice"), std::string::npos) << j.reason;
}

TEST_F(JudgeOpTest, AGrantForTheMissionAllows) {
  Grant({{"op", "git.push"}, {"mission", "M1"}, {"until", nullptr}});
  EXPECT_TRUE(Judge("git.push").allowed);
}

TEST_F(JudgeOpTest, AGrantForTheRequesterAllows) {
  Grant({{"op", "git.push"}, {"requester", "alice"}});
  EXPECT_TRUE(Judge("git.push").allowed);
}

TEST_F(JudgeOpTest, AGrantForSomeoneOrSomethingElseDoesNot) {
  Grant({{"op", "git.push"}, {"mission", "M2"}});
  Grant({{"op", "git.push"}, {"requester", "bob"}});
  Grant({{"op", "post.message"}, {"mission", "M1"}});
  EXPECT_EQ(Judge("git.push").rule, "ops.grant.git.push");
}

TEST_F(JudgeOpTest, AnExpiredGrantDoesNotAllow) {
  Grant({{"op", "git.push"}, {"mission", "M1"}, {"until", FormatTime(kNow)}});  // until == now
  Grant({{"op", "git.push"}, {"requester", "alice"}, {"until", FormatTime(kNow - 1)}});
  EXPECT_EQ(Judge("git.push").rule, "ops.grant.git.push");
  Grant({{"op", "git.push"}, {"mission", "M1"}, {"until", FormatTime(kNow + 1)}});
  EXPECT_TRUE(Judge("git.push").allowed);
}

TEST_F(JudgeOpTest, ARevokedGrantDoesNotAllow) {
  Grant({{"op", "git.push"}, {"mission", "M1"}});
  GrantRecord revoke = GrantEntry(++seq_, {{"op", "git.push"}, {"mission", "M1"}});
  revoke.kind = "revoke";
  ASSERT_TRUE(grants_.Apply(revoke).ok());
  EXPECT_EQ(Judge("git.push").rule, "ops.grant.git.push");
}

TEST_F(JudgeOpTest, AFailedClosedLedgerRefusesEvenAnAllowedOp) {
  fail_closed_ = "anchor says seq 9, ledger ends at 7";
  OpJudgement j = Judge("post.message");
  EXPECT_FALSE(j.allowed);
  EXPECT_EQ(j.rule, "ledger.fail-closed");
  EXPECT_NE(j.reason.find("anchor says seq 9"), std::string::npos) << j.reason;
}

TEST_F(JudgeOpTest, AnOpWithoutAHandlerIsRefused) {
  has_handler_ = false;
  OpJudgement j = Judge("post.message");
  EXPECT_FALSE(j.allowed);
  EXPECT_EQ(j.rule, "op.handler");
}

// Several checks fail at once: the first in the documented order is the one reported.
TEST_F(JudgeOpTest, TheFirstFailingCheckInOrderIsReported) {
  has_handler_ = false;
  fail_closed_ = "broken";
  EXPECT_EQ(Judge("post.message").rule, "ledger.fail-closed");  // before op.handler
  EXPECT_EQ(Judge("git.push").rule, "ops.grant.git.push");      // before ledger.fail-closed
  mission_.ops.push_back("rm.rf");
  EXPECT_EQ(Judge("rm.rf").rule, "ops.deny.rm.rf");  // before ledger.fail-closed
  EXPECT_EQ(Judge("other.op").rule, "op.unlisted");  // before ops.unknown
  declaration_ = Declared({});
  EXPECT_EQ(Judge("other.op").rule, "op.undeclared");  // undeclared AND unlisted
  declaration_ = Json(R"({"present":true,"valid":false,"error":"e"})");
  EXPECT_EQ(Judge("other.op").rule, "op.declaration");
  declaration_ = Json(R"({"present":false})");
  EXPECT_EQ(Judge("other.op").rule, "op.declaration");
}

TEST(Declares, OnlyAValidDeclarationsListCounts) {
  json::Value d = Declared({"post.message"}, {"mail.send"});
  EXPECT_TRUE(Declares(d, "ops", "post.message"));
  EXPECT_FALSE(Declares(d, "ops", "mail.send"));
  EXPECT_TRUE(Declares(d, "external_acts", "mail.send"));
  EXPECT_FALSE(Declares(d, "external_acts", "post.message"));
  d["valid"] = false;
  EXPECT_FALSE(Declares(d, "ops", "post.message"));
  EXPECT_FALSE(Declares(Json(R"({"present":false})"), "ops", "post.message"));
}

}  // namespace
}  // namespace hangar
