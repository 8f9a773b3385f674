#include "base/json.h"

#include <gtest/gtest.h>

#include "base/sha256.h"
#include "base/timefmt.h"

namespace hangar {
namespace {

TEST(Json, WritesCanonicalSortedCompactText) {
  json::Object o;
  o["b"] = 1;
  o["a"] = json::Array{true, nullptr, "x\n\"\x01"};
  o["c"] = 0.5;
  EXPECT_EQ(json::Write(o), R"({"a":[true,null,"x\n\"\u0001"],"b":1,"c":0.5})");
}

TEST(Json, ParseRoundTrips) {
  const std::string text = R"({"k":[1,-2,2.5,"s",{"z":false}],"u":"日本"})";
  Result<json::Value> v = json::Parse(text);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(json::Write(*v), text);
  EXPECT_FALSE(json::Parse("{").ok());
}

TEST(Sha256, KnownVector) {
  EXPECT_EQ(Sha256Hex("hello\n"),
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
}

TEST(TimeFmt, FormatsAndParsesUtcMillis) {
  EXPECT_EQ(FormatTime(1732907143123), "2024-11-29T19:05:43.123Z");
  EXPECT_EQ(CompactTime(1732907143123), "20241129T190543.123Z");
  EXPECT_EQ(*ParseTime("2024-11-29T19:05:43.123Z"), 1732907143123);
  EXPECT_FALSE(ParseTime("yesterday"));
}

}  // namespace
}  // namespace hangar
