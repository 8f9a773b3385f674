// hangard.json as PresenceJson builds it: what `hangar status` and monitoring read.
#include "daemon/presence.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace hangar {
namespace {

struct Fixture {
  KernelSetup setup;
  Layout layout{"/s", "/s/rooms"};
  State state;
  WorkState work;
  PresenceFacts Facts() {
    return {.setup = setup,
            .layout = layout,
            .state = state,
            .work = work,
            .config_path = "/s/hangar.conf",
            .pid = 42,
            .started = 1000,
            .now = 2000,
            .status = "running",
            .ledger_name = "live",
            .anchor_path = "/a/live.anchor",
            .free_bytes = 123,
            .approvers = {{0, "root"}, {1000, "ann"}}};
  }
};

TEST(Presence, SaysWhoRunsWhereAndWhoMayDecide) {
  Fixture f;
  f.setup.config.slots = 3;
  f.setup.config.four_eyes = true;
  const json::Value p = PresenceJson(f.Facts());
  EXPECT_EQ(p.find("pid")->as_int(), 42);
  EXPECT_EQ(p.find("spool")->as_string(), "/s");
  EXPECT_EQ(p.find("slots")->as_int(), 3);
  EXPECT_EQ(p.find("status")->as_string(), "running");
  const json::Value& decide = *p.find("decide");
  EXPECT_TRUE(decide.find("four_eyes")->as_bool());
  ASSERT_EQ(decide.find("approvers")->as_array().size(), 2u);
  EXPECT_EQ(decide.find("approvers")->as_array()[1].find("user")->as_string(), "ann");
  EXPECT_EQ(p.find("ledger")->find("state")->as_string(), "ok");
  EXPECT_EQ(p.find("work")->find("state")->as_string(), "ok");
  EXPECT_EQ(p.find("storage")->find("free_bytes")->as_int(), 123);
}

// RLIMIT_NPROC binds no process of uid 0: a root hangard without a drone user says so.
TEST(Presence, SaysWhetherTheProcessLimitBinds) {
  Fixture f;
  f.setup.root = true;
  EXPECT_FALSE(PresenceJson(f.Facts())
                   .find("sandbox")
                   ->find("limits")
                   ->find("processes_enforced")
                   ->as_bool());
  f.setup.drone_uid = 990;
  EXPECT_TRUE(PresenceJson(f.Facts())
                  .find("sandbox")
                  ->find("limits")
                  ->find("processes_enforced")
                  ->as_bool());
}

TEST(Presence, AFullDiskAndAFailedClosedLedgerAreShown) {
  Fixture f;
  f.work.Stop(Status::Errno("write", ENOSPC), 1500);
  f.state.fail_closed = "the ledger's head is not on its anchor";
  const json::Value p = PresenceJson(f.Facts());
  EXPECT_EQ(p.find("storage")->find("state")->as_string(), "full");
  EXPECT_EQ(p.find("storage")->find("since")->as_string(), FormatTime(1500));
  EXPECT_EQ(p.find("work")->find("state")->as_string(), "stopped");
  EXPECT_EQ(p.find("ledger")->find("state")->as_string(), "fail-closed");
  EXPECT_EQ(p.find("ledger")->find("reason")->as_string(), f.state.fail_closed);
}

}  // namespace
}  // namespace hangar
