#include "kernel/requesters.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

GrantRecord Intake(int64_t seq, const char* kind, const std::string& requester, int64_t uid,
                   bool owner) {
  json::Object body{{"id", "M" + std::to_string(seq)},
                    {"stage", 1},
                    {"requester", requester},
                    {"uid", uid},
                    {"user", "u"}};
  if (owner) body["owner"] = true;
  return GrantRecord{seq, kind, body};
}

TEST(RequesterBook, TheEntryMarkedOwnerBindsTheName) {
  RequesterBook b;
  ASSERT_TRUE(b.Apply(Intake(1, "mission.accepted", "r", 0, false)).ok());  // an approver's
  EXPECT_EQ(b.Find("r"), nullptr);
  ASSERT_TRUE(b.Apply(Intake(2, "mission.held", "r", 1001, true)).ok());
  ASSERT_TRUE(b.Apply(Intake(3, "mission.accepted", "r", 1002, false)).ok());
  ASSERT_NE(b.Find("r"), nullptr);
  EXPECT_EQ(b.Find("r")->owner, 1001);
  EXPECT_EQ(b.Find("r")->bound_seq, 2);
}

TEST(RequesterBook, EntriesWithoutTheMarkChangeNothing) {
  RequesterBook b;
  // A mission held again at recovery (mission.changed) names no requester: fine, binds nothing.
  ASSERT_TRUE(b.Apply(GrantRecord{1, "mission.held",
                                  json::Object{{"id", "M1"},
                                               {"stage", 1},
                                               {"rules", json::Array{"mission.changed"}}}})
                  .ok());
  ASSERT_TRUE(b.Apply(GrantRecord{2, "mission.launched", json::Object{{"id", "M1"}}}).ok());
  EXPECT_EQ(b.Find("r"), nullptr);
  EXPECT_FALSE(b.Apply(GrantRecord{3, "mission.accepted", json::Object{{"owner", true}}}).ok());
}

TEST(RequesterBook, CountsStoredVersions) {
  RequesterBook b;
  json::Object m{{"requester", "r"}, {"version", 1}, {"name", "n1"}, {"sha256", "aa"}};
  ASSERT_TRUE(b.Apply(GrantRecord{5, "memory.stored", m}).ok());
  m["version"] = 2;
  m["name"] = "n2";
  ASSERT_TRUE(b.Apply(GrantRecord{9, "memory.stored", m}).ok());
  EXPECT_EQ(b.Find("r")->versions, 2);
  EXPECT_EQ(b.Find("r")->by_name.at("n1"), (std::pair<int64_t, std::string>{1, "aa"}));
  EXPECT_FALSE(b.Apply(GrantRecord{10, "memory.stored", json::Object{{"requester", "r"}}}).ok());
}

TEST(RequesterBook, ReadersFoldOnlyTheEntriesThatMayBind) {
  EXPECT_TRUE(RequesterBook::Folds("memory.stored", R"({"requester":"r"})"));
  EXPECT_TRUE(RequesterBook::Folds("mission.accepted", R"({"id":"M1","owner":true,"uid":7})"));
  EXPECT_FALSE(RequesterBook::Folds("mission.accepted", R"({"id":"M1","uid":7})"));
  EXPECT_FALSE(RequesterBook::Folds("mission.denied", R"({"id":"M1","owner":true})"));
  EXPECT_FALSE(RequesterBook::Folds("grant", R"({"op":"x"})"));
}

}  // namespace
}  // namespace hangar

namespace hangar {
namespace {

TEST(RequesterTakenReason, OnlyAnotherUidThatIsNoApproverIsRefused) {
  RequesterBook book;
  book.Bind("alice", 1001, "alice", 7);
  const std::set<int64_t> approvers{0};
  EXPECT_EQ(RequesterTakenReason(book, approvers, "alice", 1001), "");
  EXPECT_EQ(RequesterTakenReason(book, approvers, "alice", 0), "");   // an approver
  EXPECT_EQ(RequesterTakenReason(book, approvers, "bob", 1002), "");  // unbound name
  EXPECT_EQ(RequesterTakenReason(book, approvers, "alice", -1), "");  // unknown dropper
  EXPECT_EQ(RequesterTakenReason(book, approvers, "alice", 1002),
            "requester \"alice\" is uid 1001's (alice, since ledger seq 7): uid 1002 may not "
            "submit as it");
}

}  // namespace
}  // namespace hangar
