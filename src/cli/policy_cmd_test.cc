// hangar policy check: what it prints and how it exits, on files in a scratch directory; and the
// reference policy shipped in spool/policy.json must pass it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/scratch_dir_testutil.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "kernel/policy.h"

namespace hangar::cli {
namespace {

struct Checked {
  int rc;
  std::string out, err;
};

class PolicyCheckTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  Checked Run(const std::string& file, bool json = false) {
    std::ostringstream out, err;
    Context ctx{RealEnv(), Layout::Make(dir_.path() + "/spool", ""), "", false, json, out, err};
    int rc = RunPolicyCheck(ctx, file);
    return {rc, out.str(), err.str()};
  }
  ScratchDir dir_{"policy-check"};
};

TEST_F(PolicyCheckTest, ValidPolicyPrintsRulesAndDigest) {
  const std::string f = Write("p.json", R"({"hangar_policy": 1, "acts": {"deny": ["post"]}})");
  Checked c = Run(f);
  EXPECT_EQ(c.rc, kExitOk);
  EXPECT_EQ(c.err, "");
  Policy p = ParsePolicy(R"({"hangar_policy":1,"acts":{"deny":["post"]}})", "x").value();
  EXPECT_EQ(c.out, f + ": ok, policy v1, 8 rules (sha256 " + PolicyDigest(p) + ")\n");
}

TEST_F(PolicyCheckTest, InvalidPolicyNamesFileFieldAndReasonAndExits65) {
  const std::string f =
      Write("p.json", R"({"hangar_policy": 1, "acts": {"hold": ["send", "buy", "Pay"]}})");
  Checked c = Run(f);
  EXPECT_EQ(c.rc, 65);
  EXPECT_EQ(c.out, "");
  EXPECT_EQ(c.err, "hangar: cannot load policy: " + f +
                       ": acts.hold[2]: expected a verb of lower-case letters\n");
  Checked big = Run(Write("big.json", std::string(kMaxPolicyBytes + 1, ' ')));
  EXPECT_EQ(big.rc, 65);
  EXPECT_NE(big.err.find("larger than 1 MiB"), std::string::npos) << big.err;
}

TEST_F(PolicyCheckTest, UnreadableFileExits66) {
  Checked c = Run(dir_.path() + "/none.json");
  EXPECT_EQ(c.rc, 66);
  EXPECT_EQ(c.err.rfind("hangar: cannot read policy " + dir_.path() + "/none.json: ", 0), 0u)
      << c.err;
  Checked d = Run(dir_.path());
  EXPECT_EQ(d.rc, 66);
  EXPECT_EQ(d.err, "hangar: cannot read policy " + dir_.path() + ": not a regular file\n");
}

TEST_F(PolicyCheckTest, JsonSaysTheSameWithTheSameExitStatus) {
  const std::string good = Write("g.json", R"({"hangar_policy": 1})");
  Checked c = Run(good, true);
  EXPECT_EQ(c.rc, 0);
  json::Value v = json::Parse(c.out).value();
  EXPECT_EQ(v, json::Value(json::Object{{"file", good},
                                        {"ok", true},
                                        {"error", nullptr},
                                        {"rules", 7},
                                        {"sha256", PolicyDigest(DefaultPolicy())}}));
  const std::string bad = Write("b.json", R"({"hangar_policy": 2})");
  Checked b = Run(bad, true);
  EXPECT_EQ(b.rc, 65);
  EXPECT_EQ(b.err, "");
  EXPECT_EQ(json::Parse(b.out).value(),
            json::Value(json::Object{
                {"file", bad},
                {"ok", false},
                {"error", "cannot load policy: " + bad +
                              ": hangar_policy: expected 1 (the only policy format version this "
                              "hangar reads)"},
                {"rules", nullptr},
                {"sha256", nullptr}}));
  Checked m = Run(dir_.path() + "/none.json", true);
  EXPECT_EQ(m.rc, 66);
  EXPECT_EQ(json::Parse(m.out).value().find("ok")->as_bool(), false);
}

TEST_F(PolicyCheckTest, TheShippedReferencePolicyIsValid) {
  const std::string f = std::filesystem::read_symlink("/proc/self/exe").parent_path().string() +
                        "/../spool/policy.json";
  ASSERT_TRUE(std::filesystem::exists(f)) << f;
  Checked c = Run(f);
  EXPECT_EQ(c.rc, 0) << c.err;
}

}  // namespace
}  // namespace hangar::cli
