// hangard's stderr lines: a priority prefix and no time of their own when stderr is the journal.
#include "daemon/stderr_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

namespace hangar {
namespace {

TEST(StderrLine, PrefixForTheJournalTimeElsewhere) {
  EXPECT_EQ(StderrLine(true, Priority::kErr, "2026-12-02T10:00:00.000Z", "STOPPED: x"),
            "<3>hangard: STOPPED: x\n");
  EXPECT_EQ(StderrLine(true, Priority::kWarning, "", "warning: y"), "<4>hangard: warning: y\n");
  EXPECT_EQ(StderrLine(false, Priority::kInfo, "2026-12-02T10:00:00.000Z", "started"),
            "2026-12-02T10:00:00.000Z hangard: started\n");
  EXPECT_EQ(StderrLine(false, Priority::kErr, "", "fatal: z"), "hangard: fatal: z\n");
}

TEST(StderrIsJournal, OnlyWhenJournalStreamNamesFd2) {
  struct stat st {};
  ASSERT_EQ(fstat(2, &st), 0);
  const std::string mine = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  setenv("JOURNAL_STREAM", mine.c_str(), 1);
  EXPECT_TRUE(StderrIsJournal());
  setenv("JOURNAL_STREAM", (mine + "1").c_str(), 1);  // another stream: stderr was redirected
  EXPECT_FALSE(StderrIsJournal());
  unsetenv("JOURNAL_STREAM");
  EXPECT_FALSE(StderrIsJournal());
}

}  // namespace
}  // namespace hangar
