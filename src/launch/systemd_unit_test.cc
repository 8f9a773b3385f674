#include "launch/systemd_unit.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace hangar {
namespace {

using Argv = std::vector<std::string>;
using State = EngineReport::State;

// What systemctl 252 printed (src/launch/testdata/systemd/README says how they were recorded).
std::string ReadTestdata(const std::string& name) {
  std::filesystem::path p =
      std::filesystem::path(__FILE__).parent_path() / "testdata" / "systemd" / name;
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Mon 2026-11-30 12:00:00.123 UTC, the recorded units' start.
constexpr TimeMs kStart = 1796040000123;

Plan MakePlan() {
  Plan p;
  p.id = "W-1";
  p.attempt = 1;
  p.launcher = "systemd";
  p.room = "/srv/hangar/rooms/W-1";
  p.run = "/srv/hangar/spool/running/W-1/run";
  p.deadline_ms = p.enforced_deadline_ms = 30 * 60 * 1000;
  return p;
}

const char kShim[] = "/opt/hangar/bin/hangar-shim";
const char kPlanFile[] = "/srv/hangar/spool/running/W-1/plan.json";
const char kSha[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

TEST(SystemdUnit, UnitNameIsHangarIdAttempt) {
  EXPECT_EQ(UnitName("W-1", 1), "hangar-W-1-1.service");
  EXPECT_EQ(UnitName("W-1-other", 12), "hangar-W-1-other-12.service");
}

TEST(SystemdUnit, RunArgvForTheSystemManager) {
  Argv want = {
      "systemd-run",
      "--unit=hangar-W-1-1.service",
      "--description=hangar W-1 attempt 1",
      "--quiet",
      "--collect",
      "--property=Type=exec",
      "--property=RuntimeMaxSec=1800",
      "--property=TimeoutStopSec=1",
      "--setenv=HANGAR_UNIT=hangar-W-1-1.service",
      "--working-directory=/srv/hangar/rooms/W-1",
      "--property=ExecStopPost=:\"/opt/hangar/bin/hangar-shim\" --unit-ended "
      "\"/srv/hangar/spool/running/W-1/run\"",
      "--",
      kShim,
      "--exec",
      kPlanFile,
      kSha,
  };
  EXPECT_EQ(SystemdRunArgv(MakePlan(), kShim, kPlanFile, kSha, SystemdOptions{}), want);
}

TEST(SystemdUnit, RunArgvForTheUsersManager) {
  SystemdOptions o;
  o.user = true;
  o.systemd_run = "/usr/bin/systemd-run";
  Plan p = MakePlan();
  p.attempt = 3;
  Argv got = SystemdRunArgv(p, kShim, kPlanFile, kSha, o);
  ASSERT_GE(got.size(), 4u);
  EXPECT_EQ(got[0], "/usr/bin/systemd-run");
  EXPECT_EQ(got[1], "--user");
  EXPECT_EQ(got[2], "--unit=hangar-W-1-3.service");
  EXPECT_EQ(got[3], "--description=hangar W-1 attempt 3");
  Argv rest(got.begin() + 2, got.end());
  Argv system = SystemdRunArgv(p, kShim, kPlanFile, kSha, SystemdOptions{});
  EXPECT_EQ(rest, Argv(system.begin() + 1, system.end())) << "--user is the only difference";
}

// The config's limits become the unit's cgroup limits, a total across the drone's processes.
TEST(SystemdUnit, LimitsAreTheUnitsResourceControl) {
  Plan p = MakePlan();
  p.memory_mb = 2048;
  p.processes = 256;
  Argv got = SystemdRunArgv(p, kShim, kPlanFile, kSha, SystemdOptions{});
  Argv none = SystemdRunArgv(MakePlan(), kShim, kPlanFile, kSha, SystemdOptions{});
  auto at = std::find(got.begin(), got.end(), "--working-directory=/srv/hangar/rooms/W-1");
  ASSERT_NE(at, got.end());
  EXPECT_EQ(*(at + 1), "--property=MemoryMax=2048M");
  EXPECT_EQ(*(at + 2), "--property=TasksMax=256");
  got.erase(at + 1, at + 3);
  EXPECT_EQ(got, none) << "the two properties are the only difference";
}

// RuntimeMaxSec is the plan's enforced deadline in whole seconds, rounded up: never less time than
// the plan says.
TEST(SystemdUnit, RuntimeMaxSecRoundsTheDeadlineUp) {
  auto max_sec = [](int64_t ms) {
    Plan p = MakePlan();
    p.enforced_deadline_ms = ms;  // what the gate passed; BuildPlan rounds it up already
    return SystemdRunArgv(p, kShim, kPlanFile, kSha, SystemdOptions{})[6];
  };
  EXPECT_EQ(max_sec(1), "--property=RuntimeMaxSec=1");
  EXPECT_EQ(max_sec(999), "--property=RuntimeMaxSec=1");
  EXPECT_EQ(max_sec(1000), "--property=RuntimeMaxSec=1");
  EXPECT_EQ(max_sec(1001), "--property=RuntimeMaxSec=2");
  EXPECT_EQ(max_sec(60000), "--property=RuntimeMaxSec=60");
  EXPECT_EQ(max_sec(0), "--property=RuntimeMaxSec=1") << "0 would not mean no limit";
  // The grace between SIGTERM and SIGKILL is the plan's, at least a second (0: never a SIGKILL).
  Plan p = MakePlan();
  p.grace_ms = 5000;
  EXPECT_EQ(SystemdRunArgv(p, kShim, kPlanFile, kSha, SystemdOptions{})[7],
            "--property=TimeoutStopSec=5");
  p.grace_ms = 0;
  EXPECT_EQ(SystemdRunArgv(p, kShim, kPlanFile, kSha, SystemdOptions{})[7],
            "--property=TimeoutStopSec=1");
}

// A room with a space, '$' and '%': systemd 252 expands $ in ExecStart's arguments ($$ is a '$')
// but resolves no % specifier of a transient unit; ExecStopPost's ':' turns expansion off, and its
// words are split by systemd-run as systemd.syntax(7) quotes them.
TEST(SystemdUnit, RunArgvTakesSpaceDollarAndPercentLiterally) {
  Plan p = MakePlan();
  p.room = "/home/a b/$HOME/100%n";
  p.run = "/home/a b/$HOME/100%n/run \"q\" \\";
  std::string shim = "/opt/my tools%i/hangar-shim";
  std::string plan_file = "/home/a b/${X}$Y/100%n/plan.json";
  Argv got = SystemdRunArgv(p, shim, plan_file, kSha, SystemdOptions{});
  Argv want = {
      "systemd-run",
      "--unit=hangar-W-1-1.service",
      "--description=hangar W-1 attempt 1",
      "--quiet",
      "--collect",
      "--property=Type=exec",
      "--property=RuntimeMaxSec=1800",
      "--property=TimeoutStopSec=1",
      "--setenv=HANGAR_UNIT=hangar-W-1-1.service",
      "--working-directory=/home/a b/$HOME/100%n",
      "--property=ExecStopPost=:\"/opt/my tools%i/hangar-shim\" --unit-ended "
      "\"/home/a b/$HOME/100%n/run \\\"q\\\" \\\\\"",
      "--",
      "/opt/my tools%i/hangar-shim",
      "--exec",
      "/home/a b/$${X}$$Y/100%n/plan.json",
      kSha,
  };
  EXPECT_EQ(got, want);
  EXPECT_TRUE(CheckSystemdShim(shim).ok());
}

TEST(SystemdUnit, RunArgvWritesControlCharactersAsHexEscapes) {
  Plan p = MakePlan();
  p.run = "/tmp/a\nb\tc";
  EXPECT_EQ(SystemdRunArgv(p, kShim, kPlanFile, kSha, SystemdOptions{})[10],
            "--property=ExecStopPost=:\"/opt/hangar/bin/hangar-shim\" --unit-ended "
            "\"/tmp/a\\x0ab\\x09c\"");
}

// systemd-run finds the program on disk before it sends it, so "$$" cannot be written there, and
// systemd would expand a '$' in the argv[0] it gives the shim: the launcher refuses such a path.
TEST(SystemdUnit, ShimWithDollarIsRefused) {
  Status s = CheckSystemdShim("/opt/$HOME/hangar-shim");
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_EQ(s.message(),
            "cannot run /opt/$HOME/hangar-shim under systemd-run: systemd would expand the '$' in "
            "its argv[0]");
  EXPECT_FALSE(CheckSystemdShim("hangar-shim").ok());
  EXPECT_FALSE(CheckSystemdShim("/opt/a\nb/hangar-shim").ok());
  EXPECT_TRUE(CheckSystemdShim(kShim).ok());
}

TEST(SystemdUnit, ShowAndStopArgv) {
  SystemdOptions o;
  EXPECT_EQ(SystemctlShowArgv({"hangar-W-1-1.service", "hangar-W-2-1.service"}, o),
            (Argv{"systemctl", "show", "--timestamp=us+utc", "-p",
                  "Id,LoadState,ActiveState,SubState,Result,ExecMainStatus,ExecMainCode,"
                  "ExecMainStartTimestamp,ExecMainExitTimestamp",
                  "--", "hangar-W-1-1.service", "hangar-W-2-1.service"}));
  EXPECT_EQ(SystemctlStopArgv("hangar-W-1-1.service", o),
            (Argv{"systemctl", "stop", "--no-block", "--", "hangar-W-1-1.service"}));
  o.user = true;
  o.systemctl = "/bin/systemctl";
  EXPECT_EQ(SystemctlStopArgv("hangar-W-1-1.service", o),
            (Argv{"/bin/systemctl", "--user", "stop", "--no-block", "--", "hangar-W-1-1.service"}));
  Argv show = SystemctlShowArgv({"hangar-W-1-1.service"}, o);
  ASSERT_EQ(show.size(), 8u);
  EXPECT_EQ(show[1], "--user");
  EXPECT_EQ(show[2], "show");
}

EngineReport ShowOne(const std::string& file, const std::string& unit) {
  std::string text = ReadTestdata(file);
  EXPECT_FALSE(text.empty()) << "missing src/launch/testdata/systemd/" << file;
  Result<std::vector<EngineReport>> r = ParseSystemctlShow(text, {unit});
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok() || r->size() != 1) return {};
  EXPECT_EQ((*r)[0].id, unit);
  EXPECT_EQ((*r)[0].name, unit);
  return (*r)[0];
}

TEST(SystemdShow, Running) {
  EngineReport r = ShowOne("show_running.txt", "hangar-run-1.service");
  EXPECT_EQ(r.state, State::kRunning);
  EXPECT_EQ(r.exit.started, kStart);
  EXPECT_EQ(r.exit.ended, 0);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_EQ(r.detail, "ActiveState=active SubState=running Result=success");
}

TEST(SystemdShow, Activating) {
  EngineReport r = ShowOne("show_activating.txt", "hangar-start-1.service");
  EXPECT_EQ(r.state, State::kPending);
}

TEST(SystemdShow, ExitedZero) {
  EngineReport r = ShowOne("show_exited_0.txt", "hangar-exit0-1.service");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_EQ(r.exit.rc, 0);
  EXPECT_FALSE(r.exit.signal);
  EXPECT_FALSE(r.exit.timed_out);
  EXPECT_EQ(r.exit.started, kStart);
  EXPECT_EQ(r.exit.ended, kStart + 90531);
  EXPECT_EQ(r.exit.error, "");
}

TEST(SystemdShow, ExitedThree) {
  EngineReport r = ShowOne("show_exited_3.txt", "hangar-exit3-1.service");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_EQ(r.exit.rc, 3);
  EXPECT_FALSE(r.exit.signal);
  EXPECT_FALSE(r.exit.timed_out);
  EXPECT_EQ(r.detail, "ActiveState=failed SubState=failed Result=exit-code");
}

TEST(SystemdShow, KilledBySigkill) {
  EngineReport r = ShowOne("show_killed_kill.txt", "hangar-kill-1.service");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_EQ(r.exit.signal, 9);
  EXPECT_FALSE(r.exit.timed_out);
  EXPECT_EQ(r.exit.ended, kStart + 12000);
}

// RuntimeMaxSec ran out: systemd stopped the unit with SIGTERM (ExecMainCode=2, status 15).
TEST(SystemdShow, TimeoutAfterRuntimeMaxSec) {
  EngineReport r = ShowOne("show_timeout.txt", "hangar-timeout-1.service");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_TRUE(r.exit.timed_out);
  EXPECT_EQ(r.exit.signal, 15);
  EXPECT_FALSE(r.exit.rc);
  EXPECT_EQ(r.exit.ended, kStart + 60002);
  EXPECT_EQ(r.detail, "ActiveState=failed SubState=failed Result=timeout");
}

// systemctl stop: SIGTERM is a clean end for a service, so Result stays success.
TEST(SystemdShow, StoppedBySystemctlStop) {
  EngineReport r = ShowOne("show_stopped.txt", "hangar-stop-1.service");
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_EQ(r.exit.signal, 15);
  EXPECT_FALSE(r.exit.timed_out);
  EXPECT_EQ(r.detail, "ActiveState=inactive SubState=dead Result=success");
}

TEST(SystemdShow, NotFoundIsUnknown) {
  EngineReport r = ShowOne("show_not_found.txt", "hangar-gone-1.service");
  EXPECT_EQ(r.state, State::kUnknown);
  EXPECT_EQ(r.detail, "LoadState=not-found");
  EXPECT_EQ(r.exit.started, 0);
}

TEST(SystemdShow, TwoUnitsInOneCallInTheirOrder) {
  std::string text = ReadTestdata("show_two_units.txt");
  auto r = ParseSystemctlShow(text, {"hangar-W-1-1.service", "hangar-W-1-other-1.service"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].id, "hangar-W-1-1.service");
  EXPECT_EQ((*r)[0].state, State::kRunning);
  EXPECT_EQ((*r)[1].id, "hangar-W-1-other-1.service");
  EXPECT_EQ((*r)[1].state, State::kUnknown);
}

// W-1 must never be taken for W-1-other: a block is matched by its whole Id=.
TEST(SystemdShow, BlockOfAnotherUnitIsInvalid) {
  std::string text = ReadTestdata("show_two_units.txt");
  auto swapped = ParseSystemctlShow(text, {"hangar-W-1-other-1.service", "hangar-W-1-1.service"});
  ASSERT_FALSE(swapped.ok());
  EXPECT_EQ(swapped.status().code(), Code::kInvalid);
  EXPECT_EQ(swapped.status().message(),
            "cannot read systemctl show: unit 1 (hangar-W-1-other-1.service): "
            "Id=hangar-W-1-1.service, expected hangar-W-1-other-1.service");

  std::string other = text.substr(text.find("\n\n") + 2);  // the W-1-other block alone
  auto prefix = ParseSystemctlShow(other, {"hangar-W-1-1.service"});
  ASSERT_FALSE(prefix.ok());
  EXPECT_NE(prefix.status().message().find("Id=hangar-W-1-other-1.service, expected "
                                           "hangar-W-1-1.service"),
            std::string::npos);
  auto shorter = ParseSystemctlShow(ReadTestdata("show_running.txt"), {"hangar-run-1"});
  EXPECT_FALSE(shorter.ok()) << "hangar-run-1 is not hangar-run-1.service";
}

TEST(SystemdShow, BlockCountMustMatchUnits) {
  std::string two = ReadTestdata("show_two_units.txt");
  auto r = ParseSystemctlShow(two, {"hangar-W-1-1.service"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cannot read systemctl show: output: 2 blocks for 1 units");
  EXPECT_FALSE(ParseSystemctlShow("", {"hangar-W-1-1.service"}).ok());
  auto none = ParseSystemctlShow("", {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// A lost separator merges two units into one block: its keys come twice.
TEST(SystemdShow, MergedBlocksAreInvalid) {
  std::string two = ReadTestdata("show_two_units.txt");
  std::string merged = two.replace(two.find("\n\n"), 2, "\n");
  auto r = ParseSystemctlShow(merged, {"hangar-W-1-1.service"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("Result= twice"), std::string::npos) << r.status().message();
}

TEST(SystemdShow, MalformedPropertiesAreInvalid) {
  std::string run = ReadTestdata("show_running.txt");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = run;
    size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  auto message = [](const std::string& text) {
    auto r = ParseSystemctlShow(text, {"hangar-run-1.service"});
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(message(with("ExecMainCode=0\n", "ExecMainCode=7\n")),
            "cannot read systemctl show: unit 1 (hangar-run-1.service): ExecMainCode=7, expected "
            "0, 1, 2 or 3");
  EXPECT_EQ(message(with("ExecMainStatus=0\n", "")),
            "cannot read systemctl show: unit 1 (hangar-run-1.service): no ExecMainStatus=");
  EXPECT_EQ(
      message(with("ActiveState=active", "ActiveState=exploded"))
          .find("cannot read systemctl show: unit 1 (hangar-run-1.service): ActiveState=exploded, "
                "expected activating"),
      0u);
  EXPECT_EQ(message(with("Id=hangar-run-1.service\n", "")),
            "cannot read systemctl show: unit 1 (hangar-run-1.service): no Id=");
  EXPECT_EQ(message(with("SubState=running", "SubState running")),
            "cannot read systemctl show: line 9: expected KEY=VALUE");
}

// systemd shows a time in the zone asked for; only the us+utc form is read, others are left 0.
TEST(SystemdShow, TimestampsOtherThanUtcAreLeftZero) {
  std::string t = ReadTestdata("show_exited_3.txt");
  std::string plain = t;
  plain.replace(plain.find("12:00:00.123456 UTC"), 19, "12:00:00 UTC");
  EXPECT_EQ(ParseSystemctlShow(plain, {"hangar-exit3-1.service"})->at(0).exit.started,
            kStart - 123);
  std::string jst = t;
  jst.replace(jst.find("12:00:00.123456 UTC"), 19, "21:00:00.123456 JST");
  EngineReport r = ParseSystemctlShow(jst, {"hangar-exit3-1.service"})->at(0);
  EXPECT_EQ(r.exit.started, 0);
  EXPECT_EQ(r.exit.ended, kStart + 90531);
  std::string na = t;
  na.replace(na.find("Mon 2026-11-30 12:00:00.123456 UTC"), 34, "n/a");
  EXPECT_EQ(ParseSystemctlShow(na, {"hangar-exit3-1.service"})->at(0).exit.started, 0);
}

// Failed before there was a main process (Result=resources): ended, with an error.
TEST(SystemdShow, FailedWithoutMainProcessIsAnError) {
  std::string t = ReadTestdata("show_exited_3.txt");
  t.replace(t.find("ExecMainCode=1"), 14, "ExecMainCode=0");
  t.replace(t.find("Result=exit-code"), 16, "Result=resources");
  EngineReport r = ParseSystemctlShow(t, {"hangar-exit3-1.service"})->at(0);
  EXPECT_EQ(r.state, State::kEnded);
  EXPECT_EQ(r.exit.error, "systemd started no main process (Result=resources)");
  EXPECT_FALSE(r.exit.rc);
}

std::map<std::string, std::string> EndEnv(const std::string& result, const std::string& code,
                                          const std::string& status) {
  return {{"HANGAR_UNIT", "hangar-W-1-1.service"},
          {"SERVICE_RESULT", result},
          {"EXIT_CODE", code},
          {"EXIT_STATUS", status},
          {"PATH", "/usr/bin"}};
}

constexpr TimeMs kEnd = 1796040090654;  // 2026-11-30T12:01:30.654Z

TEST(SystemdUnitEnded, RecordKeepsWhatSystemdSaid) {
  json::Value v = UnitEndedRecord(EndEnv("exit-code", "exited", "3"), kEnd);
  EXPECT_EQ(json::Write(v),
            "{\"exit_code\":\"exited\",\"exit_status\":\"3\",\"hangar\":1,"
            "\"service_result\":\"exit-code\",\"time\":\"2026-11-30T12:01:30.654Z\","
            "\"unit\":\"hangar-W-1-1.service\"}");
}

TEST(SystemdUnitEnded, ExitedRoundTrip) {
  auto r = ReportFromUnitEnded(UnitEndedRecord(EndEnv("exit-code", "exited", "3"), kEnd));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kEnded);
  EXPECT_EQ(r->id, "hangar-W-1-1.service");
  EXPECT_EQ(r->name, "hangar-W-1-1.service");
  EXPECT_EQ(r->exit.rc, 3);
  EXPECT_FALSE(r->exit.signal);
  EXPECT_FALSE(r->exit.timed_out);
  EXPECT_EQ(r->exit.ended, kEnd);
  EXPECT_EQ(r->detail, "SERVICE_RESULT=exit-code EXIT_CODE=exited EXIT_STATUS=3");

  auto zero = ReportFromUnitEnded(UnitEndedRecord(EndEnv("success", "exited", "0"), kEnd));
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->exit.rc, 0);
}

TEST(SystemdUnitEnded, KilledRoundTrip) {
  auto r = ReportFromUnitEnded(UnitEndedRecord(EndEnv("signal", "killed", "KILL"), kEnd));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exit.signal, 9);
  EXPECT_FALSE(r->exit.rc);
  EXPECT_FALSE(r->exit.timed_out);
  auto dumped = ReportFromUnitEnded(UnitEndedRecord(EndEnv("core-dump", "dumped", "SEGV"), kEnd));
  ASSERT_TRUE(dumped.ok());
  EXPECT_EQ(dumped->exit.signal, 11);
  auto stopped = ReportFromUnitEnded(UnitEndedRecord(EndEnv("success", "killed", "TERM"), kEnd));
  ASSERT_TRUE(stopped.ok());
  EXPECT_EQ(stopped->exit.signal, 15);
  auto rt = ReportFromUnitEnded(UnitEndedRecord(EndEnv("signal", "killed", "RTMIN+2"), kEnd));
  ASSERT_TRUE(rt.ok());
  EXPECT_EQ(rt->exit.signal, SIGRTMIN + 2);
  auto number = ReportFromUnitEnded(UnitEndedRecord(EndEnv("signal", "killed", "64"), kEnd));
  ASSERT_TRUE(number.ok());
  EXPECT_EQ(number->exit.signal, 64);
}

TEST(SystemdUnitEnded, TimeoutRoundTrip) {
  auto r = ReportFromUnitEnded(UnitEndedRecord(EndEnv("timeout", "killed", "TERM"), kEnd));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->exit.timed_out);
  EXPECT_EQ(r->exit.signal, 15);
  // The drone caught SIGTERM and exited 1: still a timeout.
  auto caught = ReportFromUnitEnded(UnitEndedRecord(EndEnv("timeout", "exited", "1"), kEnd));
  ASSERT_TRUE(caught.ok());
  EXPECT_TRUE(caught->exit.timed_out);
  EXPECT_EQ(caught->exit.rc, 1);
}

// systemd sets no EXIT_CODE/EXIT_STATUS when it started no main process.
TEST(SystemdUnitEnded, NoMainProcessIsAnError) {
  json::Value v = UnitEndedRecord(
      {{"HANGAR_UNIT", "hangar-W-1-1.service"}, {"SERVICE_RESULT", "resources"}}, kEnd);
  EXPECT_TRUE(v.find("exit_code")->is_null());
  EXPECT_TRUE(v.find("exit_status")->is_null());
  auto r = ReportFromUnitEnded(v);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->state, State::kEnded);
  EXPECT_EQ(r->exit.error, "systemd started no main process (SERVICE_RESULT=resources)");
  EXPECT_FALSE(r->exit.rc);
  EXPECT_FALSE(r->exit.signal);
}

TEST(SystemdUnitEnded, MalformedRecordsNameTheField) {
  auto message = [](json::Value v) {
    auto r = ReportFromUnitEnded(v);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string("ok") : r.status().message();
  };
  auto good = [] { return UnitEndedRecord(EndEnv("exit-code", "exited", "3"), kEnd); };
  auto with = [&](const std::string& k, json::Value x) {
    json::Value v = good();
    v[k] = std::move(x);
    return v;
  };
  EXPECT_EQ(message(json::Value("x")), "unit-ended.json: : expected an object");
  EXPECT_EQ(message(with("hangar", 2)), "unit-ended.json: hangar: expected 1");
  EXPECT_EQ(message(with("unit", nullptr)), "unit-ended.json: unit: expected the unit's name");
  EXPECT_EQ(message(with("service_result", "")),
            "unit-ended.json: service_result: expected $SERVICE_RESULT, such as success");
  EXPECT_EQ(message(with("time", "yesterday")),
            "unit-ended.json: time: expected a time such as 2026-11-29T19:05:43.123Z");
  EXPECT_EQ(message(with("exit_code", "trapped")),
            "unit-ended.json: exit_code: expected exited, killed or dumped");
  EXPECT_EQ(message(with("exit_code", nullptr)),
            "unit-ended.json: exit_code: expected exited, killed or dumped");
  EXPECT_EQ(message(with("exit_status", "TERM")),
            "unit-ended.json: exit_status: expected an exit status 0-255");
  EXPECT_EQ(message(with("exit_status", "256")),
            "unit-ended.json: exit_status: expected an exit status 0-255");
  EXPECT_EQ(message(with("exit_status", "-1")),
            "unit-ended.json: exit_status: expected an exit status 0-255");
  json::Value killed = UnitEndedRecord(EndEnv("signal", "killed", "SIGKILL"), kEnd);
  EXPECT_EQ(message(killed), "unit-ended.json: exit_status: expected a signal name such as TERM");
  killed["exit_status"] = nullptr;
  EXPECT_EQ(message(killed), "unit-ended.json: exit_status: expected a signal name such as TERM");
}

}  // namespace
}  // namespace hangar
