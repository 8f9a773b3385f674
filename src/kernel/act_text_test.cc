#include "kernel/act_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace hangar {
namespace {

const ActVerbs kVerbs = {{"post", "tweet", "publish", "send", "push", "buy"},
                         {"投稿", "送信", "公開", "購入", "プッシュ"}};

std::string Asked(std::string_view text, const ActVerbs& verbs = kVerbs) {
  std::set<std::string> names;
  for (const ActHit& h : FindAskedActs(text, verbs)) names.insert(h.verb);
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out.empty() ? "-" : out;
}

// Every occurrence with its rule: "post@4 asked en.imperative; push@20 not en.negated:never".
std::string Why(std::string_view text, const ActVerbs& verbs = kVerbs) {
  std::string out;
  for (const ActHit& h : ActMatcher(verbs).Explain(text)) {
    out += (out.empty() ? "" : "; ") + h.verb + "@" + std::to_string(h.offset) +
           (h.asked ? " asked " : " not ") + h.rule;
  }
  return out.empty() ? "(no occurrence)" : out;
}

TEST(ActText, TheIssueExamplesDoNotFire) {
  for (const char* text : {"do not post", "never push", "without publishing", "投稿しない",
                           "投稿禁止", "analyse why our last post got few replies"}) {
    EXPECT_EQ(Asked(text), "-") << text << "\n  " << Why(text);
  }
}

TEST(ActText, TheIssueExamplesFire) {
  EXPECT_EQ(Asked("post the notes on X"), "post") << Why("post the notes on X");
  EXPECT_EQ(Asked("push to origin main"), "push") << Why("push to origin main");
  EXPECT_EQ(Asked("X に投稿する"), "投稿") << Why("X に投稿する");
}

TEST(ActText, NegationEndsWithItsClause) {
  std::vector<ActHit> hits = FindAskedActs("do not post; push to main", kVerbs);
  ASSERT_EQ(hits.size(), 1u) << Why("do not post; push to main");
  EXPECT_EQ(hits[0].verb, "push");
}

TEST(ActText, AHitSaysWhereAndWhy) {
  std::string text = "Read the notes. Then push the branch!\n投稿しないで。";
  std::vector<ActHit> all = ActMatcher(kVerbs).Explain(text);
  ASSERT_EQ(all.size(), 2u) << Why(text);
  EXPECT_EQ(all[0].verb, "push");
  EXPECT_EQ(all[0].offset, text.find("push"));
  EXPECT_EQ(all[0].sentence, "Then push the branch!");
  EXPECT_TRUE(all[0].asked);
  EXPECT_EQ(all[0].rule, "en.imperative");
  EXPECT_EQ(all[1].verb, "投稿");
  EXPECT_EQ(all[1].offset, text.find("投稿"));
  EXPECT_EQ(all[1].sentence, "投稿しないで。");
  EXPECT_FALSE(all[1].asked);
  EXPECT_EQ(all[1].rule, "ja.tail:しないで");
  std::vector<ActHit> asked = FindAskedActs(text, kVerbs);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].offset, all[0].offset);
}

TEST(ActText, NamesTheListEntryForEveryForm) {
  ActVerbs verbs = {{"Post", "buy", "submit"}, {"投稿する"}};
  EXPECT_EQ(Asked("The bot posts it", verbs), "Post");  // as listed
  EXPECT_EQ(Asked("We are buying two licences", verbs), "buy");
  EXPECT_EQ(Asked("It must be submitted today", verbs), "submit");
  EXPECT_EQ(Asked("They bought it last year", verbs), "-");
  EXPECT_EQ(Asked("今すぐ投稿して", verbs), "投稿する");
}

TEST(ActText, EmptyListsAndTextFindNothing) {
  EXPECT_TRUE(FindAskedActs("post the notes", ActVerbs{}).empty());
  EXPECT_TRUE(FindAskedActs("", kVerbs).empty());
  EXPECT_TRUE(FindAskedActs("\n\n . ! ?", kVerbs).empty());
}

TEST(ActText, SameTextSameHits) {
  ActMatcher m(kVerbs);
  std::string text = "Write the report and post it. Never push. main に push して";
  std::vector<ActHit> a = m.Explain(text), b = m.Explain(text);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].offset, b[i].offset);
    EXPECT_EQ(a[i].rule, b[i].rule);
  }
}

TEST(ActText, BrokenUtf8IsReadWithoutHarm) {
  std::string text = "post \xE3\x81 the \xFF notes \xE6\x8A\x95";
  EXPECT_EQ(Asked(text), "post");
}

TEST(ActText, ALongSentenceIsCutAroundTheVerb) {
  std::string text = std::string(1000, 'a') + " then post the notes " + std::string(1000, 'b');
  std::vector<ActHit> hits = FindAskedActs(text, kVerbs);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_LE(hits[0].sentence.size(), 240u + 2 * std::string("…").size());
  EXPECT_NE(hits[0].sentence.find("then post the notes"), std::string::npos);
  EXPECT_TRUE(hits[0].sentence.starts_with("…"));
  EXPECT_TRUE(hits[0].sentence.ends_with("…"));
}

