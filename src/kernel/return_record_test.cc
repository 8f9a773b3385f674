#include "kernel/return_record.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

MissionRec Exited(int rc) {
  MissionRec rec;
  rec.phase = Phase::kRunning;
  rec.attempt = 1;
  rec.exited = true;
  ExitInfo e;
  e.rc = rc;
  rec.exit = e;
  return rec;
}

Observation WithHarness(const char* harness, json::Value report) {
  Observation obs;
  obs.checks = json::Array{};
  obs.declaration = json::Object{{"present", false}};
  obs.ops = json::Object{{"answered", json::Array{}}, {"unanswered", json::Array{}}};
  obs.harness = json::Object{{"harness", harness}, {"report", std::move(report)}};
  return obs;
}

TEST(ReturnRecord, ClaudesIsErrorWinsOverExitZero) {
  Observation obs = WithHarness("claude", json::Object{{"is_error", true}});
  json::Value r = BuildReturn("M", Exited(0), &obs, 1000);
  EXPECT_EQ(r["outcome"].as_string(), "failed");
  EXPECT_NE(r["reason"].as_string().find("is_error"), std::string::npos) << r["reason"].as_string();
}

TEST(ReturnRecord, ClaudeWithoutAResultIsNoSuccess) {
  Observation obs = WithHarness("claude", json::Object{{"present", false}});
  EXPECT_EQ(BuildReturn("M", Exited(0), &obs, 1000)["outcome"].as_string(), "failed");
}

TEST(ReturnRecord, ClaudeWithoutErrorAndCodexAreJudgedByExitAndChecks) {
  Observation ok = WithHarness("claude", json::Object{{"is_error", false}});
  EXPECT_EQ(BuildReturn("M", Exited(0), &ok, 1000)["outcome"].as_string(), "done");
  // Codex's report is evidence only: it never decides the outcome.
  Observation codex = WithHarness("codex", json::Object{{"errors", json::Array{"boom"}}});
  EXPECT_EQ(BuildReturn("M", Exited(0), &codex, 1000)["outcome"].as_string(), "done");
}

TEST(ReturnRecord, CarriesTheWindowRecordHarnessReportAndVerdict) {
  Observation obs = WithHarness("codex", json::Object{{"commands", json::Array{}}});
  json::Value r = BuildReturn("M", Exited(0), &obs, 1000);
  EXPECT_EQ(r["ops"], obs.ops);
  EXPECT_EQ(r["harness_reported"], obs.harness);
  EXPECT_EQ(r["verdict"]["verdict"].as_string(), "reassess");  // no declaration
  json::Value unrun = BuildReturn("M", Exited(0), nullptr, 1000);
  EXPECT_TRUE(unrun["verdict"].is_null());
  EXPECT_TRUE(unrun["ops"].is_null());
}

}  // namespace
}  // namespace hangar
