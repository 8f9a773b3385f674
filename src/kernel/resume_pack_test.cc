#include "kernel/resume_pack.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

constexpr TimeMs kT = 1'800'000'000'000;

std::string Same(std::string_view s) {
  return std::string(s);
}

PackMission M(const std::string& id, const std::string& state, const std::string& outcome = "") {
  PackMission m;
  m.id = id;
  m.state = state;
  m.outcome = outcome;
  m.accepted = kT - 3'600'000;
  m.seq = 3;
  m.room = true;
  return m;
}

MemoryRef Ref(MemoryRef::Kind k) {
  MemoryRef r;
  r.kind = k;
  return r;
}

// A requester with one mission of each kind, a grant in force, one revoked, and a work state v2.
PackFacts Facts() {
  PackFacts f;
  f.requester = "agent-a";
  f.head_seq = 20;
  f.head_time = kT;
  f.kernel = "running";
  f.missions = {M("A-done", "returned", "done"), M("A-held", "hold"), M("A-run", "running")};
  f.missions[1].why = "act \"push\" is held for a person";
  f.missions[2].deadline = kT + 600'000;
  Grant g;
  g.op = "git.push";
  g.mission = "A-run";
  g.seq = 7;
  f.grants = {g};
  f.grant_revoked["grant web.post to requester agent-a"] = 9;
  f.known_missions = {"A-done", "A-held", "A-run", "B-1"};
  f.cited_kinds = {{4, "grant"}};
  f.versions = {PackVersion{1, 10, kT - 1000, "aa", "alice", 1001},
                PackVersion{2, 15, kT - 500, "bb", "alice", 1001}};
  f.since = {"seq 18: mission A-done returned done"};
  RequesterMemory m;
  m.requester = "agent-a";
  m.sections[6] = "wait for A-run";      // next
  m.sections[3] = "is the test flaky?";  // unresolved
  f.latest = m;
  return f;
}

std::vector<std::string> Refs(const std::vector<PackConflict>& cs) {
  std::vector<std::string> out;
  for (const PackConflict& c : cs) out.push_back(c.ref);
  return out;
}

TEST(ResumePack, TrueClaimsAreNotFlagged) {
  PackFacts f = Facts();
  MemoryRef a = Ref(MemoryRef::Kind::kMission);
  a.mission = "A-done";
  a.state = "returned";
  a.outcome = "done";
  a.in = "restore";
  MemoryRef b = Ref(MemoryRef::Kind::kGrant);
  b.grant = "git.push";
  b.mission = "A-run";
  MemoryRef c = Ref(MemoryRef::Kind::kSeq);
  c.seq = 4;
  c.kind_claimed = "grant";
  MemoryRef d = Ref(MemoryRef::Kind::kMission);
  d.mission = "B-1";  // another requester's, cited only
  f.latest->refs = {a, b, c, d};
  EXPECT_TRUE(FindConflicts(f).empty());
}

TEST(ResumePack, EachFalseClaimIsFlagged) {
  PackFacts f = Facts();
  MemoryRef waiting = Ref(MemoryRef::Kind::kMission);
  waiting.mission = "A-run";
  waiting.state = "queued";
  MemoryRef approved = Ref(MemoryRef::Kind::kMission);
  approved.mission = "A-held";
  approved.approved = true;
  MemoryRef revoked = Ref(MemoryRef::Kind::kGrant);
  revoked.grant = "web.post";
  revoked.requester = "agent-a";
  MemoryRef ghost = Ref(MemoryRef::Kind::kMission);
  ghost.mission = "A-ghost";
  MemoryRef beyond = Ref(MemoryRef::Kind::kSeq);
  beyond.seq = 99;
  MemoryRef gone = Ref(MemoryRef::Kind::kPath);
  gone.path = "/srv/backup.tar";
  gone.in = "restore";
  MemoryRef wrong_outcome = Ref(MemoryRef::Kind::kMission);
  wrong_outcome.mission = "A-done";
  wrong_outcome.outcome = "failed";
  f.latest->refs = {waiting, approved, revoked, ghost, beyond, gone, wrong_outcome};
  std::vector<PackConflict> cs = FindConflicts(f);
  EXPECT_EQ(Refs(cs), (std::vector<std::string>{
                          "mission A-run", "mission A-held", "grant web.post to requester agent-a",
                          "mission A-ghost", "seq 99", "path /srv/backup.tar", "mission A-done"}));
  EXPECT_NE(cs[0].what.find("claimed queued, observed running"), std::string::npos);
  EXPECT_NE(cs[1].what.find("no approval"), std::string::npos);
  EXPECT_NE(cs[2].what.find("revoked at seq 9"), std::string::npos);
  EXPECT_NE(cs[5].what.find("Restore names"), std::string::npos);
  // A Restore naming a mission whose room is gone.
  f.missions[0].room = false;
  MemoryRef undo = Ref(MemoryRef::Kind::kMission);
  undo.mission = "A-done";
  undo.in = "restore";
  f.latest->refs = {undo};
  ASSERT_EQ(FindConflicts(f).size(), 1u);
  EXPECT_NE(FindConflicts(f)[0].what.find("room is gone"), std::string::npos);
}

