// WorkState: the first reason of a stop stands and is said once; a full disk is told apart; intake
// pauses and resumes, each said once; hangard.json's "work" says which.
#include "daemon/work_state.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace hangar {
namespace {

TEST(WorkState, TheFirstStopStandsAndIsSaidOnce) {
  WorkState w;
  EXPECT_EQ(w.ToJson().at("state").as_string(), "ok");
  const std::string line = w.Stop(Status::Errno("fsync queued/M1", EIO), 5000);
  EXPECT_NE(line.find("STOPPED: cannot fsync queued/M1"), std::string::npos) << line;
  EXPECT_EQ(w.Stop(Status::Errno("rename running/M2", EROFS), 6000), "");
  EXPECT_TRUE(w.stopped());
  EXPECT_FALSE(w.storage_full());
  EXPECT_EQ(w.stopped_at(), 5000);
  const json::Object j = w.ToJson();
  EXPECT_EQ(j.at("state").as_string(), "stopped");
  EXPECT_NE(j.at("reason").as_string().find("queued/M1"), std::string::npos);
  EXPECT_EQ(j.at("since").as_string(), FormatTime(5000));
}

TEST(WorkState, NoSpaceIsAFullDiskThatEndsByARestart) {
  for (int e : {ENOSPC, EDQUOT}) {
    WorkState w;
    const std::string line = w.Stop(Status::Errno("write ledger", e), 1);
    EXPECT_TRUE(w.storage_full()) << e;
    EXPECT_NE(line.find("STOPPED (storage full)"), std::string::npos) << line;
    EXPECT_NE(line.find("restarts in place"), std::string::npos) << line;
  }
}

TEST(WorkState, IntakePausesAndResumesEachSaidOnce) {
  WorkState w;
  EXPECT_EQ(w.ResumeIntake("M0"), "");  // not paused: nothing to say
  EXPECT_NE(w.PauseIntake("No space left on device", 7000).find("intake paused"),
            std::string::npos);
  EXPECT_EQ(w.PauseIntake("No space left on device", 9000), "");  // still paused: said once
  EXPECT_TRUE(w.intake_paused());
  json::Object j = w.ToJson();
  EXPECT_EQ(j.at("state").as_string(), "intake-paused");
  EXPECT_EQ(j.at("since").as_string(), FormatTime(7000));  // since the first pause
  EXPECT_EQ(w.ResumeIntake("M1"), "intake resumed: M1 taken in");
  EXPECT_FALSE(w.intake_paused());
  EXPECT_EQ(w.ToJson().at("state").as_string(), "ok");
}

TEST(WorkState, AStopOutranksAPause) {
  WorkState w;
  w.PauseIntake("No space left on device", 1);
  w.Stop(Status::Errno("fsync", EIO), 2);
  EXPECT_EQ(w.ToJson().at("state").as_string(), "stopped");
}

}  // namespace
}  // namespace hangar
