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

// return.json as the kernel writes it, read back.
json::Value Ret(const std::string& id, const MissionRec& rec, const Observation* obs,
                const DroneLimits& limits, TimeMs now) {
  Returned r = BuildReturn(id, rec, obs, limits, 7, now);
  json::Value v = json::Parse(r.text).value();
  EXPECT_EQ(v["outcome"].as_string(), r.outcome);
  EXPECT_EQ(v["ledger_seq"].as_int(), 7);
  return v;
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
  json::Value r = Ret("M", Exited(0), &obs, DroneLimits{}, 1000);
  EXPECT_EQ(r["outcome"].as_string(), "failed");
  EXPECT_NE(r["reason"].as_string().find("is_error"), std::string::npos) << r["reason"].as_string();
}

TEST(ReturnRecord, ClaudeWithoutAResultIsNoSuccess) {
  Observation obs = WithHarness("claude", json::Object{{"present", false}});
  EXPECT_EQ(Ret("M", Exited(0), &obs, DroneLimits{}, 1000)["outcome"].as_string(), "failed");
}

TEST(ReturnRecord, ClaudeWithoutErrorAndCodexAreJudgedByExitAndChecks) {
  Observation ok = WithHarness("claude", json::Object{{"is_error", false}});
  EXPECT_EQ(Ret("M", Exited(0), &ok, DroneLimits{}, 1000)["outcome"].as_string(), "done");
  // Codex's report is evidence only: it never decides the outcome.
  Observation codex = WithHarness("codex", json::Object{{"errors", json::Array{"boom"}}});
  EXPECT_EQ(Ret("M", Exited(0), &codex, DroneLimits{}, 1000)["outcome"].as_string(), "done");
}

TEST(ReturnRecord, CarriesTheWindowRecordHarnessReportAndVerdict) {
  Observation obs = WithHarness("codex", json::Object{{"commands", json::Array{}}});
  json::Value r = Ret("M", Exited(0), &obs, DroneLimits{}, 1000);
  EXPECT_EQ(r["ops"], obs.ops);
  EXPECT_EQ(r["harness_reported"], obs.harness);
  EXPECT_EQ(r["verdict"]["verdict"].as_string(), "reassess");  // no declaration
  json::Value unrun = Ret("M", Exited(0), nullptr, DroneLimits{}, 1000);
  EXPECT_TRUE(unrun["verdict"].is_null());
  EXPECT_TRUE(unrun["ops"].is_null());
  EXPECT_TRUE(unrun["limits"].is_null()) << "nothing observed, nothing reached";
}

// What the traces show of the limits: files at the cap, SIGXFSZ, op.rate refusals; never a
// file below the cap, a directory, or another refusal.
TEST(ReturnRecord, LimitsReachedAreThoseTheTracesShow) {
  DroneLimits lim;
  lim.file_mb = 1;
  Observation obs = WithHarness("codex", json::Object{});
  auto entry = [](const char* path, const char* type, int64_t size) {
    return json::Object{{"path", path}, {"type", type}, {"size", size}};
  };
  obs.room = json::Object{{"manifest", json::Array{entry("big", "file", 1 << 20),
                                                   entry("small", "file", (1 << 20) - 1),
                                                   entry("d", "dir", 4 << 20)}}};
  obs.ops = json::Object{{"answered", json::Array{json::Object{{"rule", "op.rate"}},
                                                  json::Object{{"rule", "op.undeclared"}},
                                                  json::Object{{"rule", "op.rate"}}}}};
  MissionRec rec = Exited(0);
  json::Value r = Ret("M", rec, &obs, lim, 1000)["limits"];
  EXPECT_EQ(r["in_force"]["file_mb"].as_int(), 1);
  EXPECT_EQ(r["in_force"]["memory_mb"].as_int(), DroneLimits{}.memory_mb);
  EXPECT_EQ(r["reached"], (json::Value(json::Array{
                              json::Object{{"limit", "file_mb"}, {"path", "big"}},
                              json::Object{{"limit", "ops_per_minute"}, {"refused", 2}}})));
  rec.exit->rc.reset();
  rec.exit->signal = 25;  // SIGXFSZ
  json::Value k = LimitsRecord(lim, rec, nullptr);
  EXPECT_EQ(k["reached"], (json::Value(json::Array{
                              json::Object{{"limit", "file_mb"}, {"signal", 25}}})));
  EXPECT_TRUE(LimitsRecord(lim, Exited(0), nullptr)["reached"].as_array().empty());
}

// return.json is written member by member (json::PrettyWriter): whatever members a return has
// (a mission or none, an exit or none, observed or not, a time unknown), its text is canonical,
// keys sorted, byte for byte what json::WritePretty writes of it read back, as every return
// before it was; an unrun return is the same record with its outcome and reason.
TEST(ReturnRecord, EveryShapeOfReturnIsCanonicalText) {
  Observation obs = WithHarness("claude", json::Object{{"is_error", false}});
  obs.files = json::Array{json::Object{{"file", "stdout"}, {"size", 3}}};
  obs.connections = json::Object{{"list", json::Array{}}};
  obs.change = json::Object{{"diff", "a\nb"}};
  for (int shape = 0; shape < 32; ++shape) {
    MissionRec rec = Exited(shape % 3);
    if (shape & 1) rec.mission = std::make_shared<Mission>();
    if (shape & 2) rec.exit.reset();
    if (shape & 4) rec.error = "launch failed: \"x\"";
    if ((shape & 8) && rec.exit) rec.exit->started = 1'700'000'000'000;
    for (const Observation* o : std::initializer_list<const Observation*>{&obs, nullptr}) {
      Returned r = BuildReturn("M1", rec, o, DroneLimits{}, 42, 1'700'000'001'000);
      EXPECT_EQ(json::WritePretty(json::Parse(r.text).value()), r.text) << "shape " << shape;
    }
    Returned u = BuildUnrunReturn("M1", rec, "cancelled", "asked", DroneLimits{}, 9, 5);
    json::Value v = json::Parse(u.text).value();
    EXPECT_EQ(json::WritePretty(v), u.text) << "shape " << shape;
    EXPECT_EQ(u.outcome, "cancelled");
    EXPECT_EQ(v["outcome"].as_string(), "cancelled");
    EXPECT_EQ(v["reason"].as_string(), "asked");
    EXPECT_EQ(v["ledger_seq"].as_int(), 9);
    EXPECT_TRUE(v["room"].is_null());
  }
}

}  // namespace
}  // namespace hangar
