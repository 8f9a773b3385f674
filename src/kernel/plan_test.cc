// plan.json as the shim reads it back: what the kernel wrote is what runs.
#include "kernel/plan.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

Plan CodexLikePlan() {
  Plan p;
  p.id = "M1";
  p.attempt = 2;
  p.argv = {"/opt/codex", "exec", "-"};
  p.env = {{"PATH", "/bin"}, {"CODEX_HOME", "/s/rooms/M1/.codex"}};
  p.room = "/s/rooms/M1";
  p.run = "/s/running/M1/run";
  p.stdin_path = "/s/running/M1/run/prompt.md";
  p.last_message = "/s/running/M1/run/last-message.txt";
  p.stdout_file = "events.jsonl";
  p.room_dirs = {".codex", "cache"};
  p.sandbox.bwrap = "/usr/bin/bwrap";
  p.sandbox.write = {"/s/rooms/M1"};
  p.deadline_ms = 60000;
  p.grace_ms = 5000;
  return p;
}

Status FromJsonStatus(const json::Value& v) {
  return Plan::FromJson(v).status();
}

// plan.json is written member by member (json::PrettyWriter): with or without each member that
// only some plans have (egress, room_dirs, a Landlock ABI said, a drone user, systemd's user,
// Slurm's partition, a workspace), its text is canonical, keys sorted, byte for byte what
// json::WritePretty writes of it read back. Its sha256 is what stage 2 passed and the ledger and
// a replay compare.
TEST(Plan, EveryShapeOfPlanIsCanonicalText) {
  for (int shape = 0; shape < 256; ++shape) {
    Plan p = CodexLikePlan();
    if (shape & 1) {
      p.network = "egress";
      p.egress.allow = {"api.openai.com:443", "b:80"};
      p.egress.methods = {"GET"};
    }
    if (shape & 2) p.room_dirs.clear();
    if (shape & 4) p.sandbox.landlock_abi = kLandlockUnsaid;
    if (shape & 8) p.uid = 1000, p.gid = 1001;
    if (shape & 16) p.launcher = "systemd", p.systemd_user = true;
    if (shape & 32) p.launcher = "slurm", p.slurm_partition = "batch";
    if (shape & 64) p.workspace = PlanWorkspace{"/g", "/g/.git/objects", "abc123"};
    if (shape & 128) p.env.clear(), p.sandbox.hide = {"/h\"1"};
    const std::string text = p.Text();
    EXPECT_EQ(json::WritePretty(json::Parse(text).value()), text) << "shape " << shape;
    Result<Plan> back = Plan::FromJson(json::Parse(text).value());
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->Text(), text) << "shape " << shape;
  }
}

TEST(Plan, StdoutFileAndRoomDirsRoundTrip) {
  const Plan p = CodexLikePlan();
  Result<Plan> back = Plan::FromJson(p.ToJson());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->stdout_file, "events.jsonl");
  EXPECT_EQ(back->room_dirs, (std::vector<std::string>{".codex", "cache"}));
  EXPECT_EQ(back->argv, p.argv);
  EXPECT_EQ(back->env, p.env);
  EXPECT_EQ(json::Write(back->ToJson()), json::Write(p.ToJson()));
}

TEST(Plan, TheEgressPlanRoundTrips) {
  Plan p = CodexLikePlan();
  p.network = "egress";
  p.egress.allow = {"api.openai.com:443"};
  p.egress.methods = {"GET"};
  p.egress.proxy = "/b/hangar-egress";
  p.egress.forwarder = "/usr/bin/socat";
  p.egress.socket = "/s/run/egress.sock";
  Result<Plan> back = Plan::FromJson(p.ToJson());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->egress.methods, (std::vector<std::string>{"GET"}));
  EXPECT_EQ(json::Write(back->ToJson()), json::Write(p.ToJson()));
  json::Value v = p.ToJson();
  v.as_object()["egress"].as_object()["methods"] = json::Value(3);
  EXPECT_EQ(FromJsonStatus(v).message(), "plan.json: egress.methods: expected a list");
}