TEST(ResumePack, PartsKeptApartNextFirstAndDeterministic) {
  PackFacts f = Facts();
  ResumePack p = BuildResumePack(f, kDefaultPackBytes, Same);
  const std::string& t = p.text;
  const size_t conf = t.find("== CONFLICTS"), obs = t.find("== OBSERVED"),
               cl = t.find("== CLAIMED");
  ASSERT_TRUE(conf < obs && obs < cl && cl != std::string::npos) << t;
  EXPECT_LT(t.find("-- next:"), t.find("-- unresolved:"));
  EXPECT_LT(t.find("-- unresolved:"), t.find("-- goal:"));
  EXPECT_NE(t.find("> wait for A-run"), std::string::npos);
  EXPECT_NE(t.find("running A-run age 1h deadline " + FormatTime(kT + 600'000)), std::string::npos);
  EXPECT_NE(t.find("seq 18: mission A-done returned done"), std::string::npos);
  EXPECT_EQ(t, BuildResumePack(f, kDefaultPackBytes, Same).text);
  EXPECT_EQ(ResumePackJson(f).find("requester")->as_string(), "agent-a");
  EXPECT_EQ(ResumePackJson(f).find("observed")->find("missions")->as_array().size(), 3u);
}

TEST(ResumePack, WhatDoesNotFitIsCutAndSaid) {
  PackFacts f = Facts();
  std::string goal;
  for (int i = 0; i < 400; i++) goal += "line " + std::to_string(i) + " of a long goal\n";
  f.latest->sections[0] = goal;
  for (int i = 0; i < 300; i++)
    f.missions.push_back(M("R-" + std::to_string(i), "returned", "done"));
  ResumePack p = BuildResumePack(f, kDefaultPackBytes, Same);
  EXPECT_LE(p.text.size(), kDefaultPackBytes);
  EXPECT_NE(p.text.find("`hangar memory show --requester agent-a` shows them whole]"),
            std::string::npos);
  EXPECT_NE(p.text.find("`hangar resume --requester agent-a --json` shows them whole]"),
            std::string::npos);
  // Next still made it: it comes first.
  EXPECT_NE(p.text.find("> wait for A-run"), std::string::npos);
  EXPECT_LE(BuildResumePack(f, kMinPackBytes, Same).text.size(), kMinPackBytes);
  // A long requester name makes long notices; the budget still holds.
  f.requester = std::string(64, 'r');
  for (size_t max : {kMinPackBytes, size_t(2000), kDefaultPackBytes})
    EXPECT_LE(BuildResumePack(f, max, Same).text.size(), max);
}

TEST(ResumePack, EveryLineGoesThroughShow) {
  PackFacts f = Facts();
  f.latest->sections[6] = "\x1b[2Jerase";
  ResumePack p = BuildResumePack(f, kDefaultPackBytes, [](std::string_view s) {
    std::string out(s);
    for (char& c : out)
      if (c == '\x1b') c = '?';
    return out;
  });
  EXPECT_EQ(p.text.find('\x1b'), std::string::npos);
  EXPECT_NE(p.text.find("> ?[2Jerase"), std::string::npos);
}

}  // namespace
}  // namespace hangar
