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
  p.deadline_ms = p.enforced_deadline_ms = m.deadline_ms();
  p.env = {{"PATH", "/bin"}};
  p.sandbox.bwrap = "/usr/bin/bwrap";
  p.sandbox.hide = {"/anchor", "/etc/shadow", "/root", "/s"};
  p.sandbox.write = {p.room};
  return p;
}

GateSite Site() {
  // Not root; the limits MakePlan's plans carry (none).
  return GateSite{"/s/rooms", "/home/u", {"/s", "/anchor"},          "/usr/bin/bwrap",
                  "/b",       false,     DroneLimits{0, 0, 0, 0, 60}};
}

const char* kPolicy = R"({"hangar_policy":1,
  "acts":{"deny":["buy","tweet"],"hold":["push"],"allow":["read","write"],"unknown":"hold"},
  "drones":["script"],"max_minutes":60,
  "network":{"allow":["none"],"hold":["host"]},
  "ops":{"allow":["fs.read"],"deny":["shell.root"],"grant":["git.push"],"unknown":"deny"},
  "env_deny":["*_TOKEN","AWS_*"],"env_allow":{"script":["CI_TOKEN"]}})";

// gateN.json is written member by member (json::PrettyWriter): with or without a plan's sha256,
// the writes, rules, a reason that needs escapes, its text is canonical, keys sorted, byte for
// byte what json::WritePretty writes of it read back, and says what the result holds.
TEST(Gate, EveryShapeOfGateFileIsCanonicalText) {
  const std::vector<std::string> writes = {"/srv/data", "/h/\"q\""};
  for (int shape = 0; shape < 16; ++shape) {
    GateResult g;
    if (shape & 1) g.Fire(Verdict::kHold, "env.hold", "env FOO is held\n");
    if (shape & 2) g.Fire(Verdict::kDeny, "acts.deny.delete", "delete is denied");
    const std::string text =
        g.Text(1 + (shape & 4) / 4, 1'700'000'000'000, 42, shape & 8 ? "ab12" : "",
               shape & 4 ? nullptr : &writes);
    Result<json::Value> v = json::Parse(text);
    ASSERT_TRUE(v.ok()) << text;
    EXPECT_EQ(json::WritePretty(*v), text) << "shape " << shape;
    EXPECT_EQ(v->find("ledger_seq")->as_int(), 42);
    EXPECT_EQ(v->find("verdict")->as_string(), VerdictName(g.verdict));
    EXPECT_EQ(v->find("rules")->as_array().size(), g.rules.size());
    EXPECT_EQ(v->find("plan_sha256") != nullptr, (shape & 8) != 0);
    EXPECT_EQ(v->find("writes") != nullptr, (shape & 4) == 0);
  }
}

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
  EXPECT_EQ(GateStage1(m, p).Text(1, 0, 1), GateStage1(m, p).Text(1, 0, 1));
}

TEST(Gate, Stage1JudgesTheProgramsOfRunChecks) {
  auto run = [](std::vector<std::string> argv) {
    DoneCheck c;
    c.kind = DoneCheck::Kind::kRun;
    c.argv = std::move(argv);
    return c;
  };
  DoneCheck file;
  file.file = "REPORT.md";
  Mission m = M();
  m.done_when = {file, run({"/bin/sh", "-c", "cat /etc/hangar/hangar.conf"}), run({"./check.sh"}),
                 run({"pytest", "-q"})};
  // No check_programs: any program, each run sandboxed.
  EXPECT_EQ(GateStage1(m, P(kPolicy)).verdict, Verdict::kAllow);
  Policy listed = P(R"({"hangar_policy":1,"acts":{"allow":["read","write"]},
                        "check_programs":["pytest","/usr/bin/make"]})");
  GateResult g = GateStage1(m, listed);
  EXPECT_EQ(g.verdict, Verdict::kDeny);
  EXPECT_EQ(g.rules, (std::vector<std::string>{"checks.program", "checks.program"}));
  EXPECT_EQ(g.reason,
            "done-check runs \"/bin/sh\", which the policy's check_programs does not list");
  m.done_when = {file, run({"pytest"}), run({"/usr/bin/make", "test"})};
  EXPECT_EQ(GateStage1(m, listed).verdict, Verdict::kAllow);
}