TEST(Plan, LimitsAndTheDronesUserRoundTrip) {
  Plan p = CodexLikePlan();
  p.processes = 64;
  p.file_mb = 10;
  p.memory_mb = 512;
  p.shm_mb = 8;
  p.uid = 999;
  p.gid = 998;
  Result<Plan> back = Plan::FromJson(p.ToJson());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->processes, 64);
  EXPECT_EQ(back->file_mb, 10);
  EXPECT_EQ(back->memory_mb, 512);
  EXPECT_EQ(back->shm_mb, 8);
  EXPECT_EQ(back->uid, 999);
  EXPECT_EQ(back->gid, 998);
  EXPECT_EQ(json::Write(back->ToJson()), json::Write(p.ToJson()));
  // A plan of hangar before limits and users: none, the supervisor's own user.
  json::Value old = CodexLikePlan().ToJson();
  old.as_object().erase("limits");
  Result<Plan> bare = Plan::FromJson(old);
  ASSERT_TRUE(bare.ok()) << bare.status().message();
  EXPECT_EQ(bare->processes, 0);
  EXPECT_EQ(bare->uid, -1);
  json::Value bad = p.ToJson();
  bad.as_object()["user"] = json::Object{{"uid", -1}, {"gid", 1}};
  EXPECT_EQ(FromJsonStatus(bad).message(), "plan.json: user: expected {\"uid\": N, \"gid\": N}");
  bad.as_object()["user"] = json::Object{{"uid", 1}, {"gid", 1}};
  bad.as_object()["limits"] = json::Object{{"memory", 1}};
  EXPECT_EQ(FromJsonStatus(bad).message(), "plan.json: limits.memory: unknown field");
}

// The plan says what hides its paths (kernel/plan.h, Sandbox::landlock_abi). A plan written before
// plans said (an engine's drone running across the upgrade, a queued Slurm job) still reads, as one
// that does not say, and is written back so.
TEST(Plan, TheLandlockAbiRoundTripsAndAnOlderPlanDoesNotSay) {
  Plan p = CodexLikePlan();
  p.sandbox.landlock_abi = 7;
  Result<Plan> back = Plan::FromJson(p.ToJson());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->sandbox.landlock_abi, 7);
  json::Value v = p.ToJson();
  v["sandbox"].as_object().erase("landlock_abi");
  Result<Plan> older = Plan::FromJson(v);
  ASSERT_TRUE(older.ok()) << older.status().message();
  EXPECT_EQ(older->sandbox.landlock_abi, kLandlockUnsaid);
  EXPECT_EQ(json::Write(older->ToJson()), json::Write(v)) << "written back as it was read";
  for (json::Value bad : {json::Value(-1), json::Value("7"), json::Value(2.5)}) {
    v["sandbox"]["landlock_abi"] = bad;
    EXPECT_EQ(FromJsonStatus(v).message(),
              "plan.json: sandbox.landlock_abi: expected a Landlock ABI (an integer, 0: none)");
  }
  // BuildPlan: the host's ABI where it can hide (2 or later), else none; never without bwrap.
  Mission m;
  m.id = "M1";
  m.max_minutes = 1;
  Profile bw;
  bw.argv = {"/bin/d"};
  PlanPlaces where;
  where.room = "/s/rooms/M1";
  where.run = "/s/running/M1/run";
  where.bwrap = "/usr/bin/bwrap";
  for (int abi : {0, 1, 2, 7}) {
    where.landlock_abi = abi;
    EXPECT_EQ(BuildPlan(m, bw, where, 1).sandbox.landlock_abi, abi >= 2 ? abi : 0) << abi;
  }
  Profile none = bw;
  none.sandbox = "none";
  EXPECT_EQ(BuildPlan(m, none, where, 1).sandbox.landlock_abi, 0);
  // hangar-confine's own sandbox hides as bwrap's does, and runs no other program.
  Profile own = bw;
  own.sandbox = "namespaces";
  Plan built = BuildPlan(m, own, where, 1);
  EXPECT_EQ(built.sandbox.engine, "namespaces");
  EXPECT_EQ(built.sandbox.landlock_abi, 7);
  EXPECT_EQ(built.sandbox.bwrap, "");
  Result<Plan> read = Plan::FromJson(built.ToJson());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->sandbox.engine, "namespaces");
}

TEST(Plan, RoomDirsMustBePlainNames) {
  for (const char* bad : {"a/b", "..", ".", "", "/abs", "../up"}) {
    json::Value v = CodexLikePlan().ToJson();
    v["room_dirs"] = json::Array{".codex", bad};
    Status s = FromJsonStatus(v);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.message(), "plan.json: room_dirs: expected plain directory names") << bad;
  }
  json::Value v = CodexLikePlan().ToJson();
  v["room_dirs"] = ".codex";
  EXPECT_FALSE(FromJsonStatus(v).ok());
  v["room_dirs"] = json::Array{1};
  EXPECT_FALSE(FromJsonStatus(v).ok());
}

TEST(Plan, APlanWithoutStdoutFileReadsAsStdout) {
  // Plans written before the harness profiles have no stdout_file.
  json::Value v = CodexLikePlan().ToJson();
  v.as_object().erase("stdout_file");
  v.as_object().erase("room_dirs");
  Result<Plan> p = Plan::FromJson(v);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->stdout_file, "stdout");
  EXPECT_TRUE(p->room_dirs.empty());
}

