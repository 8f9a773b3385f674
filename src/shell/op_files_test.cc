// The window's files on disk: a drone's requests read as untrusted input (no symlink followed, no
// oversized read), answers written into the room without replacing anything, and the evidence.
#include "shell/op_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"
#include "kernel/window.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

constexpr char kGood[] = R"({"op":"post.message","args":{"text":"hi"},"key":"k1"})";

class OpFilesTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"op-files"};
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    room_ = scratch_.path() + "/room";
    mission_ops_ = scratch_.path() + "/running-M1-ops";
    outside_ = scratch_.path() + "/outside";
    ASSERT_EQ(mkdir(room_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(mission_ops_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(outside_.c_str(), 0755), 0);
    ASSERT_TRUE(MakeOpsDir(room_).ok());
  }

  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  static std::string ReadAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void Request(const std::string& name, const std::string& text) {
    Write(room_ + "/ops/" + name + ".json", text);
  }
  void Key(const std::string& key, const std::string& text) {
    fs::create_directories(mission_ops_ + "/keys");
    Write(mission_ops_ + "/keys/" + key + ".json", text);
  }
  OpRequested Read(const std::string& name) {
    return ReadOpRequest(RealEnv(), room_, mission_ops_, "M1", name, 1234);
  }
  std::vector<std::string> RoomOps() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(room_ + "/ops"))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  std::string room_, mission_ops_, outside_;
};

// ---- ReadOpRequest ----

TEST_F(OpFilesTest, AFreshRequestIsReadWithItsBytesAndAFreeKey) {
  const std::string bytes = std::string(kGood) + "\n";
  Request("p1", bytes);
  OpRequested q = Read("p1");
  EXPECT_EQ(q.read_error, "");
  EXPECT_EQ(q.bytes, bytes);
  EXPECT_EQ(q.id, "M1");
  EXPECT_EQ(q.name, "p1");
  EXPECT_EQ(q.now, 1234);
  EXPECT_EQ(q.key, OpKeyState::kFree);
  EXPECT_EQ(q.stored_result, "");
  EXPECT_EQ(json::Write(q.declaration), R"({"present":false})");  // read now, with the request
}

TEST_F(OpFilesTest, TheDeclarationIsReadWithTheRequest) {
  Write(room_ + "/DECLARATION.json",
        R"({"will":[],"will_not":[],"ops":["post.message"],"external_acts":[]})");
  Request("p1", kGood);
  OpRequested q = Read("p1");
  EXPECT_TRUE(q.declaration.find("valid")->as_bool());
}

TEST_F(OpFilesTest, AKeyFileWithoutAResultIsTaken) {
  Key("k1", R"({"hangar":1,"id":"M1","request":"p0","op":"post.message","key":"k1"})");
  Request("p1", kGood);
  OpRequested q = Read("p1");
  EXPECT_EQ(q.key, OpKeyState::kTaken);
  EXPECT_EQ(q.stored_result, "");
  // Another key's result says nothing of this one.
  Key("k2", R"({"request":"p0"})");
  Key("k2.result", R"({"status":"executed"})");
  EXPECT_EQ(Read("p1").key, OpKeyState::kTaken);
}

TEST_F(OpFilesTest, AKeyWithAResultBesideItIsDoneAndGivesTheResultCanonically) {
  Key("k1", R"({"request":"p0"})");
  Key("k1.result", "{\n  \"status\": \"executed\", \"rc\": 0,\n  \"request\": \"p0\"\n}\n");
  Request("p1", kGood);
  OpRequested q = Read("p1");
  EXPECT_EQ(q.key, OpKeyState::kDone);
  EXPECT_EQ(q.stored_result, R"({"rc":0,"request":"p0","status":"executed"})");
}

TEST_F(OpFilesTest, AKeyIsNotLookedUpForARequestThatDoesNotParse) {
  Key("k1", R"({"request":"p0"})");
  Key("k1.result", R"({"status":"executed"})");
  Request("p1", R"({"op":"post.message","args":{},"key":"k1","extra":1})");
  OpRequested q = Read("p1");
  EXPECT_EQ(q.read_error, "");
  EXPECT_EQ(q.key, OpKeyState::kFree);
}

TEST_F(OpFilesTest, ASymlinkedRequestIsNotFollowed) {
  Write(outside_ + "/secret.json", kGood);
  ASSERT_EQ(symlink((outside_ + "/secret.json").c_str(), (room_ + "/ops/p1.json").c_str()), 0);
  OpRequested q = Read("p1");
  EXPECT_EQ(q.bytes, "");
  EXPECT_NE(q.read_error.find("symbolic link, not followed"), std::string::npos) << q.read_error;
  EXPECT_NE(q.read_error.find("ops/p1.json"), std::string::npos) << q.read_error;
}