// Mission text is untrusted: no input may cost more than linear time. Each of these took
// seconds to minutes before the scans were bounded; now each is a few milliseconds.
// Each hit as "verb@offset+" (asked) or "verb@offset-" (not asked).
std::vector<std::string> Shape(const std::vector<ActHit>& hits) {
  std::vector<std::string> out;
  for (const ActHit& h : hits)
    out.push_back(h.verb + "@" + std::to_string(h.offset) + (h.asked ? "+" : "-"));
  return out;
}

// Hostile mission text (untrusted input) is judged completely; how fast is for the bench
// (scripts/bench-gate, "hostile text"), never a timed assertion here.
TEST(ActText, HostileTextIsJudgedCompletely) {
  auto repeat = [](const std::string& unit, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += unit;
    return out;
  };
  ActMatcher m(kVerbs);
  EXPECT_EQ(m.Explain(repeat("post ", 40000)).size(), 40000u);
  EXPECT_TRUE(m.Find("never post, " + repeat("a, ", 40000)).empty());
  EXPECT_EQ(m.Explain(repeat("投稿", 40000)).size(), 40000u);
  for (const std::string& text : {"post " + repeat("'a ", 40000),
                                  "post " + repeat("\u201ca ", 40000), repeat("投稿と", 40000)})
    EXPECT_EQ(Shape(m.Explain(text)), Shape(m.Explain(text))) << text.substr(0, 24);
}

// ---- The corpus: tests/gate/act_text_cases.tsv ----

struct Case {
  int line = 0;
  std::string text, lists, expected;
};

std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char c = s[++i];
      out.push_back(c == 'n' ? '\n' : c == 't' ? '\t' : c);
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, sep)) out.push_back(part);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

// The corpus beside the test binary's repository (bin/hangar_test -> tests/gate/...), or
// under the working directory.
std::filesystem::path CorpusPath() {
  std::filesystem::path rel = "tests/gate/act_text_cases.tsv";
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && std::filesystem::exists(exe.parent_path().parent_path() / rel)) {
    return exe.parent_path().parent_path() / rel;
  }
  return rel;
}

struct Corpus {
  ActVerbs verbs;
  std::vector<Case> cases;
  std::vector<std::string> errors;
};

Corpus ReadCorpus() {
  Corpus c;
  std::filesystem::path path = CorpusPath();
  std::ifstream in(path);
  if (!in) {
    c.errors.push_back("cannot open " + path.string());
    return c;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols = Split(line, '\t');
    if (cols.size() != 3) {
      c.errors.push_back(path.string() + ":" + std::to_string(n) + ": expected 3 columns, got " +
                         std::to_string(cols.size()));
      continue;
    }
    if (cols[0] == "@verbs") {
      (cols[1] == "ja" ? c.verbs.ja : c.verbs.en) = Split(cols[2], ',');
      continue;
    }
    if (cols[1] != "en" && cols[1] != "ja" && cols[1] != "en+ja") {
      c.errors.push_back(path.string() + ":" + std::to_string(n) + ": lists must be en, ja or " +
                         "en+ja, not \"" + cols[1] + "\"");
      continue;
    }
    c.cases.push_back({n, Unescape(cols[0]), cols[1], cols[2]});
  }
  return c;
}

std::string Normalised(const std::string& expected) {
  if (expected == "-") return "-";
  std::vector<std::string> v = Split(expected, ',');
  std::sort(v.begin(), v.end());
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

TEST(ActTextCorpus, EveryCaseMatches) {
  Corpus c = ReadCorpus();
  for (const std::string& e : c.errors) ADD_FAILURE() << e;
  ASSERT_FALSE(c.cases.empty()) << "no cases in " << CorpusPath();
  std::string mismatches;
  int bad = 0;
  for (const Case& k : c.cases) {
    ActVerbs verbs;
    if (k.lists != "ja") verbs.en = c.verbs.en;
    if (k.lists != "en") verbs.ja = c.verbs.ja;
    std::string got = Asked(k.text, verbs);
    if (got == Normalised(k.expected)) continue;
    ++bad;
    mismatches += "\n  line " + std::to_string(k.line) + ": \"" + k.text + "\" (" + k.lists +
                  ") expected " + k.expected + ", got " + got + "\n    " + Why(k.text, verbs);
  }
  EXPECT_EQ(bad, 0) << bad << " of " << c.cases.size() << " cases mismatch:" << mismatches;
}

TEST(ActTextCorpus, CoversBothLanguagesBothWays) {
  Corpus c = ReadCorpus();
  int en_yes = 0, en_no = 0, ja_yes = 0, ja_no = 0;
  for (const Case& k : c.cases) {
    bool yes = k.expected != "-";
    if (k.lists == "ja") {
      (yes ? ja_yes : ja_no)++;
    } else {
      (yes ? en_yes : en_no)++;
    }
  }
  EXPECT_GE(c.cases.size(), 60u);
  EXPECT_GE(en_yes, 10);
  EXPECT_GE(en_no, 10);
  EXPECT_GE(ja_yes, 10);
  EXPECT_GE(ja_no, 10);
}

}  // namespace
}  // namespace hangar
