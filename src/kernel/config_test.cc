#include "kernel/config.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace hangar {
namespace {

TEST(Config, ParsesProfilesAndResolvesPathsAgainstTheFile) {
  Result<Config> c = ParseConfig(
      R"({"hangar":1,"spool":"sp","slots":3,"profiles":{"script":{"argv":["{bindir}/d"],"prompt":"both",)"
      R"("last_message":"{run}/last","env":{"PATH":"/bin"}}}})",
      "/etc/hangar/hangar.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->spool, "/etc/hangar/sp");
  EXPECT_EQ(c->slots, 3);
  EXPECT_EQ(c->profiles.at("script").prompt, PromptVia::kBoth);
  EXPECT_EQ(c->profiles.at("script").env.at("PATH"), "/bin");
}

TEST(Config, ErrorsNameFileFieldAndReason) {
  auto err = [](const std::string& text) {
    return ParseConfig(text, "/c.conf").status().message();
  };
  EXPECT_EQ(err(R"({"hangar":1,"profiles":{"x":{"argv":[]}}})"),
            "/c.conf: profiles.x.argv: expected a non-empty list");
  EXPECT_EQ(err(R"({"hangar":1,"slots":-1,"profiles":{"x":{"argv":["a"]}}})"),
            "/c.conf: slots: expected an integer from 0 to 4096");
  EXPECT_EQ(err(R"({"hangar":1,"profiles":{"x":{"argv":["a"],"shell":true}}})"),
            "/c.conf: profiles.x.shell: unknown field (a profile has harness, argv, program, args, "
            "allowed_tools, prompt, last_message, env, egress, egress_methods, sandbox, launcher)");
  EXPECT_EQ(err(R"({"hangar":1,"profiles":{}})"),
            "/c.conf: profiles: expected at least one drone profile");
  EXPECT_EQ(
      err(R"({"hangar":1,"slot":3,"profiles":{"x":{"argv":["a"]}}})"),
      "/c.conf: slot: unknown field (a config has hangar, spool, anchor, policy, ledger_name, "
      "checkpoint, rooms, slots, kill_grace_s, notify_retry_s, canary_s, queue_warm, manifest, "
      "drone_user, "
      "approvers, allowed_signers, four_eyes, record_signals, limits, retention, launchers, "
      "profiles, "
      "ops)");
  // A field given twice is refused at every level, a profile's or an op's name too.
  EXPECT_EQ(err(R"({"hangar":1,"limits":{"processes":100,"processes":200},)"
                R"("profiles":{"x":{"argv":["a"]}}})"),
            "/c.conf: limits.processes: field given twice");
  EXPECT_EQ(err(R"({"hangar":1,"profiles":{"x":{"argv":["a"]},"x":{"argv":["b"]}}})"),
            "/c.conf: profiles.x: field given twice");
  EXPECT_EQ(err("{"),
            "/c.conf: not valid JSON: The JSON document has an improper structure: missing or "
            "superfluous commas, braces, missing keys, etc.");
}

TEST(Config, AProfileNamesItsLauncherAndTheEnginesTheirSettings) {
  Result<Config> c = ParseConfig(
      R"({"hangar":1,"launchers":{"systemd_user":true,"slurm_partition":"gpu","poll_s":5},)"
      R"("profiles":{"a":{"argv":["d"]},"b":{"argv":["d"],"launcher":"slurm"}}})",
      "/c.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->profiles.at("a").launcher, "direct");
  EXPECT_EQ(c->profiles.at("b").launcher, "slurm");
  EXPECT_TRUE(c->launchers.systemd_user);
  EXPECT_EQ(c->launchers.slurm_partition, "gpu");
  EXPECT_EQ(c->launchers.poll_s, 5);
  auto err = [](const std::string& text) {
    return ParseConfig(text, "/c.conf").status().message();
  };
  EXPECT_EQ(err(R"({"hangar":1,"profiles":{"x":{"argv":["a"],"launcher":"lsf"}}})"),
            "/c.conf: profiles.x.launcher: expected \"direct\", \"systemd\" or \"slurm\"");
  EXPECT_EQ(err(R"({"hangar":1,"launchers":{"pbs":1},"profiles":{"x":{"argv":["a"]}}})"),
            "/c.conf: launchers.pbs: unknown field (launchers has systemd_user, slurm_partition, "
            "poll_s)");
  EXPECT_EQ(err(R"({"hangar":1,"launchers":{"poll_s":0},"profiles":{"x":{"argv":["a"]}}})"),
            "/c.conf: launchers.poll_s: expected an integer from 1 to 3600");
}

TEST(Config, LimitsOnEveryDroneWithDefaults) {
  Result<Config> d = ParseConfig(R"({"hangar":1,"profiles":{"x":{"argv":["a"]}}})", "/c.conf");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->limits, DroneLimits{});
  EXPECT_EQ(d->limits.processes, 1024);
  Result<Config> c =
      ParseConfig(R"({"hangar":1,"limits":{"processes":64,"file_mb":10,"memory_mb":512,"shm_mb":8,)"
                  R"("ops_per_minute":5},)"
                  R"("profiles":{"x":{"argv":["a"]}}})",
                  "/c.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->limits, (DroneLimits{64, 10, 512, 8, 5}));
  auto err = [](const std::string& limits) {
    return ParseConfig(R"({"hangar":1,"limits":)" + limits + R"(,"profiles":{"x":{"argv":["a"]}}})",
                       "/c.conf")
        .status()
        .message();
  };
  EXPECT_EQ(err(R"({"memory":1})"),
            "/c.conf: limits.memory: unknown field (limits has processes, file_mb, memory_mb, "
            "shm_mb, ops_per_minute)");
  EXPECT_EQ(err(R"({"memory_mb":1})"),
            "/c.conf: limits.memory_mb: expected an integer from 64 to 1073741824");
  EXPECT_EQ(err(R"({"processes":1})"),
            "/c.conf: limits.processes: expected an integer from 16 to 4194304");
  EXPECT_EQ(err("[]"), "/c.conf: limits: expected an object");
}

TEST(Config, DroneUserIsALoginName) {
  Result<Config> c = ParseConfig(
      R"({"hangar":1,"drone_user":"hangar-drone","profiles":{"x":{"argv":["a"]}}})", "/c.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->drone_user, "hangar-drone");
  for (const char* bad : {R"("")", R"("a:b")", R"("../x")", "7"}) {
    Result<Config> e = ParseConfig(
        std::string(R"({"hangar":1,"drone_user":)") + bad + R"(,"profiles":{"x":{"argv":["a"]}}})",
        "/c.conf");
    EXPECT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().message().rfind("/c.conf: drone_user: ", 0), 0u) << e.status().message();
  }
}

TEST(Config, LedgerAnchorAndCheckpointSettings) {
  Result<Config> c = ParseConfig(
      R"({"hangar":1,"anchor":"anchor.d","ledger_name":"night","profiles":{"x":{"argv":["a"]}},)"
      R"("checkpoint":{"every":10,"seconds":60,"key":"keys/ck.key"}})",
      "/etc/hangar/hangar.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->anchor, "/etc/hangar/anchor.d");
  EXPECT_EQ(c->ledger_name, "night");
  EXPECT_EQ(c->checkpoint_every, 10);
  EXPECT_EQ(c->checkpoint_seconds, 60);
  EXPECT_EQ(c->checkpoint_key, "/etc/hangar/keys/ck.key");
  Result<Config> d = ParseConfig(R"({"hangar":1,"profiles":{"x":{"argv":["a"]}}})", "/c.conf");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->ledger_name, "live");
  EXPECT_EQ(d->anchor, "");
  auto err = [](const std::string& text) {
    return ParseConfig(text, "/c.conf").status().message();
  };
  EXPECT_EQ(err(R"({"hangar":1,"ledger_name":"../x","profiles":{"x":{"argv":["a"]}}})"),
            "/c.conf: ledger_name: expected a name of letters, digits, '.', '_' and '-' (at most "
            "64)");
  EXPECT_EQ(err(R"({"hangar":1,"checkpoint":{"often":1},"profiles":{"x":{"argv":["a"]}}})"),
            "/c.conf: checkpoint.often: unknown field (checkpoint has every, seconds, key)");
}

// ---- harness profiles: argv built from program and args ----

std::string ConfigErr(const std::string& profiles_or_ops) {
  return ParseConfig(R"({"hangar":1,)" + profiles_or_ops + "}", "/c.conf").status().message();
}

Profile OnlyProfile(const std::string& profile) {
  Result<Config> c = ParseConfig(R"({"hangar":1,"profiles":{"x":)" + profile + "}}", "/c.conf");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? c->profiles.at("x") : Profile{};
}

TEST(Config, ACodexProfileFromProgramAndArgsRunsUnattendedInsideOurSandbox) {
  Profile p =
      OnlyProfile(R"({"harness":"codex","program":"/opt/codex/bin/codex","args":["-m","gpt-5"]})");
  EXPECT_EQ(p.harness, Harness::kCodex);
  EXPECT_EQ(p.argv, (std::vector<std::string>{"/opt/codex/bin/codex",
                                              "exec",
                                              "--skip-git-repo-check",
                                              "--ephemeral",
                                              "--json",
                                              "--ignore-user-config",
                                              "--ignore-rules",
                                              "--disable",
                                              "plugins",
                                              "-c",
                                              "allow_login_shell=false",
                                              "-c",
                                              "analytics.enabled=false",
                                              "-C",
                                              "{room}",
                                              "-o",
                                              "{run}/last-message.txt",
                                              "--dangerously-bypass-approvals-and-sandbox",
                                              "-m",
                                              "gpt-5",
                                              "-"}));
  EXPECT_EQ(p.argv, BuildHarnessArgv(Harness::kCodex, "/opt/codex/bin/codex", {"-m", "gpt-5"},
                                     /*sandboxed=*/true, {}));
  EXPECT_EQ(p.stdout_file, "events.jsonl");
  EXPECT_EQ(p.last_message, "{run}/last-message.txt");
  EXPECT_EQ(p.prompt, PromptVia::kStdin);
}

TEST(Config, SandboxIsOneOfTheEngines) {
  // "namespaces" is hangar's sandbox as much as "bwrap": codex's own is bypassed under it too.
  Profile own = OnlyProfile(R"({"harness":"codex","program":"codex","sandbox":"namespaces"})");
  EXPECT_EQ(own.sandbox, "namespaces");
  EXPECT_NE(
      std::find(own.argv.begin(), own.argv.end(), "--dangerously-bypass-approvals-and-sandbox"),
      own.argv.end());
  Result<Config> bad = ParseConfig(
      R"({"hangar":1,"profiles":{"x":{"argv":["a"],"sandbox":"firejail"}}})", "/c.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "profiles.x.sandbox: expected \"bwrap\", \"namespaces\" or \"none\""),
            std::string::npos)
      << bad.status().message();
}

TEST(Config, ACodexProfileWithoutOurSandboxKeepsItsOwn) {
  Profile p = OnlyProfile(R"({"harness":"codex","program":"codex","sandbox":"none"})");
  const std::vector<std::string>& a = p.argv;
  auto at = std::find(a.begin(), a.end(), "-s");
  ASSERT_NE(at, a.end());
  ASSERT_NE(at + 1, a.end());
  EXPECT_EQ(*(at + 1), "workspace-write");
  EXPECT_EQ(std::find(a.begin(), a.end(), "--dangerously-bypass-approvals-and-sandbox"), a.end());
  EXPECT_EQ(a.back(), "-");  // the prompt on stdin, after the admin's args
  std::vector<std::string> sandboxed =
      BuildHarnessArgv(Harness::kCodex, "codex", {}, /*sandboxed=*/true, {});
  EXPECT_EQ(std::find(sandboxed.begin(), sandboxed.end(), "-s"), sandboxed.end());
}

TEST(Config, ACodexProfileWithItsOwnArgvKeepsItButReadsCodexOutput) {
  Profile p = OnlyProfile(R"({"harness":"codex","argv":["/bin/codex","exec","-"]})");
  EXPECT_EQ(p.argv, (std::vector<std::string>{"/bin/codex", "exec", "-"}));
  EXPECT_EQ(p.stdout_file, "events.jsonl");
  EXPECT_EQ(p.last_message, "{run}/last-message.txt");
  EXPECT_EQ(OnlyProfile(R"({"argv":["/bin/d"]})").stdout_file, "stdout");
}

TEST(Config, AClaudeProfileJoinsItsAllowedTools) {
  Profile p = OnlyProfile(
      R"x({"harness":"claude","program":"claude","allowed_tools":["Read","Edit","Bash(git:*)"],)x"
      R"("args":["--model","opus"]})");
  EXPECT_EQ(p.harness, Harness::kClaude);
  EXPECT_EQ(p.argv,
            (std::vector<std::string>{"claude", "-p", "--output-format", "stream-json", "--verbose",
                                      "--permission-mode", "dontAsk", "--allowedTools",
                                      "Read,Edit,Bash(git:*)", "--model", "opus"}));
  EXPECT_EQ(p.stdout_file, "stream.jsonl");
  Profile none = OnlyProfile(R"({"harness":"claude","program":"claude"})");
  EXPECT_EQ(std::find(none.argv.begin(), none.argv.end(), "--allowedTools"), none.argv.end());
}

TEST(Config, HarnessProfileErrorsNameTheField) {
  EXPECT_EQ(ConfigErr(R"("profiles":{"x":{"harness":"codex","argv":["a"],"program":"codex"}})"),
            "/c.conf: profiles.x.argv: give argv, or program and args, not both");
  EXPECT_EQ(ConfigErr(R"("profiles":{"x":{"harness":"claude","argv":["a"],"args":["-v"]}})"),
            "/c.conf: profiles.x.argv: give argv, or program and args, not both");
  EXPECT_EQ(ConfigErr(R"("profiles":{"x":{"program":"/bin/d"}})"),
            "/c.conf: profiles.x.program: only a codex or claude profile builds its argv from "
            "program and args");
  EXPECT_EQ(ConfigErr(R"("profiles":{"x":{"harness":"command","argv":["a"],"args":["b"]}})"),
            "/c.conf: profiles.x.args: only a codex or claude profile builds its argv from program "
            "and args");
  EXPECT_EQ(
      ConfigErr(R"("profiles":{"x":{"harness":"codex","program":"c","allowed_tools":["R"]}})"),
      "/c.conf: profiles.x.allowed_tools: only a claude profile has allowed_tools");
  EXPECT_EQ(ConfigErr(R"("profiles":{"x":{"harness":"gemini","program":"g"}})"),
            "/c.conf: profiles.x.harness: expected \"command\", \"codex\" or \"claude\"");
  EXPECT_EQ(ConfigErr(R"("profiles":{"x":{"harness":"codex"}})"),
            "/c.conf: profiles.x.program: missing required field (or give argv)");
}

// ---- op handlers ----

TEST(Config, OpHandlersAreParsedWithAPathAdded) {
  Result<Config> c = ParseConfig(
      R"({"hangar":1,"profiles":{"x":{"argv":["a"]}},"ops":{)"
      R"("post.message":{"argv":["/usr/lib/hangar/post","--to","chat"],"env":{"TOKEN_FILE":"/t"},)"
      R"("timeout_s":10},"git.push":{"argv":["/usr/bin/git-push"],"env":{"PATH":"/opt/bin"}}}})",
      "/c.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->ops.size(), 2u);
  const OpHandler& post = c->ops.at("post.message");
  EXPECT_EQ(post.name, "post.message");
  EXPECT_EQ(post.argv, (std::vector<std::string>{"/usr/lib/hangar/post", "--to", "chat"}));
  EXPECT_EQ(post.timeout_s, 10);
  EXPECT_EQ(post.env, (std::map<std::string, std::string>{{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                                          {"TOKEN_FILE", "/t"}}));
  const OpHandler& push = c->ops.at("git.push");
  EXPECT_EQ(push.timeout_s, 30);
  EXPECT_EQ(push.env, (std::map<std::string, std::string>{{"PATH", "/opt/bin"}}));
}

TEST(Config, OpHandlerErrorsNameTheField) {
  const std::string p = R"("profiles":{"x":{"argv":["a"]}},)";
  EXPECT_EQ(ConfigErr(p + R"("ops":{"post":{"argv":["post.sh"]}})"),
            "/c.conf: ops.post.argv[0]: expected an absolute path");
  EXPECT_EQ(ConfigErr(p + R"("ops":{"Post Message":{"argv":["/p"]}})"),
            "/c.conf: ops.Post Message: expected an op name ([a-z][a-z0-9._-]*, at most 64 bytes)");
  EXPECT_EQ(ConfigErr(p + R"("ops":{"post":{"argv":["/p"],"timeout_s":0}})"),
            "/c.conf: ops.post.timeout_s: expected an integer from 1 to 3600");
  EXPECT_EQ(ConfigErr(p + R"("ops":{"post":{"argv":["/p"],"timeout_s":3601}})"),
            "/c.conf: ops.post.timeout_s: expected an integer from 1 to 3600");
  EXPECT_EQ(ConfigErr(p + R"("ops":{"post":{"argv":["/p"],"shell":true}})"),
            "/c.conf: ops.post.shell: unknown field (an op has argv, env, timeout_s)");
  EXPECT_EQ(ConfigErr(p + R"("ops":{"post":{"env":{}}})"),
            "/c.conf: ops.post.argv: missing required field");
  EXPECT_EQ(ConfigErr(p + R"("ops":{"post":{"argv":[]}})"),
            "/c.conf: ops.post.argv: expected a non-empty list");
  Result<Config> edge =
      ParseConfig(R"({"hangar":1,"profiles":{"x":{"argv":["a"]}},"ops":{"p":{"argv":["/p"],)"
                  R"("timeout_s":3600}}})",
                  "/c.conf");
  ASSERT_TRUE(edge.ok()) << edge.status().message();
  EXPECT_EQ(edge->ops.at("p").timeout_s, 3600);
}

}  // namespace
// An agent profile reaches its vendor's API by default; a profile that names its own
// destinations (another base URL, a local model) gets exactly those.
TEST(Config, AgentProfilesDefaultToTheirVendorsApi) {
  EXPECT_EQ(OnlyProfile(R"({"harness":"codex","program":"codex"})").egress,
            (std::vector<Destination>{{"api.openai.com", 443}}));
  EXPECT_EQ(OnlyProfile(R"({"harness":"claude","program":"claude"})").egress,
            (std::vector<Destination>{{"api.anthropic.com", 443}}));
  EXPECT_EQ(
      OnlyProfile(R"({"harness":"codex","program":"codex","egress":["127.0.0.1:8080"]})").egress,
      (std::vector<Destination>{{"127.0.0.1", 8080}}));
  EXPECT_TRUE(OnlyProfile(R"({"argv":["/bin/true"]})").egress.empty());
}

// Plain-HTTP methods a profile's proxy forwards: capitals, each once, never CONNECT.
TEST(Config, EgressMethodsAreHttpMethodsInCapitals) {
  EXPECT_EQ(OnlyProfile(R"({"harness":"codex","program":"c","egress_methods":["GET","HEAD"]})")
                .egress_methods,
            (std::vector<std::string>{"GET", "HEAD"}));
  EXPECT_TRUE(OnlyProfile(R"({"harness":"codex","program":"c"})").egress_methods.empty());
  auto err = [](const std::string& methods) {
    return ParseConfig(
               R"({"hangar":1,"profiles":{"x":{"argv":["a"],"egress_methods":)" + methods + "}}}",
               "/c.conf")
        .status()
        .message();
  };
  EXPECT_EQ(err(R"(["get"])"),
            "/c.conf: profiles.x.egress_methods: \"get\": expected an HTTP method in capitals "
            "(GET, HEAD)");
  EXPECT_EQ(err(R"(["GET","GET"])"), "/c.conf: profiles.x.egress_methods: GET given twice");
  EXPECT_EQ(err("[]"), "/c.conf: profiles.x.egress_methods: expected a non-empty list");
  EXPECT_NE(err(R"(["CONNECT"])").find("CONNECT is how HTTPS is reached"), std::string::npos);
}

}  // namespace hangar

namespace hangar {

// A profile's definition is its object as canonical JSON: layout and key order do not change its
// sha256, a value does (man/hangard.8, CANARY); canary_s is 60 unless set, 0 turning it off.
TEST(Config, AProfilesDefinitionHashAndTheCanarySpan) {
  auto sha = [](const std::string& profile, const std::string& more = "") {
    Result<Config> c =
        ParseConfig("{\"hangar\":1," + more + "\"profiles\":{\"x\":" + profile + "}}", "/c.conf");
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? c->profiles.at("x").sha256 : std::string();
  };
  const std::string a = sha(R"({"argv":["a"],"env":{"M":"1"}})");
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(sha(R"({ "env": {"M": "1"},  "argv": [ "a" ] })"), a);
  EXPECT_NE(sha(R"({"argv":["a"],"env":{"M":"2"}})"), a);
  EXPECT_EQ(sha(R"({"argv":["a"],"env":{"M":"1"}})", "\"slots\":3,"), a);  // the profile's own
  Result<Config> d = ParseConfig(R"({"hangar":1,"profiles":{"x":{"argv":["a"]}}})", "/c.conf");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->canary_s, 60);
  Result<Config> off =
      ParseConfig(R"({"hangar":1,"canary_s":0,"profiles":{"x":{"argv":["a"]}}})", "/c.conf");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->canary_s, 0);
  EXPECT_EQ(
      ParseConfig(R"({"hangar":1,"canary_s":86401,"profiles":{"x":{"argv":["a"]}}})", "/c.conf")
          .status()
          .message(),
      "/c.conf: canary_s: expected an integer from 0 to 86400");
}

// The cold queue's depth (man/hangar.conf.5, queue_warm): 64 unless set, at least 1.
TEST(Config, QueueWarm) {
  auto parse = [](const std::string& more) {
    return ParseConfig("{\"hangar\":1," + more + "\"profiles\":{\"x\":{\"argv\":[\"a\"]}}}",
                       "/c.conf");
  };
  ASSERT_TRUE(parse("").ok());
  EXPECT_EQ(parse("")->queue_warm, 64);
  ASSERT_TRUE(parse("\"queue_warm\":2,").ok());
  EXPECT_EQ(parse("\"queue_warm\":2,")->queue_warm, 2);
  EXPECT_EQ(parse("\"queue_warm\":0,").status().message(),
            "/c.conf: queue_warm: expected an integer from 1 to 1048576");
}

TEST(Config, TheSignalRecordIsOnUnlessTurnedOff) {
  const std::string profiles = R"("profiles":{"x":{"argv":["a"]}})";
  Result<Config> on = ParseConfig("{\"hangar\":1," + profiles + "}", "/c.conf");
  ASSERT_TRUE(on.ok());
  EXPECT_TRUE(on->record_signals);
  Result<Config> off =
      ParseConfig("{\"hangar\":1,\"record_signals\":false," + profiles + "}", "/c.conf");
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->record_signals);
  EXPECT_EQ(ParseConfig("{\"hangar\":1,\"record_signals\":\"no\"," + profiles + "}", "/c.conf")
                .status()
                .message(),
            "/c.conf: record_signals: expected true or false");
}

}  // namespace hangar

