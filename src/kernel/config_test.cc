#include "kernel/config.h"

#include <gtest/gtest.h>

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
            "allowed_tools, prompt, last_message, env, sandbox)");
  EXPECT_EQ(err(R"({"hangar":1,"profiles":{}})"),
            "/c.conf: profiles: expected at least one drone profile");
  EXPECT_EQ(err("{"),
            "/c.conf: not valid JSON: The JSON document has an improper structure: missing or "
            "superfluous commas, braces, missing keys, etc.");
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

}  // namespace
}  // namespace hangar
