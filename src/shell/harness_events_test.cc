#include "shell/harness_events.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

// src/shell/testdata/codex_events.jsonl: what codex-cli 0.171.0 printed with --json when the
// scripted model server (tests/model-server) served codex_events.script.json: a command that
// writes made.txt, a command that fails, a patch adding notes.txt and updating made.txt, a patch
// codex refused (missing.txt: no event at all), then the message "done". Recorded with
// tests/model-server/run-codex.
std::string FixturePath() {
  std::filesystem::path rel = "src/shell/testdata/codex_events.jsonl";
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && std::filesystem::exists(exe.parent_path().parent_path() / rel))
    return (exe.parent_path().parent_path() / rel).string();
  return rel.string();
}

std::string Fixture() {
  std::ifstream in(FixturePath(), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Summary(std::string_view jsonl, size_t cap = kMaxHarnessEntries) {
  return json::Write(SummarizeCodexEvents(jsonl, cap));
}

constexpr char kFixtureSummary[] =
    R"({"bad_lines":0,)"
    R"("commands":[)"
    R"({"command":"/bin/bash -c \"printf 'hello\\\\n' > made.txt && cat made.txt\"",)"
    R"("exit_code":0,"status":"completed"},)"
    R"({"command":"/bin/bash -c 'ls no-such-file'","exit_code":2,"status":"failed"}],)"
    R"("errors":[],)"
    R"("file_changes":[)"
    R"({"kind":"update","path":"/srv/codex-demo/room/made.txt","status":"completed"},)"
    R"({"kind":"add","path":"/srv/codex-demo/room/notes.txt","status":"completed"}],)"
    R"("lines":10,"messages":1,)"
    R"("usage":{"cache_write_input_tokens":0,"cached_input_tokens":0,"input_tokens":500,)"
    R"("output_tokens":50,"reasoning_output_tokens":0}})";

TEST(CodexEventsTest, RealCodexOutputIsSummarized) {
  std::string text = Fixture();
  ASSERT_FALSE(text.empty()) << "cannot read " << FixturePath();
  EXPECT_EQ(Summary(text), kFixtureSummary);
}

TEST(CodexEventsTest, EmptyInputIsAnEmptySummary) {
  const char* empty =
      R"({"bad_lines":0,"commands":[],"errors":[],"file_changes":[],"lines":0,"messages":0})";
  EXPECT_EQ(Summary(""), empty);
  EXPECT_EQ(Summary("\n \n\r\n\t\n"), empty);
}

TEST(CodexEventsTest, BadLinesAreCountedAndSkipped) {
  const std::vector<std::string> bad = {
      "not json",
      R"({"type":"item.completed","item":{"type":"agent_message")",  // cut short
      "[1,2]",
      "{}",
      R"({"type":5})",
      R"({"type":"item.completed"})",
      R"({"type":"item.completed","item":"agent_message"})",
      R"({"type":"item.completed","item":{"type":"command_execution","command":5}})",
      R"({"type":"item.completed","item":{"type":"command_execution","command":"x",)"
      R"("exit_code":"0"}})",
      R"({"type":"item.completed","item":{"type":"file_change","changes":"a.txt"}})",
      R"({"type":"item.completed","item":{"type":"file_change","changes":[)"
      R"({"path":"a.txt","kind":"add"},{"path":"b.txt"}]}})",  // one bad change: none taken
      R"({"type":"item.completed","item":{"type":"error"}})",
      R"({"type":"error","message":null})",
      R"({"type":"turn.failed","error":"boom"})",
      R"({"type":"turn.completed","usage":[1]})",
      R"({"type":"turn.completed","usage":{"input_tokens":9223372036854775807,"x":1}})",
      "{\"type\":\"error\",\"message\":\"\xff\xfe\"}",  // not UTF-8
      std::string("{\"type\":\0\"x\"}", 13),            // a NUL byte
  };
  std::string text = R"({"type":"turn.completed","usage":{"input_tokens":1}})"
                     "\n";
  for (const std::string& line : bad) text += line + "\n";
  text += R"({"type":"item.completed","item":{"type":"agent_message","text":"ok"}})";  // no \n
  json::Value s = SummarizeCodexEvents(text);
  int64_t n = int64_t(bad.size());
  EXPECT_EQ(s.find("lines")->as_int(), n + 2);
  EXPECT_EQ(s.find("bad_lines")->as_int(), n);
  EXPECT_EQ(s.find("messages")->as_int(), 1);
  EXPECT_TRUE(s.find("commands")->as_array().empty());
  EXPECT_TRUE(s.find("file_changes")->as_array().empty());
  EXPECT_TRUE(s.find("errors")->as_array().empty());
  EXPECT_EQ(json::Write(*s.find("usage")), R"({"input_tokens":1})");  // the overflow added nothing
}

TEST(CodexEventsTest, ErrorsComeFromEventsTurnsAndItems) {
  std::string text =
      R"({"type":"error","message":"Reconnecting... 1/5"})"
      "\r\n"
      R"({"type":"item.completed","item":{"id":"item_0","type":"error","message":"metadata"}})"
      "\n"
      R"({"type":"turn.failed","error":{"message":"scripted failure"}})"
      "\n";
  json::Value s = SummarizeCodexEvents(text);
  EXPECT_EQ(json::Write(*s.find("errors")),
            R"(["Reconnecting... 1/5","metadata","scripted failure"])");
  EXPECT_EQ(s.find("bad_lines")->as_int(), 0);
}

TEST(CodexEventsTest, MissingFieldsReadAsNullAndUsageIsSummed) {
  std::string text =
      R"({"type":"item.completed","item":{"type":"command_execution","command":"ls"}})"
      "\n"
      R"({"type":"turn.completed","usage":{"input_tokens":3,"output_tokens":1}})"
      "\n"
      R"({"type":"turn.completed","usage":{"input_tokens":4,"note":"x","fraction":0.5}})"
      "\n"
      R"({"type":"turn.completed"})";
  json::Value s = SummarizeCodexEvents(text);
  EXPECT_EQ(json::Write(*s.find("commands")),
            R"([{"command":"ls","exit_code":null,"status":null}])");
  EXPECT_EQ(json::Write(*s.find("usage")), R"({"input_tokens":7,"output_tokens":1})");
  EXPECT_EQ(s.find("bad_lines")->as_int(), 0);
}

TEST(CodexEventsTest, CapsCountWhatTheyLeaveOut) {
  std::string text;
  for (int i = 0; i < 5; i++) {
    text += R"({"type":"item.completed","item":{"type":"command_execution","command":"c)" +
            std::to_string(i) + R"(","exit_code":0,"status":"completed"}})" + "\n";
    text += R"({"type":"error","message":"e)" + std::to_string(i) + "\"}\n";
  }
  text += R"({"type":"item.completed","item":{"type":"file_change","status":"failed",)"
          R"("changes":[{"path":"a","kind":"add"},{"path":"b","kind":"delete"},)"
          R"({"path":"c","kind":"update"}]}})";
  json::Value s = SummarizeCodexEvents(text, 2);
  EXPECT_EQ(s.find("commands")->as_array().size(), 2u);
  EXPECT_EQ(s.find("commands")->as_array()[1].find("command")->as_string(), "c1");
  EXPECT_EQ(s.find("commands_omitted")->as_int(), 3);
  EXPECT_EQ(s.find("errors_omitted")->as_int(), 3);
  EXPECT_EQ(json::Write(*s.find("file_changes")),
            R"([{"kind":"add","path":"a","status":"failed"},)"
            R"({"kind":"delete","path":"b","status":"failed"}])");
  EXPECT_EQ(s.find("file_changes_omitted")->as_int(), 1);
  EXPECT_EQ(s.find("lines")->as_int(), 11);
}

class CodexEventsFileTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"harness-events"};
  std::string Write(const std::string& text) {
    std::string path = scratch_.path() + "/events.jsonl";
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
};

TEST_F(CodexEventsFileTest, WholeFileIsSummarizedWithItsSize) {
  std::string text = Fixture();
  json::Value s = ReadCodexEvents(*RealEnv(), Write(text));
  EXPECT_TRUE(s.find("present")->as_bool());
  EXPECT_EQ(s.find("bytes")->as_int(), int64_t(text.size()));
  EXPECT_EQ(s.find("bytes_unread"), nullptr);
  EXPECT_EQ(s.find("lines")->as_int(), 10);
  EXPECT_EQ(s.find("error"), nullptr);
}

TEST_F(CodexEventsFileTest, CapReadsWholeLinesAndSaysWhatWasLeft) {
  std::string line = R"({"type":"item.completed","item":{"type":"agent_message","text":"hi"}})";
  std::string text = line + "\n" + line + "\n" + line + "\n";
  std::string path = Write(text);
  size_t cap = 2 * (line.size() + 1) + 5;  // two lines and a bit of the third
  json::Value s = ReadCodexEvents(*RealEnv(), path, cap);
  EXPECT_EQ(s.find("lines")->as_int(), 2);
  EXPECT_EQ(s.find("bad_lines")->as_int(), 0);
  EXPECT_EQ(s.find("bytes")->as_int(), int64_t(text.size()));
  EXPECT_EQ(s.find("bytes_unread")->as_int(), int64_t(line.size() + 1));

  s = ReadCodexEvents(*RealEnv(), path, text.size());  // exactly the file: nothing unread
  EXPECT_EQ(s.find("lines")->as_int(), 3);
  EXPECT_EQ(s.find("bytes_unread"), nullptr);

  s = ReadCodexEvents(*RealEnv(), path, 0);
  EXPECT_EQ(s.find("lines")->as_int(), 0);
  EXPECT_EQ(s.find("bytes_unread")->as_int(), int64_t(text.size()));
}

TEST_F(CodexEventsFileTest, AbsentFileIsNotPresentAndASymlinkIsNotRead) {
  EXPECT_EQ(json::Write(ReadCodexEvents(*RealEnv(), scratch_.path() + "/none")),
            R"({"present":false})");
  std::string link = scratch_.path() + "/link";
  ASSERT_EQ(symlink(Write("{}\n").c_str(), link.c_str()), 0);
  json::Value s = ReadCodexEvents(*RealEnv(), link);
  EXPECT_TRUE(s.find("present")->as_bool());
  ASSERT_NE(s.find("error"), nullptr);
  EXPECT_EQ(s.find("error")->as_string(), "cannot read " + link + ": not a regular file");
  EXPECT_EQ(s.find("lines"), nullptr);
}

}  // namespace
}  // namespace hangar
