#include "shell/claude_result.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace hangar {
namespace {

// The recorded sessions sit beside this file; the tests run from the repository root, as the
// compiler was given the source path relative to it.
std::string ReadTestdata(const std::string& name) {
  std::filesystem::path p = std::filesystem::path(__FILE__).parent_path() / "testdata" / name;
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Field(const json::Value& v, const char* key) {
  return json::Write(*v.find(key));
}

// A three-turn session: a Bash command that makes a file, one that fails, a final text.
TEST(ClaudeResult, RecordedSessionSucceeds) {
  std::string jsonl = ReadTestdata("claude_stream.jsonl");
  ASSERT_FALSE(jsonl.empty()) << "missing src/shell/testdata/claude_stream.jsonl";
  json::Value r = ReadClaudeResult(jsonl);
  EXPECT_EQ(Field(r, "present"), "true");
  EXPECT_EQ(Field(r, "is_error"), "false");
  EXPECT_EQ(Field(r, "subtype"), "\"success\"");
  EXPECT_EQ(Field(r, "terminal_reason"), "\"completed\"");
  EXPECT_EQ(Field(r, "api_error_status"), "null");
  EXPECT_EQ(Field(r, "num_turns"), "3");
  EXPECT_EQ(Field(r, "result"),
            "\"Created made.txt (18 bytes). Reading missing.txt failed: no such file.\"");
  EXPECT_EQ(Field(r, "result_truncated"), "false");
  EXPECT_EQ(Field(r, "errors"), "[]");
  EXPECT_EQ(Field(r, "permission_denials"), "0");
  EXPECT_EQ(
      Field(r, "tool_uses"),
      R"([{"input":"printf 'made by the drone\\n' > made.txt && wc -c made.txt","name":"Bash"},)"
      R"({"input":"cat missing.txt","name":"Bash"}])");
  EXPECT_EQ(Field(r, "tool_uses_omitted"), "0");
  EXPECT_EQ(Field(r, "bad_lines"), "0");
}

// The server refused the request (HTTP 400): Claude Code says "subtype": "success" all the same.
TEST(ClaudeResult, RecordedApiErrorIsErrorThoughSubtypeIsSuccess) {
  std::string jsonl = ReadTestdata("claude_stream_api_error.jsonl");
  ASSERT_FALSE(jsonl.empty());
  json::Value r = ReadClaudeResult(jsonl);
  EXPECT_EQ(Field(r, "present"), "true");
  EXPECT_EQ(Field(r, "is_error"), "true");
  EXPECT_EQ(Field(r, "subtype"), "\"success\"");
  EXPECT_EQ(Field(r, "terminal_reason"), "\"api_error\"");
  EXPECT_EQ(Field(r, "api_error_status"), "400");
  EXPECT_EQ(Field(r, "result"),
            "\"API Error: 400 script asks for tool 'Nope', which is not offered\"");
  EXPECT_EQ(Field(r, "tool_uses"), "[]");
  EXPECT_EQ(Field(r, "bad_lines"), "0");
}

// --max-budget-usd stopped the session: no "result" text, the reason is in "errors".
TEST(ClaudeResult, RecordedBudgetStopHasErrorsAndNoResult) {
  std::string jsonl = ReadTestdata("claude_stream_budget.jsonl");
  ASSERT_FALSE(jsonl.empty());
  json::Value r = ReadClaudeResult(jsonl);
  EXPECT_EQ(Field(r, "is_error"), "true");
  EXPECT_EQ(Field(r, "subtype"), "\"error_max_budget_usd\"");
  EXPECT_EQ(Field(r, "result"), "null");
  EXPECT_EQ(Field(r, "errors"), R"x(["Reached maximum budget ($0.01)"])x");
  EXPECT_EQ(Field(r, "num_turns"), "1");
  // The tool use was asked for but never run: it is listed all the same.
  EXPECT_EQ(r.find("tool_uses")->as_array().size(), 1u);
}

// Claude Code killed before its result line: the tool uses so far, and an error.
TEST(ClaudeResult, StreamCutBeforeResultIsError) {
  std::string jsonl = ReadTestdata("claude_stream.jsonl");
  size_t last = jsonl.rfind("\n{") + 1;  // the result line is the last one
  ASSERT_NE(jsonl.find("\"type\":\"result\"", last), std::string::npos);
  // Cut in the middle of the result line: a partial last line is a bad line.
  json::Value r = ReadClaudeResult(std::string_view(jsonl).substr(0, last + 40));
  EXPECT_EQ(Field(r, "present"), "false");
  EXPECT_EQ(Field(r, "is_error"), "true");
  EXPECT_EQ(Field(r, "subtype"), "null");
  EXPECT_EQ(Field(r, "result"), "null");
  EXPECT_EQ(r.find("tool_uses")->as_array().size(), 2u);
  EXPECT_EQ(Field(r, "bad_lines"), "1");
}

TEST(ClaudeResult, EmptyStreamIsErrorWithTheFullShape) {
  json::Value r = ReadClaudeResult("");
  EXPECT_EQ(json::Write(r),
            R"({"api_error_status":null,"bad_lines":0,"errors":[],"errors_omitted":0,)"
            R"("is_error":true,"num_turns":null,"permission_denials":0,"present":false,)"
            R"("result":null,"result_truncated":false,"subtype":null,"terminal_reason":null,)"
            R"("tool_uses":[],"tool_uses_omitted":0})");
}

TEST(ClaudeResult, BadLinesCountedBlankLinesAndCrlfNot) {
  std::string jsonl =
      "not json\n"
      "\n"
      "   \r\n"
      "[1,2]\n"
      "\"a string\"\n"
      "{\"type\":\"result\",\"is_error\":false,\"subtype\":\"success\",\"result\":\"ok\"}\r\n"
      "{\"type\":\"user\",\"message\":{\"content\":[{\"bad\"\n"
      "{\"no_type\":1}\n"
      "\xff\xfe\n";
  json::Value r = ReadClaudeResult(jsonl);
  EXPECT_EQ(Field(r, "bad_lines"), "5");
  EXPECT_EQ(Field(r, "is_error"), "false");
  EXPECT_EQ(Field(r, "result"), "\"ok\"");
}

TEST(ClaudeResult, IsErrorMissingOrNotABoolIsAnError) {
  for (const char* line :
       {R"({"type":"result","result":"x"})", R"({"type":"result","is_error":"false"})",
        R"({"type":"result","is_error":0})", R"({"type":"result","is_error":null})",
        R"({"type":"result","is_error":true})"}) {
    json::Value r = ReadClaudeResult(line);
    EXPECT_EQ(Field(r, "present"), "true") << line;
    EXPECT_EQ(Field(r, "is_error"), "true") << line;
  }
}

TEST(ClaudeResult, LastResultLineWins) {
  json::Value r = ReadClaudeResult(
      "{\"type\":\"result\",\"is_error\":false,\"result\":\"first\",\"num_turns\":1}\n"
      "{\"type\":\"result\",\"is_error\":true,\"subtype\":\"error_during_execution\"}\n");
  EXPECT_EQ(Field(r, "is_error"), "true");
  EXPECT_EQ(Field(r, "subtype"), "\"error_during_execution\"");
  EXPECT_EQ(Field(r, "result"), "null");
  EXPECT_EQ(Field(r, "num_turns"), "null");
}

TEST(ClaudeResult, ResultTextCappedAtUtf8Boundary) {
  // "é" is two bytes: a cap of 5 falls inside the third one, which is dropped whole.
  ClaudeResultLimits lim;
  lim.max_result_bytes = 5;
  json::Value r = ReadClaudeResult(R"({"type":"result","is_error":false,"result":"ééé"})", lim);
  EXPECT_EQ(Field(r, "result"), "\"éé\"");
  EXPECT_EQ(Field(r, "result_truncated"), "true");
  lim.max_result_bytes = 6;
  r = ReadClaudeResult(R"({"type":"result","is_error":false,"result":"ééé"})", lim);
  EXPECT_EQ(Field(r, "result"), "\"ééé\"");
  EXPECT_EQ(Field(r, "result_truncated"), "false");
}

TEST(ClaudeResult, DefaultResultCapIs64KiB) {
  std::string big(70000, 'x');
  json::Value r = ReadClaudeResult(R"({"type":"result","is_error":false,"result":")" + big + "\"}");
  EXPECT_EQ(r.find("result")->as_string().size(), 65536u);
  EXPECT_EQ(Field(r, "result_truncated"), "true");
}

TEST(ClaudeResult, ToolUsesCappedAndSummarised) {
  ClaudeResultLimits lim;
  lim.max_tool_uses = 3;
  lim.max_input_bytes = 8;
  std::string jsonl =
      R"({"type":"assistant","message":{"content":[)"
      R"({"type":"text","text":"thinking aloud"},)"
      R"({"type":"tool_use","name":"Write","input":{"file_path":"a.txt","content":"big"}},)"
      R"({"type":"tool_use","name":"Bash","input":{"command":"echo 0123456789"}}]}})"
      "\n"
      R"({"type":"assistant","message":{"content":[)"
      R"({"type":"tool_use","name":"Odd","input":{"z":1,"a":[2]}},)"
      R"({"type":"tool_use","name":"Bash","input":{"command":"true"}},)"
      R"({"type":"tool_use","name":"Bash","input":{"command":"false"}}]}})"
      "\n";
  json::Value r = ReadClaudeResult(jsonl, lim);
  EXPECT_EQ(Field(r, "tool_uses"),
            R"([{"input":"a.txt","name":"Write"},{"input":"echo 012...","name":"Bash"},)"
            R"({"input":"{\"a\":[2]...","name":"Odd"}])");
  EXPECT_EQ(Field(r, "tool_uses_omitted"), "2");
}

