// A start takes back the launch keys whose entries the ledger does not hold (shell/
// unbacked_keys.h), on a scratch spool: only a queued mission's, only one that names its seq,
// launch.json before the key; everything else stays.
#include "shell/unbacked_keys.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "base/scratch_dir_testutil.h"
#include "env/fault_env.h"

namespace hangar {
namespace {

class UnbackedKeysTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"unbacked"};
  Layout l_;
  std::set<int64_t> backed_;        // the seqs the ledger holds a launch at
  std::vector<std::string> asked_;  // the keys BACKED was asked about
  int calls_ = 0;                   // and how many times
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    l_ = Layout::Make(scratch_.path(), "");
    for (const std::string& d : l_.AllDirs()) std::filesystem::create_directories(d);
  }
  // Mission ID in PHASE, with its launch.json naming ATTEMPT (none when 0), and its key for
  // ATTEMPT naming SEQ (none when 0: a key written after its entry).
  void Launching(const std::string& id, Phase phase, int attempt, int64_t seq) {
    const std::string d = l_.MissionDir(phase, id);
    std::filesystem::create_directories(d);
    if (attempt)
      std::ofstream(d + "/launch.json")
          << R"({"hangar":1,"id":")" << id << R"(","attempt":)" << attempt << "}";
    std::ofstream(l_.Keys() + "/" + LaunchKeyName(id, attempt ? attempt : 1))
        << R"({"hangar":1,"id":")" << id << R"(","attempt":)" << (attempt ? attempt : 1)
        << (seq ? R"(,"ledger_seq":)" + std::to_string(seq) : "") << "}";
  }
  Result<std::vector<std::string>> Drop(Env* env = RealEnv()) {
    return DropUnbackedKeys(env, l_, [&](const std::vector<KeySeq>& keys) {
      ++calls_;
      std::vector<bool> r;
      for (const KeySeq& k : keys) {
        asked_.push_back(k.key);
        r.push_back(backed_.count(k.seq) > 0);
      }
      return Result<std::vector<bool>>(r);
    });
  }
  bool Has(const std::string& rel) { return std::filesystem::exists(l_.spool + "/" + rel); }
};

TEST_F(UnbackedKeysTest, AQueuedMissionsKeyTheLedgerDoesNotHoldIsTakenBackWithItsLaunchJson) {
  Launching("Q.1", Phase::kQueued, 1, 7);
  Result<std::vector<std::string>> said = Drop();
  ASSERT_TRUE(said.ok()) << said.status().message();
  EXPECT_FALSE(Has("keys/launch.Q.1.1"));
  EXPECT_FALSE(Has("queued/Q.1/launch.json"));
  EXPECT_TRUE(Has("queued/Q.1"));
  ASSERT_EQ(said->size(), 1u);
  EXPECT_NE((*said)[0].find("keys/launch.Q.1.1"), std::string::npos) << (*said)[0];
  EXPECT_NE((*said)[0].find("seq 7"), std::string::npos) << (*said)[0];
}

TEST_F(UnbackedKeysTest, EveryOtherKeyStays) {
  backed_ = {3};
  Launching("backed", Phase::kQueued, 1, 3);  // its entry is there: a launch cut after it
  Launching("older", Phase::kQueued, 1, 0);   // written after its entry, by an older hangard
  Launching("run", Phase::kRunning, 1, 9);    // launched: never asked
  Launching("ret", Phase::kReturned, 2, 9);
  // A retried mission: attempt 1's launch.json is kept with it; attempt 2's key not backed.
  Launching("retried", Phase::kQueued, 1, 0);
  std::ofstream(l_.Keys() + "/" + LaunchKeyName("retried", 2))
      << R"({"hangar":1,"id":"retried","attempt":2,"ledger_seq":12})";
  std::ofstream(l_.Keys() + "/op.something") << "{}";
  Result<std::vector<std::string>> said = Drop();
  ASSERT_TRUE(said.ok()) << said.status().message();
  for (const char* kept :
       {"keys/launch.backed.1", "queued/backed/launch.json", "keys/launch.older.1",
        "keys/launch.run.1", "keys/launch.ret.2", "keys/launch.retried.1",
        "queued/retried/launch.json", "keys/op.something"})
    EXPECT_TRUE(Has(kept)) << kept;
  EXPECT_FALSE(Has("keys/launch.retried.2"));
  EXPECT_EQ(said->size(), 1u);
  EXPECT_EQ(std::set<std::string>(asked_.begin(), asked_.end()),
            (std::set<std::string>{"launch.backed.1", "launch.retried.2"}));
  EXPECT_EQ(calls_, 1) << "the ledger is asked once for all";
}

// A key that says no seq to judge it by stands, said: its launch returns the mission lost.
TEST_F(UnbackedKeysTest, AKeyThatCannotBeJudgedStandsAndIsSaid) {
  Launching("empty", Phase::kQueued, 1, 0);
  std::ofstream(l_.Keys() + "/launch.empty.1", std::ios::trunc).close();  // a power loss's
  Launching("other", Phase::kQueued, 1, 0);
  std::ofstream(l_.Keys() + "/launch.other.1") << R"({"hangar":1,"attempt":2,"ledger_seq":4})";
  Result<std::vector<std::string>> said = Drop();
  ASSERT_TRUE(said.ok()) << said.status().message();
  for (const char* kept : {"keys/launch.empty.1", "queued/empty/launch.json", "keys/launch.other.1",
                           "queued/other/launch.json"})
    EXPECT_TRUE(Has(kept)) << kept;
  ASSERT_EQ(said->size(), 2u);
  for (const std::string& line : *said) EXPECT_NE(line.find(" left ("), std::string::npos) << line;
  EXPECT_TRUE(asked_.empty());
}

// An answer that misses a key takes none back.
TEST_F(UnbackedKeysTest, AnAnswerThatMissesAKeyTakesNoneBack) {
  Launching("Q", Phase::kQueued, 1, 5);
  Result<std::vector<std::string>> said = DropUnbackedKeys(
      RealEnv(), l_,
      [](const std::vector<KeySeq>&) { return Result<std::vector<bool>>(std::vector<bool>()); });
  EXPECT_FALSE(said.ok());
  EXPECT_TRUE(Has("keys/launch.Q.1"));
  EXPECT_TRUE(Has("queued/Q/launch.json"));
}

// launch.json goes first, each removal fsynced: a stop between leaves the key, never a launch.json
// without it.
TEST_F(UnbackedKeysTest, TheLaunchJsonGoesBeforeItsKey) {
  Launching("Q", Phase::kQueued, 1, 5);
  const std::string log = scratch_.path() + "/calls.log";
  FaultEnv counting(RealEnv(), FaultPlan{});
  ASSERT_TRUE(counting.OpenLog(log).ok());
  ASSERT_TRUE(Drop(&counting).ok());
  std::ifstream in(log);
  std::vector<std::string> calls;
  for (std::string line; std::getline(in, line);) calls.push_back(line.substr(line.find(' ') + 1));
  EXPECT_EQ(calls, (std::vector<std::string>{
                       "remove " + l_.MissionDir(Phase::kQueued, "Q") + "/launch.json",
                       "remove " + l_.Keys() + "/launch.Q.1"}));
}

}  // namespace
}  // namespace hangar
