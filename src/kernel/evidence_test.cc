// Declaration versus evidence: what the drone said against what went through the window.
#include "kernel/evidence.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

json::Value Json(const std::string& text) {
  Result<json::Value> v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? v.value() : json::Value();
}

// shell/declaration.h's record of a valid DECLARATION.json.
json::Value Declared(const std::vector<std::string>& ops,
                     const std::vector<std::string>& external_acts = {}) {
  json::Object content{{"will", json::Array{}},
                       {"will_not", json::Array{}},
                       {"ops", json::Array(ops.begin(), ops.end())},
                       {"external_acts", json::Array(external_acts.begin(), external_acts.end())}};
  return json::Object{{"present", true}, {"valid", true}, {"content", std::move(content)}};
}

// Observation::ops: {"answered": [...], "unanswered": [...], "omitted": N}.
json::Value Ops(const std::string& answered, const std::string& unanswered = "") {
  return Json(R"({"answered":[)" + answered + R"(],"unanswered":[)" + unanswered +
              R"(],"omitted":0})");
}

std::string Answered(const std::string& request, const std::string& op, const std::string& status,
                     const std::string& rule = "") {
  return R"({"request":")" + request + R"(","op":")" + op + R"(","key":"k-)" + request +
         R"(","status":")" + status + R"(","rule":)" +
         (rule.empty() ? std::string("null") : '"' + rule + '"') + "}";
}

std::string Str(const json::Value& v, const char* k) {
  const json::Value* x = v.find(k);
  return x && x->is_string() ? x->as_string() : "(missing)";
}

std::vector<std::string> List(const json::Value& v, const char* k) {
  std::vector<std::string> out;
  const json::Value* x = v.find(k);
  if (x && x->is_array())
    for (const json::Value& e : x->as_array()) out.push_back(e.is_string() ? e.as_string() : "?");
  return out;
}

TEST(JudgeEvidence, ADeclarationThatMatchesIsAllowed) {
  json::Value v = JudgeEvidence(Declared({"post.message"}),
                                Ops(Answered("p1", "post.message", "executed") + "," +
                                    Answered("p2", "post.message", "refused", "ops.unknown")));
  EXPECT_EQ(Str(v, "verdict"), "allow");
  EXPECT_EQ(Str(v, "text"), "allow: declaration matches evidence");
  EXPECT_TRUE(List(v, "reasons").empty());
  EXPECT_TRUE(List(v, "notes").empty());
}

TEST(JudgeEvidence, NoEvidenceAndAnEmptyDeclarationIsAllowed) {
  json::Value v = JudgeEvidence(Declared({}), Ops(""));
  EXPECT_EQ(Str(v, "verdict"), "allow");
  EXPECT_EQ(Str(v, "text"), "allow: declaration matches evidence");
}

TEST(JudgeEvidence, NoDeclarationIsReassessed) {
  json::Value v = JudgeEvidence(Json(R"({"present":false})"), Ops(""));
  EXPECT_EQ(Str(v, "verdict"), "reassess");
  EXPECT_EQ(List(v, "reasons"), std::vector<std::string>{"no DECLARATION.json in the room"});
  EXPECT_EQ(Str(v, "text"), "reassess: no DECLARATION.json in the room");
}

TEST(JudgeEvidence, AnInvalidDeclarationIsReassessedWithItsError) {
  json::Value v =
      JudgeEvidence(Json(R"({"present":true,"valid":false,"error":"ops: missing"})"), Ops(""));
  EXPECT_EQ(Str(v, "verdict"), "reassess");
  EXPECT_EQ(Str(v, "text"), "reassess: DECLARATION.json is invalid: ops: missing");
  v = JudgeEvidence(Json(R"({"present":true,"valid":false})"), Ops(""));
  EXPECT_EQ(List(v, "reasons"), std::vector<std::string>{"DECLARATION.json is invalid"});
}

