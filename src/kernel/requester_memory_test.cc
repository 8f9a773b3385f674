#include "kernel/requester_memory.h"

#include <gtest/gtest.h>

#include "base/sha256.h"

namespace hangar {
namespace {

// A valid work state with EXTRA members (a leading comma) and without the section DROP.
std::string Doc(const std::string& extra = "", const std::string& drop = "") {
  std::string s = R"({"hangar_memory":1,"requester":"agent-a")";
  for (const char* n : kMemorySections)
    if (drop != n)
      s += std::string(",\"") + n + "\":\"" + (std::string(n) == "goal" ? "g" : "") + "\"";
  return s + extra + "}";
}

ParseError Err(const std::string& text) {
  auto r = ParseRequesterMemory(text);
  EXPECT_TRUE(std::holds_alternative<ParseError>(r)) << text;
  return std::holds_alternative<ParseError>(r) ? std::get<ParseError>(r) : ParseError{};
}

TEST(RequesterMemory, ReadsEverySectionAndRefs) {
  auto r = ParseRequesterMemory(Doc(
      R"(,"refs":[{"mission":"M-1","state":"running","approved":true,"in":"restore"},)"
      R"({"seq":4,"kind":"grant"},{"grant":"git.push","requester":"agent-a"},{"path":"/tmp/x"}])"));
  ASSERT_TRUE(std::holds_alternative<RequesterMemory>(r)) << std::get<ParseError>(r).Text();
  const RequesterMemory& m = std::get<RequesterMemory>(r);
  EXPECT_EQ(m.requester, "agent-a");
  EXPECT_EQ(m.Section("goal"), "g");
  ASSERT_EQ(m.refs.size(), 4u);
  EXPECT_EQ(m.refs[0].Text(), "mission M-1");
  EXPECT_TRUE(m.refs[0].approved);
  EXPECT_EQ(m.refs[0].in, "restore");
  EXPECT_EQ(m.refs[1].kind_claimed, "grant");
  EXPECT_EQ(m.refs[2].Text(), "grant git.push to requester agent-a");
  EXPECT_EQ(m.refs[3].path, "/tmp/x");
}

TEST(RequesterMemory, EverySectionIsRequiredAndNamed) {
  for (const char* s : kMemorySections) {
    ParseError e = Err(Doc("", s));
    EXPECT_EQ(e.field, s);
    EXPECT_NE(e.reason.find("missing required section"), std::string::npos);
  }
  EXPECT_EQ(Err(R"({"hangar_memory":1,"goal":""})").field, "requester");
  EXPECT_EQ(Err(Doc(R"(,"mood":"fine")")).field, "mood");
  EXPECT_EQ(Err(R"({"hangar_memory":2})").field, "hangar_memory");
}

TEST(RequesterMemory, SectionAndTotalLimits) {
  const std::string big(kMaxSectionBytes + 1, 'x');
  std::string doc = Doc();
  doc.replace(doc.find("\"next\":\"\""), 9, "\"next\":\"" + big + "\"");
  ParseError e = Err(doc);
  EXPECT_EQ(e.field, "next");
  EXPECT_NE(e.reason.find("over the section limit"), std::string::npos);
  // Each section at its limit: over the total.
  std::string all = R"({"hangar_memory":1,"requester":"a")";
  for (const char* n : kMemorySections)
    all += std::string(",\"") + n + "\":\"" + std::string(kMaxSectionBytes, 'y') + "\"";
  EXPECT_NE(Err(all + "}").reason.find("over the total limit"), std::string::npos);
}

TEST(RequesterMemory, BadUtf8NamesTheSectionItIsIn) {
  std::string doc = Doc();
  doc.replace(doc.find("\"evidence\":\"\""), 13, "\"evidence\":\"caf\xe9\"");
  ParseError e = Err(doc);
  EXPECT_EQ(e.field, "evidence");
  EXPECT_NE(e.reason.find("UTF-8"), std::string::npos);
  EXPECT_EQ(MemoryUtf8Error(doc, "memory")->field, "memory.evidence");
  EXPECT_FALSE(MemoryUtf8Error(Doc(), "memory"));
}

TEST(RequesterMemory, BadRefsAreNamed) {
  EXPECT_EQ(Err(Doc(R"(,"refs":[{"mission":"M-1","seq":3}])")).field, "refs[0]");
  EXPECT_EQ(Err(Doc(R"(,"refs":[{"mission":"M-1","state":"waiting"}])")).field, "refs[0].state");
  EXPECT_EQ(Err(Doc(R"(,"refs":[{"grant":"git.push"}])")).field, "refs[0]");
  EXPECT_EQ(Err(Doc(R"(,"refs":[{"path":"relative"}])")).field, "refs[0].path");
  EXPECT_EQ(Err(Doc(R"(,"refs":[{"seq":2,"approved":true}])")).field, "refs[0].approved");
  EXPECT_EQ(Err(Doc(R"(,"refs":[{"mission":"M-1","in":"diary"}])")).field, "refs[0].in");
}

TEST(RequesterMemory, TheStoredTextIsTheSameForTheSameState) {
  auto a = ParseRequesterMemory(Doc(R"(,"refs":[{"seq":1}])"));
  // The same state written otherwise: members in another order, whitespace.
  std::string other = R"({ "refs": [ {"seq": 1} ], "requester": "agent-a", "hangar_memory": 1)";
  for (const char* n : kMemorySections)
    other += std::string(", \"") + n + "\": \"" + (std::string(n) == "goal" ? "g" : "") + "\"";
  auto b = ParseRequesterMemory(other + "}");
  ASSERT_TRUE(std::holds_alternative<RequesterMemory>(a) &&
              std::holds_alternative<RequesterMemory>(b));
  const std::string text = std::get<RequesterMemory>(a).StoredText();
  EXPECT_EQ(text, std::get<RequesterMemory>(b).StoredText());
  // The stored text reads back as the same state.
  auto again = ParseRequesterMemory(text);
  ASSERT_TRUE(std::holds_alternative<RequesterMemory>(again));
  EXPECT_EQ(std::get<RequesterMemory>(again).StoredText(), text);
}

}  // namespace
}  // namespace hangar
