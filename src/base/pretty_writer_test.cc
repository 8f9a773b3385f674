#include "base/pretty_writer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "base/timefmt.h"

namespace hangar {
namespace {

// A random document of every kind of value, nested up to depth 4, with keys and strings that
// need escapes.
json::Value RandomValue(std::mt19937& rng, int depth) {
  const char* strings[] = {"",        "a", "b\n", "\"q\"", "\x01", "long enough to skip eight",
                           "\xc3\xa9"};
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  switch (depth >= 4 ? pick(5) : pick(7)) {
    case 0:
      return nullptr;
    case 1:
      return pick(2) == 1;
    case 2:
      return int64_t(rng()) - int64_t(1) * (1 << 30);
    case 3:
      return 0.25 * pick(9);
    case 4:
      return strings[pick(7)];
    case 5: {
      json::Array a;
      for (int i = pick(4); i > 0; --i) a.push_back(RandomValue(rng, depth + 1));
      return a;
    }
    default: {
      json::Object o;
      for (int i = pick(5); i > 0; --i)
        o[strings[pick(7)] + std::to_string(pick(3))] = RandomValue(rng, depth + 1);
      return o;
    }
  }
}

// The writer's calls for v: objects and arrays opened and closed, scalars by kind; below `tree_at`
// levels deep, the rest given whole as a tree (Val).
void Through(json::PrettyWriter& w, const json::Value& v, int depth, int tree_at) {
  if (depth >= tree_at) {
    w.Val(v);
  } else if (v.is_object()) {
    w.Open();
    for (const auto& [k, x] : v.as_object()) Through(w.Key(k), x, depth + 1, tree_at);
    w.Close();
  } else if (v.is_array()) {
    w.OpenArray();
    for (const json::Value& x : v.as_array()) Through(w, x, depth + 1, tree_at);
    w.CloseArray();
  } else if (v.is_null()) {
    w.Null();
  } else if (v.is_bool()) {
    w.Bool(v.as_bool());
  } else if (v.is_int()) {
    w.Int(v.as_int());
  } else if (v.is_string()) {
    w.Str(v.as_string());
  } else {
    w.Val(v);  // a double: the writer has no call of its own for one
  }
}

// Whatever document, written call by call or with any of its subtrees given whole, the text is
// byte for byte WritePretty's: the files the kernel writes this way read as they always did.
TEST(PrettyWriter, WritesEveryDocumentAsWritePrettyDoes) {
  std::mt19937 rng(20261205);
  for (int n = 0; n < 3000; ++n) {
    const json::Value v = RandomValue(rng, 0);
    for (int tree_at = 0; tree_at <= 5; ++tree_at) {
      json::PrettyWriter w;
      Through(w, v, 0, tree_at);
      EXPECT_TRUE(w.sorted());
      ASSERT_EQ(w.Take(), json::WritePretty(v)) << "document " << n << ", trees from " << tree_at;
    }
  }
}

// Past the depth and key length the writer's fast path covers, the text is the same.
TEST(PrettyWriter, DeepDocumentsAndLongKeysToo) {
  const std::string long_key(100, 'k');
  json::Value v = json::Array{1, "x"};
  for (int depth = 0; depth < 24; ++depth)
    v = json::Object{{depth % 2 ? long_key : "k" + std::to_string(depth), v}, {"z", depth}};
  for (int tree_at = 0; tree_at <= 30; tree_at += 3) {
    json::PrettyWriter w;
    Through(w, v, 0, tree_at);
    EXPECT_TRUE(w.sorted());
    ASSERT_EQ(w.Take(), json::WritePretty(v)) << "trees from " << tree_at;
  }
}

TEST(PrettyWriter, HelpersWriteWhatTheirTreesWould) {
  json::PrettyWriter w;
  const std::vector<std::string> argv = {"codex", "exec", "-"};
  const std::map<std::string, std::string> env = {{"HOME", "/r"}, {"PATH", "/bin"}};
  w.Open()
      .Key("argv")
      .Strings(argv)
      .Key("empty")
      .Strings({})
      .Key("env")
      .StringMap(env)
      .Key("none")
      .StringMap({})
      .Key("rc")
      .OptInt(std::nullopt)
      .Key("signal")
      .OptInt(9)
      .Close();
  json::Object o{{"argv", json::Array{"codex", "exec", "-"}},
                 {"empty", json::Array{}},
                 {"env", json::Object{{"HOME", "/r"}, {"PATH", "/bin"}}},
                 {"none", json::Object{}},
                 {"rc", nullptr},
                 {"signal", 9}};
  EXPECT_EQ(w.Take(), json::WritePretty(o));
}

// Time(ms) writes what Str(FormatTime(ms)) writes, as a member and as an element.
TEST(PrettyWriter, TimeIsTheFormattedTimeAsAString) {
  for (int64_t ms : {int64_t(0), int64_t(1732907143123), int64_t(253402300800000), int64_t(-1)}) {
    json::PrettyWriter a, b;
    a.Open().Key("t").Time(ms).Key("u").OpenArray().Time(ms).CloseArray().Close();
    b.Open()
        .Key("t")
        .Str(FormatTime(ms))
        .Key("u")
        .OpenArray()
        .Str(FormatTime(ms))
        .CloseArray()
        .Close();
    EXPECT_EQ(a.Take(), b.Take()) << ms;
  }
}

// A builder that gives keys out of order would write text that is not canonical: sorted() tells.
TEST(PrettyWriter, SaysWhenKeysCameOutOfOrder) {
  json::PrettyWriter w;
  w.Open().Key("b").Int(1).Key("a").Int(2).Close();
  EXPECT_FALSE(w.sorted());
  w.Take();
  EXPECT_TRUE(w.sorted());  // a new document
  w.Open().Key("a").Open().Key("z").Int(1).Close().Key("b").Open().Key("a").Int(1).Close().Close();
  EXPECT_TRUE(w.sorted());  // each object's keys are its own
  w.Take();
  w.Open().Key("a").Int(1).Key("a").Int(2).Close();
  EXPECT_FALSE(w.sorted());  // a key twice
  w.Take();
  // The keys' own bytes are compared, not their escaped text ("a\u0001" > "a0", yet 0x01 < '0').
  w.Open().Key("a\x01").Int(1).Key("a0").Int(2).Close();
  EXPECT_TRUE(w.sorted());
  w.Take();
  w.Open().Key("a0").Int(1).Key("a\x01").Int(2).Close();
  EXPECT_FALSE(w.sorted());
  w.Take();
  // A key the caller made for the call, gone before the next one, and keys past 15 bytes.
  w.Open();
  {
    const std::string gone(20, 'b');
    w.Key(gone).Int(1);
  }
  w.Key(std::string(20, 'a')).Int(2).Close();
  EXPECT_FALSE(w.sorted());
}

}  // namespace
}  // namespace hangar
