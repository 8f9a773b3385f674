#include "kernel/mission.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

const std::string kGood =
    R"({"hangar":1,"id":"m-1","requester":"ci","drone":"script","future":"f","now":"n",)"
    R"("constraints":["c"],"done_when":[{"file":"REPORT.md"},{"run":["true"],"rc":0,"timeout_s":5}],)"
    R"("acts":["write"],"ops":[],"network":"none","max_minutes":0.05,"notify":{"dir":"/tmp/inbox"}})";

ParseError Err(const std::string& text) {
  MissionOrError r = ParseMission(text);
  EXPECT_TRUE(std::holds_alternative<ParseError>(r)) << text;
  return std::holds_alternative<ParseError>(r) ? std::get<ParseError>(r) : ParseError{};
}

std::string With(const std::string& from, const std::string& to) {
  std::string s = kGood;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(Mission, ParsesEveryField) {
  MissionOrError r = ParseMission(kGood);
  ASSERT_TRUE(std::holds_alternative<Mission>(r)) << std::get<ParseError>(r).Text();
  const Mission& m = std::get<Mission>(r);
  EXPECT_EQ(m.id, "m-1");
  EXPECT_EQ(m.done_when.size(), 2u);
  EXPECT_EQ(m.done_when[1].kind, DoneCheck::Kind::kRun);
  EXPECT_EQ(m.done_when[1].timeout_ms, 5000);
  EXPECT_EQ(m.deadline_ms(), 3000);
  EXPECT_EQ(*m.notify_dir, "/tmp/inbox");
}

TEST(Mission, RejectsEachKindOfBadInputNamingTheField) {
  EXPECT_EQ(Err(With("\"network\"", "\"extra\":1,\"network\"")).field, "extra");
  EXPECT_EQ(Err(With("\"requester\":\"ci\"", "\"requester\":5")).field, "requester");
  EXPECT_EQ(Err(With("\"hangar\":1", "\"hangar\":2")).field, "hangar");
  EXPECT_EQ(Err(With("\"id\":\"m-1\"", "\"id\":\"-bad\"")).field, "id");
  EXPECT_EQ(Err(With("\"id\":\"m-1\"", "\"id\":\"a/b\"")).field, "id");
  EXPECT_EQ(Err(With("0.05", "0")).field, "max_minutes");
  EXPECT_EQ(Err(With("0.05", "1441")).field, "max_minutes");
  EXPECT_EQ(Err(With("\"rc\":0", "\"rc\":256")).field, "done_when[1].rc");
  EXPECT_EQ(Err(With("{\"file\":\"REPORT.md\"}", "{\"file\":\"../x\"}")).field,
            "done_when[0].file");
  EXPECT_EQ(Err(With("{\"file\":\"REPORT.md\"}", "{\"file\":\"a\",\"run\":[\"x\"]}")).field,
            "done_when[0]");
  EXPECT_EQ(Err(With("\"future\":\"f\",", "")).field, "future");
  EXPECT_EQ(Err(With("\"future\":\"f\",", "\"future\":\"f\",\"future\":\"g\",")).reason,
            "field given twice");
  EXPECT_EQ(Err(With("\"rc\":0", "\"rc\":0,\"rc\":1")).reason, "field given twice");
  EXPECT_EQ(Err(With("\"dir\":\"/tmp/inbox\"", "\"dir\":\"/a\",\"dir\":\"/b\"")).field,
            "notify.dir");
  EXPECT_EQ(Err("[1,2]").reason, "expected a JSON object");
  EXPECT_EQ(Err("{\"hangar\":1,").field, "");
  EXPECT_EQ(Err(With("\"f\"", "\"\xff\"")).reason, "not valid UTF-8");
  EXPECT_NE(Err(std::string(kMaxMissionBytes + 1, ' ')).reason.find("larger than 1 MiB"),
            std::string::npos);
}

TEST(Mission, IdSyntax) {
  EXPECT_TRUE(ValidId("A"));
  EXPECT_TRUE(ValidId("a.b_c-9"));
  EXPECT_TRUE(ValidId(std::string(64, 'x')));
  EXPECT_FALSE(ValidId(std::string(65, 'x')));
  EXPECT_FALSE(ValidId(""));
  EXPECT_FALSE(ValidId(".hidden"));
  EXPECT_FALSE(ValidId("a b"));
}

// Found by fuzz/mission: max_minutes 5e-63 is greater than 0, so intake took the mission, but its
// deadline (max_minutes x 60000 ms, rounded) is 0 ms, which stage 2 denies as a plan without a
// deadline: a mission accepted that could never run, refused later for the wrong reason.
TEST(Mission, TinyMaxMinutesRoundedToNoDeadline) {
  for (const char* tiny : {"5e-63", "0.000008", "1e-300"}) {
    ParseError e = Err(With("0.05", tiny));
    EXPECT_EQ(e.field, "max_minutes") << tiny;
    EXPECT_NE(e.reason.find("1 ms"), std::string::npos) << e.reason;
  }
  MissionOrError r = ParseMission(With("0.05", "0.0000084"));  // 0.504 ms: 1 ms, rounded
  ASSERT_TRUE(std::holds_alternative<Mission>(r)) << std::get<ParseError>(r).Text();
  EXPECT_EQ(std::get<Mission>(r).deadline_ms(), 1);
}

TEST(Mission, ReadsAWorkspaceAndTheChangedChecksThatNeedIt) {
  const std::string ws = R"("workspace":{"git":"/srv/repo","ref":"main"},"max_minutes")";
  MissionOrError r = ParseMission(With("\"max_minutes\"", ws));
  ASSERT_TRUE(std::holds_alternative<Mission>(r)) << std::get<ParseError>(r).Text();
  const Mission& m = std::get<Mission>(r);
  ASSERT_TRUE(m.workspace);
  EXPECT_EQ(m.workspace->git, "/srv/repo");
  EXPECT_EQ(m.workspace->ref, "main");
  MissionOrError head =
      ParseMission(With("\"max_minutes\"", R"("workspace":{"git":"/r"},"max_minutes")"));
  ASSERT_TRUE(std::holds_alternative<Mission>(head));
  EXPECT_EQ(std::get<Mission>(head).workspace->ref, "HEAD");  // the default
  const std::string changed = R"("done_when":[{"changed":{"max_files":3,"paths":["src/*"]}}],)";
  MissionOrError c = ParseMission(With(
      "\"done_when\":[{\"file\":\"REPORT.md\"},{\"run\":[\"true\"],\"rc\":0,\"timeout_s\":5}],",
      changed + std::string(R"("workspace":{"git":"/r"},)")));
  ASSERT_TRUE(std::holds_alternative<Mission>(c)) << std::get<ParseError>(c).Text();
  const DoneCheck& dc = std::get<Mission>(c).done_when[0];
  EXPECT_EQ(dc.kind, DoneCheck::Kind::kChanged);
  EXPECT_EQ(dc.max_files, 3);
  EXPECT_EQ(dc.paths, std::vector<std::string>{"src/*"});
  EXPECT_EQ(json::Write(dc.ToJson()), R"({"changed":{"max_files":3,"paths":["src/*"]}})");
}

TEST(Mission, RefusesABadWorkspaceNamingTheField) {
  auto ws = [](const std::string& w) {
    return Err(With("\"max_minutes\"", "\"workspace\":" + w + ",\"max_minutes\""));
  };
  EXPECT_EQ(ws(R"({"git":"repo"})").field, "workspace.git");                        // relative
  EXPECT_EQ(ws(R"({"ref":"main"})").field, "workspace.git");                        // missing
  EXPECT_EQ(ws(R"({"git":"/r","ref":"--upload-pack=x"})").field, "workspace.ref");  // an option
  EXPECT_EQ(ws(R"({"git":"/r","ref":"a b"})").field, "workspace.ref");
  EXPECT_EQ(ws(R"({"git":"/r","depth":1})").field, "workspace.depth");
  // A changed check without a workspace, and one that limits nothing.
  ParseError e = Err(With("{\"file\":\"REPORT.md\"}", R"({"changed":{"max_files":1}})"));
  EXPECT_EQ(e.field, "done_when[0]");
  EXPECT_NE(e.reason.find("no workspace"), std::string::npos) << e.reason;
  EXPECT_EQ(Err(With("{\"file\":\"REPORT.md\"}", R"({"changed":{}})")).field,
            "done_when[0].changed");
}

}  // namespace
}  // namespace hangar