TEST(Gate, Stage2DeniesForbiddenEnvironmentUnlessTheProfileMayHaveIt) {
  Policy p = P(kPolicy);
  Mission m = M();
  Plan plan = PlanFor(m);
  EXPECT_EQ(GateStage2(m, plan, p, Site()).verdict, Verdict::kAllow);
  plan.env["GITHUB_TOKEN"] = "x";
  GateResult g = GateStage2(m, plan, p, Site());
  EXPECT_EQ(g.verdict, Verdict::kDeny);
  EXPECT_EQ(g.rules, (std::vector<std::string>{"env.deny"}));
  plan = PlanFor(m);
  plan.env["CI_TOKEN"] = "x";  // env_allow for profile script
  EXPECT_EQ(GateStage2(m, plan, p, Site()).verdict, Verdict::kAllow);
}

TEST(Gate, Stage2ChecksRoomNetworkAndDeadlineOfTheExactPlan) {
  Policy p = P(kPolicy);
  Mission m = M();
  Plan plan = PlanFor(m);
  plan.room = plan.sandbox.write[0] = "/s/rooms/../etc";
  EXPECT_EQ(GateStage2(m, plan, p, Site()).rules, (std::vector<std::string>{"plan.room.outside"}));
  plan.room = plan.sandbox.write[0] = "/s/rooms";
  EXPECT_EQ(GateStage2(m, plan, p, Site()).rules, (std::vector<std::string>{"plan.room.outside"}));
  plan = PlanFor(m);
  plan.network = "host";
  EXPECT_EQ(GateStage2(m, plan, p, Site()).rules,
            (std::vector<std::string>{"plan.network.mismatch"}));
  plan = PlanFor(m);
  plan.deadline_ms += 1;
  EXPECT_EQ(GateStage2(m, plan, p, Site()).rules,
            (std::vector<std::string>{"plan.deadline.mismatch"}));
}

TEST(Gate, Stage2JudgesTheDeadlineTheLaunchersEngineWillEnforce) {
  Policy p = P(kPolicy);
  Mission m = M();
  m.max_minutes = 0.02;  // 1200 ms
  Plan plan = PlanFor(m);
  plan.deadline_ms = m.deadline_ms();
  auto rules = [&](const std::string& launcher, int64_t enforced) {
    plan.launcher = launcher;
    plan.enforced_deadline_ms = enforced;
    return GateStage2(m, plan, p, Site()).rules;
  };
  const std::vector<std::string> none, off{"plan.deadline.enforced"};
  EXPECT_EQ(rules("direct", 1200), none);
  EXPECT_EQ(rules("direct", 1201), off);    // the supervisor counts milliseconds: exact
  EXPECT_EQ(rules("systemd", 2000), none);  // RuntimeMaxSec=2: rounded up by 800 ms < 1 s
  EXPECT_EQ(rules("systemd", 3000), off);   // a whole second late
  EXPECT_EQ(rules("systemd", 1000), off);   // early: the drone would die before its time
  EXPECT_EQ(rules("slurm", 60000), none);   // --time=1
  EXPECT_EQ(rules("slurm", 120000), off);
  EXPECT_EQ(rules("lsf", 1200), (std::vector<std::string>{"plan.launcher.unknown"}));
  // BuildPlan rounds up to the launcher's unit, so the plans it makes pass.
  EXPECT_EQ(RoundUpDeadline(1200, 1000), 2000);
  EXPECT_EQ(RoundUpDeadline(60000, 60000), 60000);
  EXPECT_EQ(RoundUpDeadline(60001, 60000), 120000);
}

const char* kPathPolicy = R"({"hangar_policy":1,"acts":{"allow":["write"]},
  "protected_paths":["/etc","/home/u/.ssh"],"deny_read":["/root","/home/u/.aws"],
  "env_deny":["*_TOKEN"],"env_hold":["HTTP*_PROXY"]})";