TEST(ClaudeResult, ErrorsCapped) {
  ClaudeResultLimits lim;
  lim.max_errors = 2;
  lim.max_error_bytes = 3;
  json::Value r = ReadClaudeResult(
      R"({"type":"result","is_error":true,"errors":["abcdef",{"k":1},"c","d"]})", lim);
  EXPECT_EQ(Field(r, "errors"), R"(["abc","{\"k"])");
  EXPECT_EQ(Field(r, "errors_omitted"), "2");
}

TEST(ClaudeResult, PermissionDenialsCounted) {
  json::Value r = ReadClaudeResult(
      R"({"type":"result","is_error":false,"permission_denials":[{"tool_name":"Bash"},{}]})");
  EXPECT_EQ(Field(r, "permission_denials"), "2");
}

// Every field of the wrong type: nothing throws, the wrong values read as absent.
TEST(ClaudeResult, WrongTypesReadAsAbsent) {
  std::string jsonl =
      "{\"type\":5}\n"
      "{\"type\":\"assistant\",\"message\":\"text\"}\n"
      "{\"type\":\"assistant\",\"message\":{\"content\":{\"type\":\"tool_use\"}}}\n"
      "{\"type\":\"assistant\",\"message\":{\"content\":[7,{\"type\":\"tool_use\",\"name\":3}]}}\n"
      "{\"type\":\"result\",\"is_error\":false,\"subtype\":1,\"num_turns\":\"3\",\"result\":[],"
      "\"errors\":\"e\",\"permission_denials\":{},\"api_error_status\":4.5,"
      "\"terminal_reason\":null}\n";
  json::Value r = ReadClaudeResult(jsonl);
  EXPECT_EQ(json::Write(r),
            R"({"api_error_status":null,"bad_lines":0,"errors":[],"errors_omitted":0,)"
            R"("is_error":false,"num_turns":null,"permission_denials":0,"present":true,)"
            R"("result":null,"result_truncated":false,"subtype":null,"terminal_reason":null,)"
            R"("tool_uses":[{"input":"","name":null}],"tool_uses_omitted":0})");
}

}  // namespace
}  // namespace hangar
