#include "shell/declaration.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/scratch_dir_testutil.h"
#include "base/sha256.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

class ReadDeclarationTest : public ::testing::Test {
 protected:
  ScratchDir scratch_{"declaration"};
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    room_ = scratch_.path();
    path_ = room_ + "/DECLARATION.json";
  }

  void Declare(const std::string& text) { std::ofstream(path_, std::ios::binary) << text; }
  json::Value Read() { return ReadDeclaration(room_); }
  std::string Error() {
    json::Value d = Read();
    EXPECT_FALSE(d.find("valid")->as_bool());
    return d.find("error") ? d.find("error")->as_string() : "(no error)";
  }

  std::string room_, path_;
};

constexpr char kGood[] =
    R"({"will":["edit src/"],"will_not":["push"],"ops":[],"external_acts":["none"]})";

TEST_F(ReadDeclarationTest, AbsentIsNotPresent) {
  EXPECT_EQ(json::Write(Read()), R"({"present":false})");
}

TEST_F(ReadDeclarationTest, ValidDeclarationIsHashedAndKept) {
  Declare(kGood);
  json::Value d = Read();
  EXPECT_TRUE(d.find("present")->as_bool());
  EXPECT_TRUE(d.find("valid")->as_bool());
  EXPECT_EQ(d.find("size")->as_int(), int64_t(sizeof kGood - 1));
  EXPECT_EQ(d.find("sha256")->as_string(), Sha256Hex(kGood));
  EXPECT_EQ(json::Write(*d.find("content")), json::Write(json::Parse(kGood).value()));
  EXPECT_EQ(d.find("error"), nullptr);
}

TEST_F(ReadDeclarationTest, ShapeErrorsNameTheField) {
  Declare(R"({"will":[],"will_not":[],"ops":[],"external_acts":[],"also":[]})");
  EXPECT_EQ(Error(), "also: unknown field");
  Declare(R"({"will":[],"will_not":[],"external_acts":[]})");
  EXPECT_EQ(Error(), "ops: missing");
  Declare(R"({"will":"everything","will_not":[],"ops":[],"external_acts":[]})");
  EXPECT_EQ(Error(), "will: expected a list of strings");
  Declare(R"({"will":[],"will_not":[],"ops":["a",2],"external_acts":[]})");
  EXPECT_EQ(Error(), "ops[1]: expected a string");
  Declare(R"(["will"])");
  EXPECT_EQ(Error(), "expected a JSON object");
}

TEST_F(ReadDeclarationTest, BadTextIsHashedButInvalid) {
  Declare("{\"will\":[\"\xff\"]}");
  json::Value d = Read();
  EXPECT_EQ(d.find("error")->as_string(), "not valid UTF-8");
  EXPECT_EQ(d.find("sha256")->as_string(), Sha256Hex("{\"will\":[\"\xff\"]}"));
  Declare("{\"will\": [");
  EXPECT_EQ(Error().rfind("not valid JSON", 0), 0u);
}

TEST_F(ReadDeclarationTest, SymlinkIsNotFollowed) {
  ASSERT_EQ(symlink("/etc/passwd", path_.c_str()), 0);
  json::Value d = Read();
  EXPECT_TRUE(d.find("present")->as_bool());
  EXPECT_FALSE(d.find("valid")->as_bool());
  EXPECT_EQ(d.find("error")->as_string(), "a symbolic link, not followed");
  EXPECT_EQ(d.find("sha256"), nullptr);
  EXPECT_EQ(d.find("size"), nullptr);
}

TEST_F(ReadDeclarationTest, SpecialFilesAreNotRead) {
  ASSERT_EQ(mkfifo(path_.c_str(), 0644), 0);
  EXPECT_EQ(Error(), "a fifo, not a regular file");  // would block if opened for reading
  ASSERT_EQ(unlink(path_.c_str()), 0);
  ASSERT_EQ(mkdir(path_.c_str(), 0755), 0);
  EXPECT_EQ(Error(), "a directory, not a regular file");
}

TEST_F(ReadDeclarationTest, OverOneMebibyteIsRefused) {
  Declare(std::string(kMaxDeclarationBytes + 1, ' '));
  json::Value d = Read();
  EXPECT_EQ(d.find("error")->as_string(), "larger than 1048576 bytes");
  EXPECT_EQ(d.find("size")->as_int(), int64_t(kMaxDeclarationBytes + 1));
  EXPECT_EQ(d.find("sha256"), nullptr);
  std::string exact = kGood;
  exact.append(kMaxDeclarationBytes - exact.size(), ' ');
  Declare(exact);
  EXPECT_TRUE(Read().find("valid")->as_bool());
}

TEST_F(ReadDeclarationTest, SymlinkedRoomIsNotEntered) {
  Declare(kGood);
  std::string link = room_ + "/link";
  ASSERT_EQ(symlink(room_.c_str(), link.c_str()), 0);
  json::Value d = ReadDeclaration(link);
  EXPECT_FALSE(d.find("present")->as_bool());
  EXPECT_EQ(d.find("error")->as_string(),
            "cannot open room " + link + ": a symbolic link, not followed");
}

}  // namespace
}  // namespace hangar