TEST(Gate, Stage1JudgesWritesNormalisedAndResolved) {
  Policy p = P(kPathPolicy);
  auto judge = [&](std::vector<std::string> writes, ResolvedWrites resolved = {}) {
    Mission m = M();
    m.writes = std::move(writes);
    return GateStage1(m, p, {}, Site(), resolved);
  };
  EXPECT_EQ(judge({"/srv/out", "~/notes"}).verdict, Verdict::kAllow);
  for (const char* w :
       {"/srv/work/../../etc/cron.d/x", "//etc//ssh/", "~/.ssh/config", "/etc", "/", "/home",
        "/s/queued/X/mission.json", "/anchor/live.key", "/s/rooms/OTHER", "/s"}) {
    GateResult g = judge({w});
    EXPECT_EQ(g.verdict, Verdict::kDeny) << w;
    EXPECT_EQ(g.rules, (std::vector<std::string>{"paths.protected"})) << w;
  }
  // hangar's binaries (never written, so a drone cannot replace hangar-confine or the shim), and
  // its config and policy files, which hangar_dirs name beside the spool and the anchor.
  GateSite site = Site();
  site.hangar_dirs.push_back("/opt/hangar/hangar.conf");
  for (const char* w : {"/b", "/b/hangar-shim", "/opt/hangar", "/opt/hangar/hangar.conf", "/opt"}) {
    Mission m = M();
    m.writes = {w};
    EXPECT_EQ(GateStage1(m, p, {}, site, {}).rules, (std::vector<std::string>{"paths.protected"}))
        << w;
  }
  for (const char* w : {"/home/bob/.ssh", "/home/bob/.ssh/authorized_keys", "/srv/git/.ssh/x"}) {
    Mission m = M();
    m.writes = {w};
    GateResult g = GateStage1(m, p, {}, site, {});
    EXPECT_EQ(g.rules, (std::vector<std::string>{"paths.protected"})) << w;
    EXPECT_NE(g.reason.find("inside an .ssh directory"), std::string::npos) << g.reason;
  }
  Mission sshish = M();
  sshish.writes = {"/srv/.sshd-notes", "/srv/x.ssh"};  // not an .ssh directory
  EXPECT_EQ(GateStage1(sshish, p, {}, site, {}).verdict, Verdict::kAllow);
  Mission beside = M();
  beside.writes = {"/opt/hangar/notes.txt"};  // a file of its own beside the config: only that
  EXPECT_EQ(GateStage1(beside, p, {}, site, {}).verdict, Verdict::kAllow);
  EXPECT_EQ(judge({"/srv/work/../../etc/cron.d/x"}).reason,
            "writes \"/srv/work/../../etc/cron.d/x\" is inside protected path /etc");
  // A symlink in the existing part: judged where it leads.
  GateResult g =
      judge({"/srv/work/cfg/cron.d/x"}, {{"/srv/work/cfg/cron.d/x", {"/etc/cron.d/x", ""}}});
  EXPECT_EQ(g.rules, (std::vector<std::string>{"paths.protected"}));
  EXPECT_EQ(g.reason,
            "writes \"/srv/work/cfg/cron.d/x\" resolves to /etc/cron.d/x, inside protected path "
            "/etc");
  // Inside or over a deny-read path: the sandbox hides it, a write would lay it open.
  EXPECT_EQ(judge({"/root/notes"}).rules, (std::vector<std::string>{"paths.deny_read"}));
  EXPECT_EQ(judge({"~/.aws/config"}).reason,
            "writes \"~/.aws/config\" is inside deny-read path /home/u/.aws");
  g = judge({"/srv/loop/x"}, {{"/srv/loop/x", {"", "too many levels of symbolic links"}}});
  EXPECT_EQ(g.rules, (std::vector<std::string>{"paths.invalid"}));
  EXPECT_EQ(judge({"~bob/x"}).rules, (std::vector<std::string>{"paths.invalid"}));
  // What the sandbox binds: the resolution when there is one, else the normalised path.
  Mission m = M();
  m.writes = {"~/a/../b/", "/srv/link"};
  EXPECT_EQ(WritablePaths(m, Site(), {{"/srv/link", {"/data/real", ""}}}),
            (std::vector<std::string>{"/home/u/b", "/data/real"}));
}