namespace hangar {

TEST(Config, RetentionIsASpanPerStateAndAPeriod) {
  auto parse = [](const std::string& retention) {
    return ParseConfig(
        R"({"hangar":1,"retention":)" + retention + R"(,"profiles":{"x":{"argv":["a"]}}})",
        "/c.conf");
  };
  Result<Config> none = ParseConfig(R"({"hangar":1,"profiles":{"x":{"argv":["a"]}}})", "/c.conf");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->retention.any());
  Result<Config> c = parse(R"({"returned":"30d","rejected":"12h","every_s":600})");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->retention.returned, 30 * 86'400'000LL);
  EXPECT_EQ(c->retention.rejected, 12 * 3'600'000LL);
  EXPECT_FALSE(c->retention.denied);
  EXPECT_EQ(c->retention.every_s, 600);
  EXPECT_EQ(parse(R"({"returned":"30"})").status().message(),
            "/c.conf: retention.returned: expected a span of at least a minute: N followed by "
            "s, m, h or d (\"30d\", \"12h\")");
  EXPECT_EQ(parse(R"({"returned":"10s"})").status().message(),
            parse(R"({"returned":"30"})").status().message());  // under a minute: the same reason
  EXPECT_EQ(parse(R"({"queued":"1d"})").status().message(),
            "/c.conf: retention.queued: unknown field (retention has returned, denied, rejected, "
            "every_s)");
  EXPECT_EQ(parse(R"({"every_s":1})").status().message(),
            "/c.conf: retention.every_s: expected an integer from 60 to 86400");
}

}  // namespace hangar
