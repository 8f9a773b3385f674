// The setup's facts: what hangard builds its kernel setup from reads back as exactly itself, and
// builds the same setup (the policy's digest, its home patterns expanded over the homes recorded,
// slots 0 as one per cpu); a bad config or policy is refused naming its file. Pure.
#include "kernel/setup_record.h"

#include <gtest/gtest.h>

#include "base/sha256.h"
#include "base/strict_json.h"

namespace hangar {
namespace {

SetupFacts Facts() {
  SetupFacts f;
  f.config_file = "/s/hangar.conf";
  f.config_text = R"({"hangar":1,"slots":0,"policy":"/s/policy.json",)"
                  R"("profiles":{"script":{"argv":["{bindir}/d"]}}})";
  f.policy_file = "/s/policy.json";
  f.policy_text = R"({"hangar_policy":1,"deny_read":["~*/.aws"],"acts":{"deny":["post"]}})";
  f.spool = "/s";
  f.bindir = "/b";
  f.anchor = "/a";
  f.home = "/root";
  f.bwrap = "/usr/bin/bwrap";
  f.homes = {"/home/ann", "/root", "/home/b\xff"};
  f.root = true;
  f.drone_uid = 1001;
  f.drone_gid = 1002;
  f.approvers = {0, 1000};
  f.cpus = 3;
  f.landlock_abi = 5;
  return f;
}

TEST(SetupRecord, FactsReadBackAsThemselves) {
  std::map<std::string, std::string> blobs;
  const SetupFacts f = Facts();
  const std::string text = json::Write(SetupFactsJson(f, [&](std::string_view b) {
    const std::string ref = "sha256:" + Sha256Hex(b);
    blobs[ref] = std::string(b);
    return ref;
  }));
  BlobIn in = [&](const std::string& ref) -> Result<std::string> { return blobs.at(ref); };
  std::variant<SetupFacts, ParseError> back = strict::ReadDocument<SetupFacts>(
      text, [&](simdjson::dom::element e) { return ReadSetupFactsAt(e, "", in); });
  ASSERT_TRUE(std::holds_alternative<SetupFacts>(back)) << std::get<ParseError>(back).Text();
  const SetupFacts& g = std::get<SetupFacts>(back);
  EXPECT_EQ(json::Write(SetupFactsJson(g, [](std::string_view b) { return Sha256Hex(b); })),
            json::Write(SetupFactsJson(f, [](std::string_view b) { return Sha256Hex(b); })));
  EXPECT_EQ(g.homes, f.homes);
  EXPECT_EQ(g.approvers, f.approvers);
  EXPECT_EQ(g.landlock_abi, 5);
  // A start line of hangar-kernel/3 or before has no landlock_abi: a host without Landlock, as
  // its plans were (they did not say), so that its history still replays.
  json::Value old = SetupFactsJson(f, [&](std::string_view b) { return "sha256:" + Sha256Hex(b); });
  old.as_object().erase("landlock_abi");
  std::variant<SetupFacts, ParseError> older = strict::ReadDocument<SetupFacts>(
      json::Write(old), [&](simdjson::dom::element e) { return ReadSetupFactsAt(e, "", in); });
  ASSERT_TRUE(std::holds_alternative<SetupFacts>(older)) << std::get<ParseError>(older).Text();
  EXPECT_EQ(std::get<SetupFacts>(older).landlock_abi, 0);
}

TEST(SetupRecord, BuildsTheSetupHangardRunsWith) {
  Result<KernelSetup> s = BuildSetup(Facts());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->config.slots, 3) << "slots 0: one per cpu, as recorded";
  EXPECT_EQ(s->spool, "/s");
  EXPECT_EQ(s->rooms, "/s/rooms");
  EXPECT_EQ(s->drone_uid, 1001);
  EXPECT_EQ(s->landlock_abi, 5);
  EXPECT_EQ(s->Site().landlock_abi, 5) << "stage 2 judges plans by the host's ABI";
  EXPECT_EQ(s->approvers, (std::set<int64_t>{0, 1000}));
  Result<Policy> p = ParsePolicy(Facts().policy_text, "/s/policy.json");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(s->policy_sha256, PolicyDigest(*p)) << "the file's digest, before the homes";
  const auto& deny = s->policy.deny_read;
  EXPECT_NE(std::find(deny.begin(), deny.end(), "/home/ann/.aws"), deny.end())
      << "~*/ stands for each home recorded";
  SetupFacts builtin = Facts();
  builtin.policy_file.clear();
  builtin.policy_text.clear();
  EXPECT_EQ(BuildSetup(builtin)->policy_sha256, PolicyDigest(DefaultPolicy()));
}

TEST(SetupRecord, ABadConfigOrPolicyIsRefusedNamingItsFile) {
  SetupFacts f = Facts();
  f.policy_text = R"({"hangar_policy":1,"acts":{"deny":"post"}})";
  Result<KernelSetup> s = BuildSetup(f);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("cannot load policy: /s/policy.json"), std::string::npos)
      << s.status().message();
  f = Facts();
  f.config_text = "{";
  EXPECT_NE(BuildSetup(f).status().message().find("cannot load config: /s/hangar.conf"),
            std::string::npos)
      << BuildSetup(f).status().message();
}

}  // namespace
}  // namespace hangar
