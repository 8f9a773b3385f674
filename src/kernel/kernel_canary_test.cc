// The canary rows of the kernel's state table (kernel.h, hangard(8); kernel/canary.h): a profile
// whose definition is not the one proven launches one mission alone, the others wait out of the
// queue until it has run canary_s seconds or returned done, keep waiting when it failed first
// until an approver releases the profile, and every step is a record the book folds back from.
// Pure: no disk.
#include <gtest/gtest.h>

#include "kernel/kernel.h"
#include "kernel/kernel_testutil.h"

namespace hangar {
namespace {

constexpr TimeMs kT = 5'000'000;
constexpr TimeMs kSpan = 60'000;  // canary_s 60, the default

std::string Bytes(const std::string& id) {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":5}";
}

std::vector<std::string> RecordKinds(const std::vector<Action>& acts) {
  std::vector<std::string> out;
  for (const Record& r : Only<Record>(acts)) out.push_back(r.kind);
  return out;
}

std::vector<std::string> Launched(const std::vector<Action>& acts) {
  std::vector<std::string> out;
  for (const Launch& l : Only<Launch>(acts)) out.push_back(l.id);
  return out;
}

const Record* RecordOf(const std::vector<Action>& acts, const std::string& kind) {
  for (const Action& a : acts)
    if (auto* r = std::get_if<Record>(&a); r && r->kind == kind) return r;
  return nullptr;
}

using V = std::vector<std::string>;

// The string member K of record R's body; "(none)" when it has none.
std::string Field(const Record* r, const char* k) {
  if (!r) return "(no record)";
  const json::Value* v = r->body.find(k);
  return v && v->is_string() ? v->as_string() : "(none)";
}

// Two script slots; the profile's definition "A" was proven at ledger seq 1, and this start's
// config defines it as "B".
class KernelRowCanary : public ::testing::Test {
 protected:
  void SetUp() override {
    s_.config.profiles["script"].sha256 = "B";
    st_.canaries.Proven("script", "A", 1);
    st_.ledger_seq = 1;
  }
  std::vector<Action> Decide(const Signal& sig) {
    std::vector<Action> acts = hangar::Decide(s_, &st_, sig);
    for (const Record& r : Only<Record>(acts)) records_.push_back(r);
    return acts;
  }
  std::vector<Action> Drop(const std::string& id, TimeMs now = kT) {
    return Decide(Dropped{id + ".json", Bytes(id), "", now, {}, kRoot});
  }
  // ID's drone exits RC at NOW and its room is observed.
  std::vector<Action> Ends(const std::string& id, int rc, TimeMs now) {
    ExitInfo e;
    e.rc = rc;
    std::vector<Action> acts = Decide(DroneExited{id, e, now});
    std::vector<Action> more = Decide(Observed{id, Observation{}, now + 1});
    acts.insert(acts.end(), more.begin(), more.end());
    return acts;
  }
  std::vector<Action> Release(Dropper by = kRoot, const std::string& profile = "script") {
    return Decide(ControlDropped{"rel",
                                 "{\"hangar\":1,\"request\":\"release-canary\",\"profile\":\"" +
                                     profile + "\",\"why\":\"checked by hand\"}",
                                 "", kT + 500, by});
  }
  hangar::Phase Phase(const std::string& id) { return st_.missions.at(id).phase; }
  // The canary's launch, and M2 waiting on it.
  void CanaryAndOneWaiting() {
    ASSERT_EQ(Launched(Drop("M1")), V{"M1"});
    ASSERT_EQ(Launched(Drop("M2")), V{});
    ASSERT_EQ(Phase("M2"), hangar::Phase::kQueued);
  }