// Regression (issue 17): notify.dir was not judged, and hangard (root) wrote the return into
// whatever directory a mission named: /etc, the spool, the ledger's own directory.
TEST(Gate, Stage1JudgesTheNotifyDirLikeAWrite) {
  Policy p = P(kPathPolicy);
  auto judge = [&](const std::string& dir, ResolvedWrites resolved = {}, const Policy* pol = {}) {
    Mission m = M();
    m.notify_dir = dir;
    return GateStage1(m, pol ? *pol : p, {}, Site(), resolved);
  };
  for (const char* ok : {"/home/u/inbox", "/srv/inbox", "/tmp/x/../inbox"})
    EXPECT_EQ(judge(ok).verdict, Verdict::kAllow) << ok << ": " << judge(ok).reason;
  for (const char* bad : {"/etc", "/etc/cron.d", "/srv/../etc", "/home/u/.ssh", "/s",
                          "/s/ledger/live", "/s/incoming/new", "/anchor", "/s/rooms/OTHER",
                          "/s/rooms", "/", "/home/u/.aws/x", "/root/inbox", "/home"}) {
    GateResult g = judge(bad);
    EXPECT_EQ(g.verdict, Verdict::kDeny) << bad;
    EXPECT_EQ(g.rules, (std::vector<std::string>{"notify.dir.protected"})) << bad;
  }
  EXPECT_EQ(judge("/srv/../etc").reason,
            "notify.dir \"/srv/../etc\" is inside protected path /etc");
  EXPECT_EQ(judge("/s/ledger/live").reason,
            "notify.dir \"/s/ledger/live\" is in hangar's own directory /s");
  EXPECT_EQ(judge("/root/inbox").reason,
            "notify.dir \"/root/inbox\" is inside deny-read path /root");
  EXPECT_EQ(judge("/").reason, "notify.dir \"/\" is over protected path /etc");
  // Where the shell found a symlink: judged where it leads too.
  GateResult g = judge("/srv/inbox", {{"/srv/inbox", {"/etc/inbox", ""}}});
  EXPECT_EQ(g.rules, (std::vector<std::string>{"notify.dir.protected"}));
  EXPECT_EQ(g.reason,
            "notify.dir \"/srv/inbox\" resolves to /etc/inbox, inside protected path /etc");
  g = judge("/srv/loop", {{"/srv/loop", {"", "too many levels of symbolic links"}}});
  EXPECT_EQ(g.rules, (std::vector<std::string>{"notify.dir.invalid"}));
  EXPECT_EQ(g.reason, "notify.dir \"/srv/loop\": too many levels of symbolic links");
  EXPECT_EQ(judge(std::string("/srv/a\0b", 8)).rules,
            (std::vector<std::string>{"notify.dir.invalid"}));
  // A write of the same path shares its resolution and is judged as a write.
  Mission m = M();
  m.writes = {"/srv/inbox"};
  m.notify_dir = "/srv/inbox";
  g = GateStage1(m, p, {}, Site(), {{"/srv/inbox", {"/etc/inbox", ""}}});
  EXPECT_EQ(g.rules, (std::vector<std::string>{"paths.protected", "notify.dir.protected"}));
}

TEST(Gate, Stage1DeliversOnlyToTheNotifyDirsThePolicyLists) {
  const Policy listed = P(R"({"hangar_policy":1,"protected_paths":["/srv/inboxes/admin"],
    "notify_dirs":["/srv/inboxes","/home/u/inbox"]})");
  auto judge = [&](const std::string& dir, ResolvedWrites resolved = {}) {
    Mission m = M();
    m.notify_dir = dir;
    return GateStage1(m, listed, {}, Site(), resolved);
  };
  for (const char* ok : {"/srv/inboxes/alice", "//home/u/inbox/", "/home/u/inbox/sub"})
    EXPECT_EQ(judge(ok).verdict, Verdict::kAllow) << ok << ": " << judge(ok).reason;
  for (const char* bad : {"/srv/inboxesx", "/home/u", "/tmp/inbox", "/srv/inboxes/../x"}) {
    GateResult g = judge(bad);
    EXPECT_EQ(g.rules, (std::vector<std::string>{"notify.dir.unlisted"})) << bad;
    EXPECT_EQ(g.verdict, Verdict::kDeny) << bad;
  }
  EXPECT_EQ(judge("/tmp/inbox").reason,
            "notify.dir \"/tmp/inbox\" is in none of the policy's notify_dirs");
  // Listed as written, but a symlink leads out of the list.
  GateResult g = judge("/srv/inboxes/bob", {{"/srv/inboxes/bob", {"/var/mail/bob", ""}}});
  EXPECT_EQ(g.rules, (std::vector<std::string>{"notify.dir.unlisted"}));
  EXPECT_EQ(g.reason,
            "notify.dir \"/srv/inboxes/bob\" resolves to /var/mail/bob, in none of the "
            "policy's notify_dirs");
  // A listed place is still no place inside or over a protected path.
  for (const char* bad : {"/srv/inboxes/admin/x", "/srv/inboxes"})
    EXPECT_EQ(judge(bad).rules, (std::vector<std::string>{"notify.dir.protected"})) << bad;
  // A mission without notify.dir is not judged by the list; an empty list lists nowhere.
  EXPECT_EQ(GateStage1(M(), listed, {}, Site()).verdict, Verdict::kAllow);
  const Policy nowhere = P(R"({"hangar_policy":1,"notify_dirs":[]})");
  Mission m = M();
  m.notify_dir = "/home/u/inbox";
  EXPECT_EQ(GateStage1(m, nowhere, {}, Site()).rules,
            (std::vector<std::string>{"notify.dir.unlisted"}));
}