TEST_F(OpFilesTest, ASymlinkedOpsDirectoryIsNotFollowed) {
  fs::remove_all(room_ + "/ops");
  Write(outside_ + "/p1.json", kGood);
  ASSERT_EQ(symlink(outside_.c_str(), (room_ + "/ops").c_str()), 0);
  OpRequested q = Read("p1");
  EXPECT_EQ(q.bytes, "");
  EXPECT_NE(q.read_error, "");
  EXPECT_NE(q.read_error.find("/ops"), std::string::npos) << q.read_error;
  EXPECT_TRUE(ListOpRequests(room_).empty());
}

TEST_F(OpFilesTest, ADirectoryIsNotARequest) {
  ASSERT_EQ(mkdir((room_ + "/ops/p1.json").c_str(), 0755), 0);
  OpRequested q = Read("p1");
  EXPECT_EQ(q.bytes, "");
  EXPECT_NE(q.read_error.find("directory"), std::string::npos) << q.read_error;
}

TEST_F(OpFilesTest, AnOversizedRequestIsNotRead) {
  Request("big", std::string(kMaxOpRequestBytes + 1, ' '));
  OpRequested q = Read("big");
  EXPECT_EQ(q.bytes, "");
  EXPECT_NE(q.read_error.find("more than 65536"), std::string::npos) << q.read_error;
  // At the limit it is read whole.
  Request("edge", std::string(kMaxOpRequestBytes, ' '));
  q = Read("edge");
  EXPECT_EQ(q.read_error, "");
  EXPECT_EQ(q.bytes.size(), kMaxOpRequestBytes);
}

TEST_F(OpFilesTest, AMissingRequestIsAReadError) {
  OpRequested q = Read("gone");
  EXPECT_NE(q.read_error, "");
  EXPECT_EQ(q.bytes, "");
}

// ---- ListOpRequests ----

TEST_F(OpFilesTest, OnlyRequestNamesAreListedSorted) {
  for (const char* f : {"b.json", "a.json", "C-1.json", "a.result.json", ".hidden.json",
                        ".a.result.json.hangar-tmp", "notes.txt", "a.json~"})
    Write(room_ + "/ops/" + f, "{}");
  EXPECT_EQ(ListOpRequests(room_), (std::vector<std::string>{"C-1", "a", "b"}));
}

TEST_F(OpFilesTest, NoOpsDirectoryListsNothing) {
  fs::remove_all(room_ + "/ops");
  EXPECT_TRUE(ListOpRequests(room_).empty());
  EXPECT_TRUE(ListOpRequests(scratch_.path() + "/no-room").empty());
}

// ---- WriteRoomResult ----

TEST_F(OpFilesTest, TheResultIsWrittenIntoTheRoomLeavingNoTempFile) {
  Request("p1", kGood);
  ASSERT_TRUE(WriteRoomResult(room_, "p1", "{\"status\":\"executed\"}\n").ok());
  EXPECT_EQ(ReadAll(room_ + "/ops/p1.result.json"), "{\"status\":\"executed\"}\n");
  EXPECT_EQ(RoomOps(), (std::vector<std::string>{"p1.json", "p1.result.json"}));
}

TEST_F(OpFilesTest, AnExistingResultIsNeverReplaced) {
  Write(room_ + "/ops/p1.result.json", "forged by the drone");
  Status s = WriteRoomResult(room_, "p1", "{\"status\":\"refused\"}\n");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(room_ + "/ops/p1.result.json"), std::string::npos) << s.message();
  EXPECT_EQ(ReadAll(room_ + "/ops/p1.result.json"), "forged by the drone");
  EXPECT_EQ(RoomOps(), (std::vector<std::string>{"p1.result.json"}));  // no temp file left
  // Ours too: a second answer does not replace the first.
  ASSERT_TRUE(WriteRoomResult(room_, "p2", "first").ok());
  EXPECT_FALSE(WriteRoomResult(room_, "p2", "second").ok());
  EXPECT_EQ(ReadAll(room_ + "/ops/p2.result.json"), "first");
}

