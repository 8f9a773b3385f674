#include "launch/command.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

TEST(RunCommand, KeepsStdoutAndStderrApartWithTheExitStatus) {
  CommandResult r = RunCommand({"sh", "-c", "echo 123; echo warn >&2; exit 3"});
  EXPECT_TRUE(r.started);
  ASSERT_TRUE(r.rc);
  EXPECT_EQ(*r.rc, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.out, "123\n");
  EXPECT_EQ(r.err, "warn\n");
  EXPECT_EQ(r.Describe("sbatch"), "sbatch: exit 3: warn");
}

TEST(RunCommand, PassesExtraEnvironmentAndNoStdin) {
  CommandResult r = RunCommand({"sh", "-c", "printf %s \"$SLURM_CONF\"; cat"},
                               std::chrono::seconds(10), {"SLURM_CONF=/x/slurm.conf"});
  EXPECT_TRUE(r.ok()) << r.Describe("sh");
  EXPECT_EQ(r.out, "/x/slurm.conf");
}

TEST(RunCommand, ATimeoutIsNoExitStatus) {
  CommandResult r = RunCommand({"sleep", "30"}, std::chrono::milliseconds(200));
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.rc);
  EXPECT_EQ(r.error, "timed out after 200 ms");
  EXPECT_EQ(r.Describe("squeue"), "squeue: timed out after 200 ms");
}

TEST(RunCommand, AProgramNotOnPathIsNotStarted) {
  CommandResult r = RunCommand({"hangar-no-such-tool-here"});
  EXPECT_FALSE(r.started);
  EXPECT_EQ(r.Describe("hangar-no-such-tool-here"), "hangar-no-such-tool-here: not found on PATH");
}

}  // namespace
}  // namespace hangar