TEST(Gate, Stage2JudgesTheSandboxOfThePlan) {
  Policy p = P(kPathPolicy);
  Mission m = M();
  Plan plan = PlanFor(m);
  plan.sandbox.hide = {"/anchor", "/home/u/.aws", "/root", "/s"};
  auto rules = [&](const Plan& x, GateSite site = Site()) {
    return GateStage2(m, x, p, site).rules;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(rules(plan), V{});
  Plan x = plan;
  x.sandbox.hide = {"/anchor", "/home/u/.aws/credentials", "/s"};  // /root, and most of .aws, open
  EXPECT_EQ(rules(x), (V{"paths.deny_read", "paths.deny_read"}));
  x = plan;
  x.sandbox.hide = {"/"};  // one directory over all of them hides them all
  EXPECT_EQ(rules(x), V{});
  x.sandbox.hide = {"/anchor", "/home/u/.aws", "/ro", "/rootkit", "/s"};  // a name's prefix
  EXPECT_EQ(rules(x), V{"paths.deny_read"});                              // hides nothing
  x.sandbox.hide = {"/s/", "/home/u/./.aws", "/anchor", "/tmp/../root"};  // as normalised
  EXPECT_EQ(rules(x), V{});
  // Writable: exactly the room and the mission's writes as the shell resolved them.
  x = plan;
  x.sandbox.write.push_back("/srv/out");  // nobody asked for it
  EXPECT_EQ(rules(x), V{"plan.sandbox.write"});
  Mission w = M();
  w.writes = {"/srv/out"};
  EXPECT_EQ(GateStage2(w, x, p, Site()).rules, V{});
  const ResolvedWrites link{{"/srv/out", {"/etc/cron.d", ""}}};  // a symlink swapped since
  EXPECT_EQ(GateStage2(w, x, p, Site(), link).rules, V{"plan.sandbox.write"});
  x.sandbox.write.back() = "/etc/cron.d";
  EXPECT_EQ(GateStage2(w, x, p, Site(), link).rules, V{"paths.protected"});
  const ResolvedWrites loop{{"/srv/out", {"", "too many levels of symbolic links"}}};
  x.sandbox.write.pop_back();
  EXPECT_EQ(GateStage2(w, x, p, Site(), loop).rules, V{"paths.invalid"});
  w.writes = {"~"};
  x = plan;
  x.sandbox.write.push_back("/home/u");  // lays .aws open again
  EXPECT_EQ(GateStage2(w, x, p, Site()).reason,
            "the sandbox binds /home/u writable, laying open /home/u/.aws");
  x = plan;
  x.sandbox.engine = "none";
  x.sandbox.bwrap.clear();
  // Each deny-read path, the spool, the anchor and the rooms: none hidden.
  EXPECT_EQ(rules(x), (V{"plan.network.uncut", "paths.deny_read", "paths.deny_read",
                         "paths.deny_read", "paths.deny_read", "paths.deny_read"}));
  Plan as_user = plan;
  as_user.uid = as_user.gid = 999;  // a drone_user the config does not name
  EXPECT_EQ(rules(as_user), V{"plan.user"});
  GateSite with_user = Site();
  with_user.drone_uid = with_user.drone_gid = 999;
  EXPECT_EQ(rules(as_user, with_user), V{});
  EXPECT_EQ(rules(plan, with_user), V{"plan.user"});  // the config's user, left out of the plan
  Plan limited = plan;
  limited.processes = 1024;  // not the site's
  EXPECT_EQ(rules(limited), V{"plan.limits"});
  GateSite as_root = Site();
  as_root.root = true;  // a drone without a sandbox would hold every capability
  EXPECT_EQ(rules(x, as_root),
            (V{"plan.sandbox.privileged", "plan.network.uncut", "paths.deny_read",
               "paths.deny_read", "paths.deny_read", "paths.deny_read", "paths.deny_read"}));
  GateSite no_bwrap = Site();
  no_bwrap.bwrap.clear();
  EXPECT_EQ(rules(plan, no_bwrap), V{"plan.sandbox.unavailable"});
  // Engine "namespaces": hangar-confine's own sandbox hides and cuts as bwrap's does, and needs no
  // bubblewrap; a plan of that engine that names a program is not what the kernel built.
  Plan own = plan;
  own.sandbox.engine = "namespaces";
  own.sandbox.bwrap.clear();
  EXPECT_EQ(rules(own), V{});
  EXPECT_EQ(rules(own, no_bwrap), V{});
  own.sandbox.bwrap = "/usr/bin/bwrap";
  EXPECT_EQ(rules(own), V{"plan.sandbox.unavailable"});
  x = plan;
  x.sandbox.engine = "firejail";  // unknown: hides nothing and cuts nothing either
  EXPECT_EQ(rules(x)[0], "plan.sandbox.engine");
  x = plan;
  x.sandbox.write = {"/s/rooms/OTHER"};
  EXPECT_EQ(rules(x)[0], "plan.sandbox.room");
}

TEST(Gate, Stage2RunsOnlyTheProgramTheProfileNames) {
  Policy p = P(kPolicy);
  Mission m = M();
  Profile script;
  script.name = "script";
  script.argv = {"{bindir}/drone", "{room}"};
  Plan plan = PlanFor(m);
  plan.argv = {"/b/drone", "/s/rooms/M1"};
  EXPECT_EQ(GateStage2(m, plan, p, Site(), {}, &script).rules, std::vector<std::string>{});
  plan.argv[0] = "/bin/sh";
  GateResult g = GateStage2(m, plan, p, Site(), {}, &script);
  EXPECT_EQ(g.rules, std::vector<std::string>{"plan.program"});
  EXPECT_EQ(g.reason, "the plan runs /bin/sh, not /b/drone, the program of profile script");
}

TEST(Gate, Stage2RefusesAnAgentHarnessCutOffFromItsModel) {
  Policy p = P(kPolicy);
  Mission m = M();
  Profile codex;
  codex.name = "codex";
  codex.harness = Harness::kCodex;
  codex.argv = {"/b/codex", "exec"};
  Plan plan = PlanFor(m);
  plan.argv = {"/b/codex", "exec"};
  ASSERT_EQ(plan.network, "none");
  GateResult g = GateStage2(m, plan, p, Site(), {}, &codex);
  EXPECT_EQ(g.rules, std::vector<std::string>{"plan.network.harness"});
  EXPECT_NE(g.reason.find("network \"egress\""), std::string::npos) << g.reason;
  Profile command = codex;
  command.harness = Harness::kCommand;  // a script may well work offline
  EXPECT_EQ(GateStage2(m, plan, p, Site(), {}, &command).rules, std::vector<std::string>{});
}

// Network "egress": the plan's proxy, forwarder, socket and allowlist are exactly hangar's, the
// proxy variables name hangar's forwarder (and pass env_hold, which would hold them otherwise), and
// only the direct launcher in a bubblewrap sandbox runs it.
TEST(Gate, Stage2JudgesTheEgressPlan) {
  Policy p = P(kPathPolicy);
  Mission m = M();
  m.network = "egress";
  m.egress = {*ParseDestination("example.com:443")};
  Profile codex;
  codex.name = "script";
  codex.harness = Harness::kCodex;
  codex.argv = {"/bin/true"};
  codex.egress = {*ParseDestination("api.openai.com:443")};
  codex.egress_methods = {"GET", "HEAD"};
  GateSite site = Site();
  site.socat = "/usr/bin/socat";
  site.landlock_abi = 4;
  PlanPlaces where;
  where.room = "/s/rooms/M1";
  where.run = "/s/running/M1/run";
  where.bindir = "/b";
  where.bwrap = "/usr/bin/bwrap";
  where.hide = {"/anchor", "/home/u/.aws", "/root", "/s"};
  where.socat = site.socat;
  where.limits = site.limits;
  where.landlock_abi = site.landlock_abi;
  Plan plan = BuildPlan(m, codex, where, 1);
  EXPECT_EQ(plan.sandbox.landlock_abi, 4);
  EXPECT_EQ(plan.egress.allow, (std::vector<std::string>{"api.openai.com:443", "example.com:443"}));
  EXPECT_EQ(plan.env.at("HTTPS_PROXY"), kEgressProxyUrl);
  EXPECT_EQ(plan.egress.methods, (std::vector<std::string>{"GET", "HEAD"}));
  EXPECT_EQ(GateStage2(m, plan, p, site, {}, &codex).rules, std::vector<std::string>{})
      << GateStage2(m, plan, p, site, {}, &codex).reason;
  auto rules = [&](Plan changed, GateSite at) {
    return GateStage2(m, changed, p, at, {}, &codex).rules;
  };
  Plan more = plan;
  more.egress.allow.push_back("evil.example:443");
  EXPECT_EQ(rules(more, site), std::vector<std::string>{"plan.egress.allow"});
  Plan any_method = plan;
  any_method.egress.methods.clear();
  EXPECT_EQ(rules(any_method, site), std::vector<std::string>{"plan.egress.methods"});
  Plan elsewhere = plan;
  elsewhere.env["HTTPS_PROXY"] = "http://10.0.0.1:3128";
  EXPECT_EQ(rules(elsewhere, site), std::vector<std::string>{"plan.egress.env"});
  Plan other_proxy = plan;
  other_proxy.egress.proxy = "/tmp/proxy";
  EXPECT_EQ(rules(other_proxy, site), std::vector<std::string>{"plan.egress.proxy"});
  GateSite no_socat = site;
  no_socat.socat = "";
  EXPECT_EQ(rules(plan, no_socat), std::vector<std::string>{"plan.egress.forwarder"});
  Plan bare = plan;
  bare.sandbox.engine = "none";
  const std::vector<std::string> got = rules(bare, site);
  EXPECT_NE(std::count(got.begin(), got.end(), "plan.egress.sandbox"), 0);
  // A host without Landlock ABI 2: the plan hides by mounts alone, and an egress drone could
  // trace its forwarder: refused here, with the reason, rather than by the supervisor at launch.
  GateSite old_kernel = site;
  old_kernel.landlock_abi = 1;
  where.landlock_abi = 1;
  Plan mounts_only = BuildPlan(m, codex, where, 1);
  EXPECT_EQ(mounts_only.sandbox.landlock_abi, 0);
  GateResult g = GateStage2(m, mounts_only, p, old_kernel, {}, &codex);
  EXPECT_EQ(g.rules, std::vector<std::string>{"plan.egress.landlock"});
  EXPECT_EQ(g.verdict, Verdict::kDeny);
  EXPECT_NE(g.reason.find("needs a Landlock ruleset"), std::string::npos) << g.reason;
}

// The plan says what hides its paths, and it must be what the host has: the Landlock ruleset as
// well as the mounts where the host offers Landlock ABI 2 or later, the mounts alone elsewhere.
TEST(Gate, Stage2JudgesWhatHidesThePlansPaths) {
  Policy p = P(kPathPolicy);
  Mission m = M();
  Plan plan = PlanFor(m);
  plan.sandbox.hide = {"/anchor", "/home/u/.aws", "/root", "/s"};
  GateSite with = Site();
  with.landlock_abi = 7;
  using V = std::vector<std::string>;
  auto rules = [&](const Plan& x, const GateSite& site) { return GateStage2(m, x, p, site).rules; };
  EXPECT_EQ(rules(plan, Site()), V{});  // no Landlock on the host, none in the plan
  EXPECT_EQ(rules(plan, with), V{"plan.sandbox.landlock"});  // a downgrade to mounts alone
  EXPECT_NE(GateStage2(m, plan, p, with).reason.find("mounts alone"), std::string::npos);
  Plan ruled = plan;
  ruled.sandbox.landlock_abi = 7;
  EXPECT_EQ(rules(ruled, with), V{});
  EXPECT_EQ(rules(ruled, Site()), V{"plan.sandbox.landlock"});  // more than the host can make
  ruled.sandbox.landlock_abi = 3;
  EXPECT_EQ(rules(ruled, with), V{"plan.sandbox.landlock"});  // not the host's ABI
  GateSite abi1 = with;
  abi1.landlock_abi = 1;  // too old to hide: the mounts alone
  EXPECT_EQ(rules(plan, abi1), V{});
  Plan bare = plan;
  bare.sandbox.engine = "none";
  bare.sandbox.bwrap.clear();
  bare.sandbox.landlock_abi = 7;  // no sandbox makes no ruleset
  const V got = rules(bare, with);
  EXPECT_NE(std::count(got.begin(), got.end(), "plan.sandbox.landlock"), 0);
}

// The policy's destination patterns judge the mission's egress list at stage 1 and the plan's
// whole list (the profile's too) at stage 2: deny outranks hold.
TEST(Gate, ThePolicyJudgesEgressDestinations) {
  Policy p = P(R"({"hangar_policy":1,"acts":{"allow":["write"]},
    "egress":{"deny":["*.pastebin.com:*"],"hold":["*:80"]}})");
  Mission m = M();
  m.network = "egress";
  m.egress = {*ParseDestination("api.example.com:443")};
  EXPECT_EQ(GateStage1(m, p, TextRules(p), Site(), {}).verdict, Verdict::kAllow);
  m.egress.push_back(*ParseDestination("plain.example.com:80"));
  GateResult held = GateStage1(m, p, TextRules(p), Site(), {});
  EXPECT_EQ(held.rules, std::vector<std::string>{"egress.hold"});
  m.egress.push_back(*ParseDestination("x.pastebin.com:443"));
  GateResult denied = GateStage1(m, p, TextRules(p), Site(), {});
  EXPECT_EQ(denied.verdict, Verdict::kDeny);
  EXPECT_NE(denied.reason.find("egress to x.pastebin.com:443 is denied"), std::string::npos)
      << denied.reason;
  const std::vector<std::string> ids = p.RuleIds();
  EXPECT_NE(std::find(ids.begin(), ids.end(), "egress.deny"), ids.end());
}

