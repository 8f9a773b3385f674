// hangar logs --events: one line of codex's or claude's events, summarised as a person reads it.
#include "shell/harness_line.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

using Lines = std::vector<std::string>;

TEST(HarnessEventLines, CodexCommandsFilesMessagesAndErrors) {
  EXPECT_EQ(HarnessEventLines(R"({"type":"item.completed","item":{"type":"command_execution",)"
                              R"("command":"make test","exit_code":2,"status":"failed"}})"),
            Lines{"command: make test (exit 2)"});
  EXPECT_EQ(HarnessEventLines(R"({"type":"item.completed","item":{"type":"file_change",)"
                              R"("changes":[{"path":"a.py","kind":"update"},)"
                              R"({"path":"b.py","kind":"add"}],"status":"completed"}})"),
            (Lines{"file: update a.py", "file: add b.py"}));
  EXPECT_EQ(HarnessEventLines(R"({"type":"item.completed","item":{"type":"agent_message",)"
                              R"("text":"done\nall good"}})"),
            Lines{"message: done all good"});
  EXPECT_EQ(HarnessEventLines(R"({"type":"turn.failed","error":{"message":"quota"}})"),
            Lines{"error: quota"});
  EXPECT_TRUE(HarnessEventLines(R"({"type":"thread.started","thread_id":"x"})").empty());
}

TEST(HarnessEventLines, ClaudeToolUsesTextAndResult) {
  EXPECT_EQ(
      HarnessEventLines(R"({"type":"assistant","message":{"content":[)"
                        R"({"type":"text","text":"Looking."},)"
                        R"({"type":"tool_use","name":"Bash","input":{"command":"ls"}},)"
                        R"({"type":"tool_use","name":"Edit","input":{"file_path":"x.c"}}]}})"),
      (Lines{"message: Looking.", "tool: Bash ls", "tool: Edit x.c"}));
  EXPECT_EQ(HarnessEventLines(R"({"type":"result","subtype":"success"})"),
            Lines{"result: success"});
}

TEST(HarnessEventLines, NothingFromWhatIsNotAnEventAndLongTextIsCut) {
  EXPECT_TRUE(HarnessEventLines("not json").empty());
  EXPECT_TRUE(HarnessEventLines("   ").empty());
  EXPECT_TRUE(HarnessEventLines(R"(["type"])").empty());
  const std::string long_text(500, 'x');
  Lines l = HarnessEventLines(
      R"({"type":"item.completed","item":{"type":"agent_message","text":")" + long_text + R"("}})");
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0], "message: " + std::string(200, 'x') + "...");
}

}  // namespace
}  // namespace hangar