TEST(JudgeEvidence, AnAnsweredRequestOfAnUndeclaredOpIsReassessed) {
  // Refused by the window, but the drone still asked for what it had not declared.
  json::Value v = JudgeEvidence(Declared({"post.message"}),
                                Ops(Answered("p7", "git.push", "refused", "op.undeclared")));
  EXPECT_EQ(Str(v, "verdict"), "reassess");
  const std::vector<std::string> reasons = List(v, "reasons");
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_EQ(reasons[0],
            "op git.push requested (ops/p7.json) but not declared in DECLARATION.json's ops");
  EXPECT_EQ(reasons[0].find("left unanswered"), std::string::npos);
}

TEST(JudgeEvidence, AnUnansweredRequestOfAnUndeclaredOpIsReassessed) {
  json::Value v =
      JudgeEvidence(Declared({"post.message"}), Ops("", R"({"request":"late","op":"git.push"})"));
  EXPECT_EQ(Str(v, "verdict"), "reassess");
  const std::vector<std::string> reasons = List(v, "reasons");
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("op git.push requested (ops/late.json)"), std::string::npos)
      << reasons[0];
  EXPECT_NE(reasons[0].find("left unanswered"), std::string::npos) << reasons[0];
}

TEST(JudgeEvidence, AnUnparsedUnansweredRequestNamesNoOp) {
  json::Value v = JudgeEvidence(Declared({}), Ops("", R"({"request":"junk","op":null})"));
  EXPECT_EQ(Str(v, "verdict"), "allow");
}

TEST(JudgeEvidence, AnExecutedActTheFinalDeclarationDoesNotListIsCaught) {
  // The drone declared post.message, ran it, then rewrote DECLARATION.json without it.
  json::Value v =
      JudgeEvidence(Declared({}, {"none"}), Ops(Answered("p1", "post.message", "executed")));
  EXPECT_EQ(Str(v, "verdict"), "reassess");
  const std::vector<std::string> reasons = List(v, "reasons");
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[1], "external act post.message executed (ops/p1.json) but not declared");
}

TEST(JudgeEvidence, AnExecutedActListedAsExternalIsNotAnUndeclaredAct) {
  json::Value v = JudgeEvidence(Declared({}, {"post.message"}),
                                Ops(Answered("p1", "post.message", "executed")));
  const std::vector<std::string> reasons = List(v, "reasons");
  ASSERT_EQ(reasons.size(), 1u);  // only "requested but not declared in ops"
  EXPECT_EQ(reasons[0].find("external act"), std::string::npos) << reasons[0];
  // Not executed (refused, error): not an external act either.
  v = JudgeEvidence(Declared({}), Ops(Answered("p1", "post.message", "refused", "op.undeclared")));
  for (const std::string& r : List(v, "reasons"))
    EXPECT_EQ(r.find("external act"), std::string::npos) << r;
}

TEST(JudgeEvidence, ADeclaredOpNeverRequestedIsANoteNotAReason) {
  json::Value v = JudgeEvidence(Declared({"post.message", "git.push"}),
                                Ops(Answered("p1", "post.message", "executed")));
  EXPECT_EQ(Str(v, "verdict"), "allow");
  EXPECT_EQ(Str(v, "text"), "allow: declaration matches evidence");
  EXPECT_EQ(List(v, "notes"), std::vector<std::string>{"declared op git.push never requested"});
  // An unanswered request counts as requested.
  v = JudgeEvidence(Declared({"git.push"}), Ops("", R"({"request":"q","op":"git.push"})"));
  EXPECT_TRUE(List(v, "notes").empty());
}

TEST(JudgeEvidence, TheTextJoinsEveryReason) {
  json::Value v = JudgeEvidence(Declared({"post.message"}),
                                Ops(Answered("a", "git.push", "refused", "op.undeclared"),
                                    R"({"request":"b","op":"rm.rf"})"));
  const std::vector<std::string> reasons = List(v, "reasons");
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(Str(v, "text"), "reassess: " + reasons[0] + "; " + reasons[1]);
  EXPECT_NE(reasons[0].find("git.push"), std::string::npos);
  EXPECT_NE(reasons[1].find("rm.rf"), std::string::npos);
}

}  // namespace
}  // namespace hangar
