#include "kernel/grants.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

constexpr TimeMs kT = 1767225600000;  // 2026-01-01

GrantRecord E(int64_t seq, const std::string& kind, json::Object body) {
  GrantRecord e;
  e.seq = seq;
  e.kind = kind;
  e.body = json::Value(std::move(body));
  return e;
}

TEST(GrantBook, ARevocationWinsOverAnOlderGrantAndALaterGrantGivesItBack) {
  GrantBook b;
  ASSERT_TRUE(
      b.Apply(E(1, "grant", {{"op", "git.push"}, {"mission", "M1"}, {"until", nullptr}})).ok());
  EXPECT_TRUE(b.Allows("git.push", "M1", "", kT));
  EXPECT_FALSE(b.Allows("git.push", "M2", "", kT));
  ASSERT_TRUE(b.Apply(E(2, "revoke", {{"op", "git.push"}, {"mission", "M1"}})).ok());
  EXPECT_FALSE(b.Allows("git.push", "M1", "", kT));
  ASSERT_TRUE(b.Apply(E(3, "grant", {{"op", "git.push"}, {"mission", "M1"}})).ok());
  EXPECT_TRUE(b.Allows("git.push", "M1", "", kT));
  ASSERT_EQ(b.Active(kT).size(), 1u);
  EXPECT_EQ(b.Active(kT)[0].seq, 3);
}

TEST(GrantBook, RequesterGrantsAndExpiry) {
  GrantBook b;
  ASSERT_TRUE(
      b.Apply(
           E(1, "grant",
             {{"op", "web.post"}, {"requester", "alice"}, {"until", "2026-01-02T00:00:00.000Z"}}))
          .ok());
  EXPECT_TRUE(b.Allows("web.post", "any", "alice", kT));
  EXPECT_FALSE(b.Allows("web.post", "any", "bob", kT));
  EXPECT_FALSE(b.Allows("web.post", "any", "alice", kT + 86400000));
  EXPECT_TRUE(b.Active(kT + 86400000).empty());
  // Other kinds are not grants, whatever their body says.
  ASSERT_TRUE(b.Apply(E(2, "mission.accepted", {{"op", "x"}, {"mission", "M1"}})).ok());
  EXPECT_FALSE(b.Allows("x", "M1", "", kT));
}

// A reanchor over an unanchored tail voids that tail's grants (a forged grant stays void); the
// other grants of the ledger stand.
TEST(GrantBook, AReanchorVoidsTheGrantsItLists) {
  GrantBook b;
  ASSERT_TRUE(b.Apply(E(1, "grant", {{"op", "git.push"}, {"mission", "M1"}})).ok());
  ASSERT_TRUE(b.Apply(E(2, "grant", {{"op", "wire.funds"}, {"mission", "M1"}})).ok());
  ASSERT_TRUE(b.Apply(E(3, "ledger.reanchor", {{"why", "w"}, {"void", json::Array{2}}})).ok());
  EXPECT_TRUE(b.Allows("git.push", "M1", "", kT));
  EXPECT_FALSE(b.Allows("wire.funds", "M1", "", kT));
  ASSERT_TRUE(b.Apply(E(4, "ledger.reanchor", {{"why", "w"}})).ok());  // no void: nothing goes
  EXPECT_TRUE(b.Allows("git.push", "M1", "", kT));
  EXPECT_FALSE(b.Apply(E(5, "ledger.reanchor", {{"void", "2"}})).ok());
}

TEST(GrantBook, AMalformedGrantEntryIsAnError) {
  GrantBook b;
  EXPECT_FALSE(b.Apply(E(1, "grant", {{"op", "a"}})).ok());
  EXPECT_FALSE(b.Apply(E(2, "grant", {{"op", "a"}, {"mission", "M"}, {"requester", "r"}})).ok());
  EXPECT_FALSE(b.Apply(E(3, "grant", {{"op", "a"}, {"mission", "M"}, {"until", 5}})).ok());
}

}  // namespace
}  // namespace hangar