TEST(Gate, Stage2HoldsAVariableThePolicyLetsThroughOnlyWithAPerson) {
  Policy p = P(kPathPolicy);
  Mission m = M();
  Plan plan = PlanFor(m);
  plan.sandbox.hide = {"/anchor", "/home/u/.aws", "/root", "/s"};
  plan.env["HTTPS_PROXY"] = "http://proxy:3128";
  GateResult g = GateStage2(m, plan, p, Site());
  EXPECT_EQ(g.verdict, Verdict::kHold);
  EXPECT_EQ(g.rules, (std::vector<std::string>{"env.hold"}));
  EXPECT_EQ(g.reason,
            "the plan passes HTTPS_PROXY to the drone; the policy lets it through only with a "
            "person's approval");
  plan.env["GH_TOKEN"] = "t";  // deny outranks hold
  EXPECT_EQ(GateStage2(m, plan, p, Site()).verdict, Verdict::kDeny);
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

// A mission on /w/repo, resolved by the shell to commit C with its objects in /w/repo/.git/objects.
ResolvedWrites WorkspaceResolved(const std::string& git = "/w/repo") {
  ResolvedWrites r;
  r[git] =
      ResolvedPath{git, "", GitResolution{std::string(40, 'c'), git + "/.git/objects", "", ""}};
  return r;
}

TEST(Gate, Stage1JudgesTheWorkspaceLikeAWriteAndKeepsItFromTheWrites) {
  Policy p = P(R"({"hangar_policy":1,"protected_paths":["/etc"],"deny_read":["/secret"]})");
  Mission m = M();
  m.workspace = Workspace{"/w/repo", "main"};
  EXPECT_EQ(GateStage1(m, p, {}, Site(), WorkspaceResolved()).verdict, Verdict::kAllow);
  m.workspace->git = "/etc/repo";
  GateResult g = GateStage1(m, p, {}, Site(), WorkspaceResolved("/etc/repo"));
  EXPECT_EQ(g.rules, std::vector<std::string>{"workspace.protected"});
  m.workspace->git = "/secret/repo";
  g = GateStage1(m, p, {}, Site(), WorkspaceResolved("/secret/repo"));
  EXPECT_EQ(g.rules, std::vector<std::string>{"workspace.deny_read"});
  // Its objects are judged too: a harmless path whose objects live in a deny-read one.
  m.workspace->git = "/w/repo";
  ResolvedWrites r = WorkspaceResolved();
  r["/w/repo"].git->objects = "/secret/objects";
  EXPECT_EQ(GateStage1(m, p, {}, Site(), r).rules, std::vector<std::string>{"workspace.deny_read"});
  // A mission that also writes into the repository could change what its checkout borrows.
  m.writes = {"/w"};
  r = WorkspaceResolved();
  r["/w"] = ResolvedPath{"/w", ""};
  EXPECT_EQ(GateStage1(m, p, {}, Site(), r).rules, std::vector<std::string>{"workspace.writable"});
}

TEST(Gate, Stage2RunsOnlyTheCheckoutResolvedAtIntake) {
  Policy p = DefaultPolicy();
  Mission m = M();
  m.workspace = Workspace{"/w/repo", "main"};
  const ResolvedWrites r = WorkspaceResolved();
  Plan plan = PlanFor(m);
  plan.workspace = WorkspaceOf(m, r);
  EXPECT_EQ(GateStage2(m, plan, p, Site(), r).verdict, Verdict::kAllow)
      << GateStage2(m, plan, p, Site(), r).reason;
  plan.workspace->commit = std::string(40, 'd');  // another commit than intake's
  EXPECT_EQ(GateStage2(m, plan, p, Site(), r).rules, std::vector<std::string>{"plan.workspace"});
  plan.workspace.reset();  // no checkout at all
  EXPECT_EQ(GateStage2(m, plan, p, Site(), r).rules, std::vector<std::string>{"plan.workspace"});
  plan.workspace = WorkspaceOf(m, {});  // never resolved: no commit to check out
  EXPECT_EQ(GateStage2(m, plan, p, Site(), {}).rules, std::vector<std::string>{"plan.workspace"});
  plan.workspace = WorkspaceOf(m, r);
  plan.sandbox.write.push_back("/w");  // the source bound writable
  EXPECT_EQ(GateStage2(m, plan, p, Site(), r).rules,
            (std::vector<std::string>{"plan.sandbox.write", "workspace.writable"}));
}

}  // namespace
}  // namespace hangar