  KernelSetup s_ = ScriptSetup(2);
  State st_;
  std::vector<Record> records_;  // every record decided, in order: what the ledger holds
};

TEST_F(KernelRowCanary, CanaryLaunched) {
  std::vector<Action> acts = Drop("M1");
  EXPECT_EQ(Launched(acts), V{"M1"});
  EXPECT_EQ(RecordKinds(acts), (V{"mission.accepted", "mission.launched", "canary.launched"}));
  const Record* c = RecordOf(acts, "canary.launched");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Field(c, "profile"), "script");
  EXPECT_EQ(Field(c, "profile_sha256"), "B");
  EXPECT_EQ(Field(c, "proven_sha256"), "A");
  EXPECT_EQ(Field(c, "until"), FormatTime(kT + kSpan));
  EXPECT_EQ(Field(RecordOf(acts, "mission.launched"), "profile_sha256"), "B");
  EXPECT_EQ(CanaryDue(st_), std::optional<TimeMs>(kT + kSpan));
}

TEST_F(KernelRowCanary, CanaryWaits) {
  CanaryAndOneWaiting();
  // A free slot and more signals launch nothing of the profile while its canary runs.
  EXPECT_EQ(Launched(Drop("M3", kT + 10)), V{});
  EXPECT_EQ(Launched(Decide(Tick{kT + kSpan - 1})), V{});
  EXPECT_EQ(st_.running, 1);
  EXPECT_TRUE(st_.queue.empty());
  EXPECT_EQ(st_.canary_held.at("script"), (std::deque<std::string>{"M2", "M3"}));
  // One of another profile is not held by it.
  Profile other = s_.config.profiles["script"];
  other.name = "other";
  other.sha256 = "O";
  s_.config.profiles["other"] = other;
  std::string bytes = Bytes("N1");
  bytes.replace(bytes.find("\"script\""), 8, "\"other\"");
  EXPECT_EQ(Launched(Decide(Dropped{"N1.json", bytes, "", kT + 20, {}, kRoot})), V{"N1"});
}

TEST_F(KernelRowCanary, CanaryPassed) {
  CanaryAndOneWaiting();
  // By its span: the clock alone passes it, and what waited launches in the same decision.
  std::vector<Action> acts = Decide(Tick{kT + kSpan});
  EXPECT_EQ(RecordKinds(acts), (V{"canary.passed", "mission.launched"}));
  EXPECT_EQ(Launched(acts), V{"M2"});
  EXPECT_EQ(Phase("M1"), hangar::Phase::kRunning);  // the canary itself runs on
  EXPECT_EQ(st_.canaries.Find("script")->proven, "B");
  EXPECT_FALSE(CanaryDue(st_));
  // Proven now: another launches as usual, no canary, and its failure holds nothing.
  Ends("M1", 0, kT + kSpan + 10);
  EXPECT_EQ(Launched(Drop("M3", kT + kSpan + 20)), V{"M3"});
  EXPECT_EQ(RecordOf(Ends("M3", 1, kT + kSpan + 30), "canary.failed"), nullptr);
}

TEST_F(KernelRowCanary, CanaryPassedByReturningDone) {
  CanaryAndOneWaiting();
  std::vector<Action> acts = Ends("M1", 0, kT + 1000);
  EXPECT_EQ(RecordKinds(acts), (V{"mission.returned", "canary.passed", "mission.launched"}));
  EXPECT_EQ(Field(RecordOf(acts, "canary.passed"), "reason"), "it returned done");
  EXPECT_EQ(Launched(acts), V{"M2"});
}

TEST_F(KernelRowCanary, CanaryFailed) {
  CanaryAndOneWaiting();
  std::vector<Action> acts = Ends("M1", 1, kT + 2000);
  EXPECT_EQ(RecordKinds(acts), (V{"mission.returned", "canary.failed"}));
  const Record* f = RecordOf(acts, "canary.failed");
  EXPECT_EQ(Field(f, "outcome"), "failed");
  EXPECT_EQ(Field(f, "id"), "M1");
  EXPECT_EQ(Launched(acts), V{});
  // Its span passing changes nothing, nor do new missions: they wait too, with free slots.
  EXPECT_FALSE(CanaryDue(st_));
  EXPECT_EQ(Launched(Decide(Tick{kT + 10 * kSpan})), V{});
  EXPECT_EQ(Launched(Drop("M3", kT + 10 * kSpan)), V{});
  EXPECT_EQ(st_.running, 0);
  EXPECT_EQ(Phase("M2"), hangar::Phase::kQueued);
  EXPECT_EQ(st_.canary_held.at("script"), (std::deque<std::string>{"M2", "M3"}));
  // A waiting one may still be cancelled: it leaves the wait.
  Decide(ControlDropped{"c", R"({"hangar":1,"request":"cancel","id":"M3"})", "", kT + 3000, kRoot});
  EXPECT_EQ(Phase("M3"), hangar::Phase::kReturned);
  EXPECT_EQ(st_.canary_held.at("script"), (std::deque<std::string>{"M2"}));
}

TEST_F(KernelRowCanary, CanaryReleased) {
  CanaryAndOneWaiting();
  Ends("M1", 1, kT + 2000);
  // Not by a requester that is no approver: nothing recorded but the refusal, nothing launched.
  std::vector<Action> no = Release(Dropper{1000, "alice"});
  EXPECT_EQ(RecordKinds(no), V{"control.refused"});
  EXPECT_EQ(Field(RecordOf(no, "control.refused"), "rule"), "control.not-approver");
  EXPECT_EQ(Launched(no), V{});
  // Nor a profile that is not the config's.
  EXPECT_EQ(Field(RecordOf(Release(kRoot, "nosuch"), "control.refused"), "rule"),
            "control.invalid");
  std::vector<Action> acts = Release();
  EXPECT_EQ(RecordKinds(acts), (V{"canary.released", "mission.launched"}));
  const Record* r = RecordOf(acts, "canary.released");
  EXPECT_EQ(Field(r, "profile_sha256"), "B");
  EXPECT_EQ(Field(r, "canary"), "M1");
  EXPECT_EQ(Field(r, "stage"), "failed");
  EXPECT_EQ(r->body.find("uid")->as_int(), 0);
  EXPECT_EQ(Launched(acts), V{"M2"});
  // Released is proven: a second release has nothing to release.
  EXPECT_EQ(Field(RecordOf(Release(), "control.refused"), "rule"), "control.invalid");
}

TEST_F(KernelRowCanary, ProfileProven) {
  // A profile nothing has proven runs as before; its first done proves its definition.
  st_ = State{};
  ASSERT_EQ(Launched(Drop("P1")), V{"P1"});
  ASSERT_EQ(Launched(Drop("P2")), V{"P2"});  // no canary: nothing proven to differ from
  EXPECT_EQ(RecordOf(Ends("P1", 1, kT + 10), "profile.proven"), nullptr);  // failed proves nothing
  std::vector<Action> acts = Ends("P2", 0, kT + 20);
  EXPECT_EQ(RecordKinds(acts), (V{"mission.returned", "profile.proven"}));
  EXPECT_EQ(Field(RecordOf(acts, "profile.proven"), "profile_sha256"), "B");
  // The next start's config changes the definition: the next mission is a canary.
  s_.config.profiles["script"].sha256 = "C";
  EXPECT_NE(RecordOf(Drop("P3", kT + 30), "canary.launched"), nullptr);
}

TEST(KernelCanary, NoCanaryWithCanarySZero) {
  KernelSetup s = ScriptSetup(2);
  s.config.canary_s = 0;
  s.config.profiles["script"].sha256 = "B";
  State st;
  st.canaries.Proven("script", "A", 1);
  for (const char* id : {"Z1", "Z2"})
    EXPECT_EQ(Only<Launch>(
                  Decide(s, &st, Dropped{std::string(id) + ".json", Bytes(id), "", kT, {}, kRoot}))
                  .size(),
              1u);
}

// What a restart reads back: the book folded from the records the kernel wrote is the kernel's
// own, stage by stage (the same digest), and a failed canary still holds after it.
TEST_F(KernelRowCanary, TheBookFoldedFromTheLedgerIsTheKernels) {
  CanaryAndOneWaiting();
  auto folded = [&] {
    CanaryBook book;
    book.Proven("script", "A", 1);
    for (const Record& r : records_)
      EXPECT_TRUE(book.Apply(GrantRecord{r.seq, r.kind, r.body}).ok());
    return book;
  };
  EXPECT_EQ(folded().digest(), st_.canaries.digest());
  EXPECT_EQ(folded().Find("script")->until, kT + kSpan);
  Ends("M1", 1, kT + 2000);
  EXPECT_EQ(folded().digest(), st_.canaries.digest());
  // A restart: a fresh state with the folded book, M2 found queued again; it still waits.
  State again;
  again.canaries = folded();
  again.ledger_seq = st_.ledger_seq;
  again.ready = false;
  Recovered r;
  r.id = "M2";
  r.phase = hangar::Phase::kQueued;
  r.mission_bytes = Bytes("M2");
  r.intake_sha256 = st_.missions.at("M2").sha256;
  r.now = kT + 9000;
  hangar::Decide(s_, &again, r);
  EXPECT_EQ(Only<Launch>(hangar::Decide(s_, &again, Ready{kT + 9000})).size(), 0u);
  EXPECT_EQ(again.canary_held.at("script"), std::deque<std::string>{"M2"});
  // A malformed canary entry is named, not folded.
  CanaryBook bad;
  Status s = bad.Apply(GrantRecord{7, "canary.launched", Json(R"({"profile":"script"})")});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ledger entry 7 (canary.launched)"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace hangar