TEST(Plan, StdoutFileMustBeAPlainFileName) {
  for (const char* bad : {"", "../stdout", "a/b", ".hidden"}) {
    json::Value v = CodexLikePlan().ToJson();
    v["stdout_file"] = bad;
    EXPECT_EQ(FromJsonStatus(v).message(), "plan.json: stdout_file: expected a plain file name")
        << bad;
  }
}

TEST(Plan, ACodexProfileGetsItsHomeMadeInTheRoom) {
  Mission m;
  m.id = "M1";
  m.max_minutes = 1;
  Result<Config> c = ParseConfig(
      R"({"hangar":1,"profiles":{"codex":{"harness":"codex","program":"/b/codex"},
          "own":{"harness":"codex","program":"/b/codex","env":{"CODEX_HOME":"/srv/codex"}},
          "d":{"argv":["/bin/d"]}}})",
      "/c.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  PlanPlaces where;
  where.room = "/s/rooms/M1";
  where.run = "/s/running/M1/run";
  where.bwrap = "/usr/bin/bwrap";
  Plan p = BuildPlan(m, c->profiles.at("codex"), where, 1);
  EXPECT_EQ(p.stdout_file, "events.jsonl");
  EXPECT_EQ(p.room_dirs, (std::vector<std::string>{".codex"}));
  EXPECT_EQ(p.env.at("CODEX_HOME"), "/s/rooms/M1/.codex");
  // A profile that says where codex keeps its state: nothing is made in the room.
  Plan own = BuildPlan(m, c->profiles.at("own"), where, 1);
  EXPECT_TRUE(own.room_dirs.empty());
  EXPECT_EQ(own.env.at("CODEX_HOME"), "/srv/codex");
  Plan q = BuildPlan(m, c->profiles.at("d"), where, 1);
  EXPECT_EQ(q.stdout_file, "stdout");
  EXPECT_TRUE(q.room_dirs.empty());
  EXPECT_FALSE(q.env.count("CODEX_HOME"));
}

TEST(Plan, TheLauncherAndTheDeadlineItsEngineEnforcesComeFromTheProfile) {
  Mission m;
  m.id = "M1";
  m.max_minutes = 0.5;  // 30000 ms
  Result<Config> c = ParseConfig(
      R"({"hangar":1,"launchers":{"systemd_user":true,"slurm_partition":"gpu"},
          "profiles":{"d":{"argv":["/bin/d"]},"u":{"argv":["/bin/d"],"launcher":"systemd"},
          "s":{"argv":["/bin/d"],"launcher":"slurm"}}})",
      "/c.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  PlanPlaces where;
  where.room = "/s/rooms/M1";
  where.run = "/s/running/M1/run";
  where.bwrap = "/usr/bin/bwrap";
  where.launchers = c->launchers;
  Plan d = BuildPlan(m, c->profiles.at("d"), where, 1);
  EXPECT_EQ(d.launcher, "direct");
  EXPECT_EQ(d.enforced_deadline_ms, 30000);
  Plan u = BuildPlan(m, c->profiles.at("u"), where, 1);
  EXPECT_EQ(u.launcher, "systemd");
  EXPECT_EQ(u.enforced_deadline_ms, 30000);  // RuntimeMaxSec=30
  EXPECT_TRUE(u.systemd_user);
  Plan s = BuildPlan(m, c->profiles.at("s"), where, 2);
  EXPECT_EQ(s.launcher, "slurm");
  EXPECT_EQ(s.enforced_deadline_ms, 60000);  // --time=1: Slurm's least
  EXPECT_EQ(s.slurm_partition, "gpu");
  EXPECT_FALSE(s.systemd_user);
  for (const Plan& p : {d, u, s}) {
    Result<Plan> back = Plan::FromJson(p.ToJson());
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(json::Write(back->ToJson()), json::Write(p.ToJson()));
  }
  // A plan of an older hangar, without the field, was the direct launcher's: exact.
  json::Value old = d.ToJson();
  old.as_object().erase("enforced_deadline_ms");
  Result<Plan> back = Plan::FromJson(old);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->enforced_deadline_ms, 30000);
}

}  // namespace
// A mission that names no network gets egress for an agent profile, none for a command; a
// mission that names one keeps it.
TEST(Plan, AnAgentMissionDefaultsToEgress) {
  Config c;
  c.profiles["codex"].harness = Harness::kCodex;
  c.profiles["script"].harness = Harness::kCommand;
  Mission m;
  m.drone = "codex";
  ApplyProfileDefaults(&m, c);
  EXPECT_EQ(m.network, "egress");
  Mission s;
  s.drone = "script";
  ApplyProfileDefaults(&s, c);
  EXPECT_EQ(s.network, "none");
  Mission given;
  given.drone = "codex";
  given.network = "host";
  given.network_given = true;
  ApplyProfileDefaults(&given, c);
  EXPECT_EQ(given.network, "host");
}

}  // namespace hangar