TEST_F(OpFilesTest, ASymlinkWhereTheResultGoesIsNotFollowed) {
  Write(outside_ + "/target", "untouched");
  ASSERT_EQ(symlink((outside_ + "/target").c_str(), (room_ + "/ops/p1.result.json").c_str()), 0);
  EXPECT_FALSE(WriteRoomResult(room_, "p1", "answer").ok());
  EXPECT_EQ(ReadAll(outside_ + "/target"), "untouched");
  EXPECT_TRUE(fs::is_symlink(room_ + "/ops/p1.result.json"));
  // A symlink planted at the temp name is removed, not written through.
  Write(outside_ + "/tmp-target", "untouched");
  ASSERT_EQ(symlink((outside_ + "/tmp-target").c_str(),
                    (room_ + "/ops/.p2.result.json.hangar-tmp").c_str()),
            0);
  ASSERT_TRUE(WriteRoomResult(room_, "p2", "answer").ok());
  EXPECT_EQ(ReadAll(outside_ + "/tmp-target"), "untouched");
  EXPECT_EQ(ReadAll(room_ + "/ops/p2.result.json"), "answer");
}

TEST_F(OpFilesTest, ASymlinkedOpsDirectoryGetsNoResult) {
  fs::remove_all(room_ + "/ops");
  ASSERT_EQ(symlink(outside_.c_str(), (room_ + "/ops").c_str()), 0);
  EXPECT_FALSE(WriteRoomResult(room_, "p1", "answer").ok());
  EXPECT_TRUE(fs::is_empty(outside_));
}

// ---- ReadOpsEvidence ----

TEST_F(OpFilesTest, EvidenceListsAnswersAndRequestsLeftUnanswered) {
  Write(mission_ops_ + "/p1.result.json",
        R"({"hangar":1,"request":"p1","op":"post.message","key":"k1","status":"executed",)"
        R"("rc":0,"output_text":"secret output","ledger_seq":9})");
  Write(mission_ops_ + "/p2.result.json",
        R"({"hangar":1,"request":"p2","op":"git.push","key":"k2","status":"refused",)"
        R"("rule":"ops.grant.git.push"})");
  Write(mission_ops_ + "/p1.request.json", kGood);  // kept bytes, not an answer
  Write(mission_ops_ + "/p1.args.json", "{}");
  Request("p1", kGood);
  Request("p2", R"({"op":"git.push","args":{},"key":"k2"})");
  Request("p3", R"({"op":"mail.send","args":{},"key":"k3"})");
  Request("p4", "not json");
  json::Value v = ReadOpsEvidence(mission_ops_, room_);
  EXPECT_EQ(json::Write(*v.find("answered")),
            R"([{"key":"k1","op":"post.message","rc":0,"request":"p1","status":"executed"},)"
            R"({"key":"k2","op":"git.push","request":"p2","rule":"ops.grant.git.push",)"
            R"("status":"refused"}])");
  EXPECT_EQ(json::Write(*v.find("unanswered")),
            R"([{"op":"mail.send","request":"p3"},{"op":null,"request":"p4"}])");
  EXPECT_EQ(v.find("omitted")->as_int(), 0);
}

TEST_F(OpFilesTest, EvidenceIsCappedAndCountsWhatItLeavesOut) {
  for (const char* n : {"a1", "a2", "a3"})
    Write(mission_ops_ + "/" + n + ".result.json",
          std::string(R"({"request":")") + n + R"(","op":"x","key":"k","status":"executed"})");
  for (const char* n : {"u1", "u2"}) Request(n, kGood);
  json::Value v = ReadOpsEvidence(mission_ops_, room_, 1);
  ASSERT_EQ(v.find("answered")->as_array().size(), 1u);
  EXPECT_EQ(v.find("answered")->as_array()[0].find("request")->as_string(), "a1");
  ASSERT_EQ(v.find("unanswered")->as_array().size(), 1u);
  EXPECT_EQ(v.find("omitted")->as_int(), 3);
}

TEST_F(OpFilesTest, AnUnreadableAnswerIsCountedAsOmitted) {
  Write(mission_ops_ + "/bad.result.json", "{torn");
  Request("bad", kGood);  // answered (its answer is there), so not unanswered either
  json::Value v = ReadOpsEvidence(mission_ops_, room_);
  EXPECT_TRUE(v.find("answered")->as_array().empty());
  EXPECT_TRUE(v.find("unanswered")->as_array().empty());
  EXPECT_EQ(v.find("omitted")->as_int(), 1);
}

TEST_F(OpFilesTest, NoWindowFilesIsAnEmptyRecord) {
  json::Value v = ReadOpsEvidence(scratch_.path() + "/none", scratch_.path() + "/none");
  EXPECT_EQ(json::Write(v), R"({"answered":[],"omitted":0,"unanswered":[]})");
}

}  // namespace
}  // namespace hangar
