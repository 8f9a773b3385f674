#include "kernel/requesters.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

GrantRecord Intake(int64_t seq, const char* kind, const std::string& requester, json::Value uid,
                   int stage = 1) {
  return GrantRecord{seq, kind,
                     json::Object{{"id", "M" + std::to_string(seq)},
                                  {"stage", stage},
                                  {"requester", requester},
                                  {"uid", uid},
                                  {"user", "u"}}};
}

TEST(RequesterBook, TheFirstMissionsUidOwnsTheName) {
  RequesterBook b;
  ASSERT_TRUE(b.Apply(Intake(1, "mission.denied", "r", nullptr)).ok());  // unknown: binds nothing
  EXPECT_EQ(b.Find("r"), nullptr);
  ASSERT_TRUE(b.Apply(Intake(2, "mission.held", "r", 1001)).ok());
  ASSERT_TRUE(b.Apply(Intake(3, "mission.accepted", "r", 1002)).ok());
  ASSERT_NE(b.Find("r"), nullptr);
  EXPECT_EQ(b.Find("r")->owner, 1001);
  EXPECT_EQ(b.Find("r")->bound_seq, 2);
}

TEST(RequesterBook, StageTwoAndOtherKindsChangeNothing) {
  RequesterBook b;
  ASSERT_TRUE(b.Apply(Intake(1, "mission.held", "r", 1001, 2)).ok());
  ASSERT_TRUE(b.Apply(Intake(2, "mission.launched", "r", 1001)).ok());
  EXPECT_EQ(b.Find("r"), nullptr);
}

TEST(RequesterBook, CountsStoredVersions) {
  RequesterBook b;
  json::Object m{{"requester", "r"}, {"version", 1}, {"name", "n1"}, {"sha256", "aa"}};
  ASSERT_TRUE(b.Apply(GrantRecord{5, "memory.stored", m}).ok());
  m["version"] = 2;
  m["name"] = "n2";
  ASSERT_TRUE(b.Apply(GrantRecord{9, "memory.stored", m}).ok());
  EXPECT_EQ(b.Find("r")->versions, 2);
  EXPECT_EQ(b.Find("r")->last_name, "n2");
  EXPECT_EQ(b.Find("r")->last_seq, 9);
  EXPECT_FALSE(b.Apply(GrantRecord{10, "memory.stored", json::Object{{"requester", "r"}}}).ok());
}

}  // namespace
}  // namespace hangar
