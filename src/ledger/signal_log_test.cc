// The signal record's writer on a real directory: lines are numbered and chained, a start line
// carries the setup's facts, small blobs go inline once, large ones to blobs/HEX; Add only
// buffers (a crash loses nothing acted on) and Flush writes; a torn last line is cut at Open and
// the chain goes on from the last whole line; a last line that does not read refuses the start.
#include "ledger/signal_log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/scratch_dir_testutil.h"
#include "base/sha256.h"
#include "env/env.h"
#include "kernel/kernel_testutil.h"
#include "ledger/signal_reader.h"

namespace hangar {
namespace {

constexpr TimeMs kT = 1'700'000'000'000;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

SetupFacts Facts() {
  SetupFacts f;
  f.config_file = "/s/hangar.conf";
  f.config_text = R"({"hangar":1,"profiles":{"script":{"argv":["/bin/true"]}}})";
  f.spool = "/s";
  f.home = "/";
  return f;
}

std::string Mission(const std::string& id, size_t pad = 0) {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"" + std::string(pad, 'x') +
         "\",\"now\":\"n\",\"max_minutes\":1}";
}

class SignalLogTest : public ::testing::Test {
 protected:
  ScratchDir dir_{"signal-log"};
  std::string file() const { return dir_.path() + "/signals/live/signals.jsonl"; }
  // Every line the reader accepts, or the reader's error.
  Result<std::vector<ledger::Line>> ReadAll() {
    ledger::SignalReader r(RealEnv(), dir_.path() + "/signals/live");
    if (Status s = r.Open(); !s.ok()) return s;
    std::vector<ledger::Line> out;
    for (;;) {
      Result<std::optional<ledger::Line>> l = r.Next();
      if (!l.ok()) return l.status();
      if (!l->has_value()) return out;
      out.push_back(**l);
    }
  }
};

TEST_F(SignalLogTest, LinesAreChainedAndReadBackWithTheirBlobs) {
  ledger::SignalLog log(RealEnv(), dir_.path(), "live");
  std::string said;
  ASSERT_TRUE(log.Open(&said).ok());
  ASSERT_TRUE(log.Start(Facts(), 0, std::string(64, '0'), 0).ok());
  State st;
  const Dropped small{"a.json", Mission("A"), "", kT, {}, kRoot};
  const Dropped large{"b.json", Mission("B", ledger::kInlineBlobBytes + 1), "", kT + 1, {}, kRoot};
  for (const Dropped& d : {small, large, small}) {
    Result<std::string> h = log.Add(d, {Log{"x"}}, st, 0, std::string(64, '0'));
    ASSERT_TRUE(h.ok()) << h.status().message();
  }
  EXPECT_EQ(Slurp(file()).find("a.json"), std::string::npos) << "Add only buffers";
  ASSERT_TRUE(log.Flush().ok());
  const std::string text = Slurp(file());
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
  EXPECT_EQ(log.last_n(), 4);
  const std::string small_hex = Sha256Hex(small.bytes), large_hex = Sha256Hex(large.bytes);
  EXPECT_TRUE(std::filesystem::exists(log.dir() + "/blobs/" + large_hex));
  EXPECT_FALSE(std::filesystem::exists(log.dir() + "/blobs/" + small_hex));
  size_t first = text.find("\"" + small_hex + "\":");
  EXPECT_NE(first, std::string::npos);
  EXPECT_NE(text.find("\"" + small_hex + "\":", first + 1), std::string::npos)
      << "each line carries the small blobs it names";
  // Each line is canonical JSON (sorted keys, "hash" among them) and its hash is that of the
  // previous line's hash and the line without "hash".
  std::istringstream in(text);
  std::string prev(64, '0'), line;
  while (std::getline(in, line)) {
    Result<json::Value> v = json::Parse(line);
    ASSERT_TRUE(v.ok()) << line;
    EXPECT_EQ(json::Write(*v), line);
    const std::string hash = v->find("hash")->as_string();
    v->as_object().erase("hash");
    EXPECT_EQ(v->find("prev")->as_string(), prev);
    EXPECT_EQ(Sha256Hex(prev + json::Write(*v)), hash);
    prev = hash;
  }
  Result<std::vector<ledger::Line>> lines = ReadAll();
  ASSERT_TRUE(lines.ok()) << lines.status().message();
  ASSERT_EQ(lines->size(), 4u);
  EXPECT_EQ(std::get<ledger::StartLine>((*lines)[0]).facts.config_text, Facts().config_text);
  EXPECT_EQ(std::get<Dropped>(std::get<ledger::SignalLine>((*lines)[2]).signal).bytes, large.bytes);
  EXPECT_EQ(std::get<Dropped>(std::get<ledger::SignalLine>((*lines)[3]).signal).bytes, small.bytes);
}

TEST_F(SignalLogTest, ATornLastLineIsCutAndTheChainGoesOn) {
  {
    ledger::SignalLog log(RealEnv(), dir_.path(), "live");
    std::string said;
    ASSERT_TRUE(log.Open(&said).ok());
    ASSERT_TRUE(log.Start(Facts(), 0, std::string(64, '0'), 0).ok());
  }
  const std::string whole = Slurp(file());
  std::ofstream(file(), std::ios::app) << "{\"acts\":true,\"blo";  // a write cut short
  ledger::SignalLog log(RealEnv(), dir_.path(), "live");
  std::string said;
  ASSERT_TRUE(log.Open(&said).ok());
  EXPECT_NE(said.find("cut a torn last line (17 bytes"), std::string::npos) << said;
  EXPECT_EQ(Slurp(file()), whole);
  EXPECT_EQ(log.last_n(), 1);
  ASSERT_TRUE(log.Start(Facts(), 0, std::string(64, '0'), 0).ok());
  Result<std::vector<ledger::Line>> lines = ReadAll();
  ASSERT_TRUE(lines.ok()) << lines.status().message();
  EXPECT_EQ(lines->size(), 2u);
}

// What the start checks an unanchored ledger tail against (daemon/ledger_keeper.h): the head the
// last line's decision followed plus the entries it made; and the lines as another append's part.
TEST_F(SignalLogTest, TheLastLineSaysUpToWhichLedgerSeqEntriesHaveLines) {
  // What a reopened log's cover says: "SEQ HASH-FIRST-CHAR RECORDS".
  auto reopened = [&] {
    ledger::SignalLog log(RealEnv(), dir_.path(), "live");
    std::string said;
    EXPECT_TRUE(log.Open(&said).ok());
    const std::optional<ledger::LinesCover>& c = log.cover();
    if (!c) return std::string("none");
    return std::to_string(c->seq) + " " + c->hash.substr(0, 1) + " " + std::to_string(c->records);
  };
  EXPECT_EQ(reopened(), "0 0 0") << "no record: the genesis head";
  ledger::SignalLog log(RealEnv(), dir_.path(), "live");
  std::string said;
  ASSERT_TRUE(log.Open(&said).ok());
  EXPECT_FALSE(log.Unwritten().has_value());
  ASSERT_TRUE(log.Start(Facts(), 7, std::string(64, '7'), 0).ok());
  EXPECT_EQ(reopened(), "7 7 0") << "a start line: its head";
  const Dropped d{"a.json", Mission("A"), "", kT, {}, kRoot};
  const std::vector<Action> two{Record{8, "mission.accepted", json::Object{}, kT},
                                Record{9, "mission.queued", json::Object{}, kT}};
  ASSERT_TRUE(log.Add(d, two, State{}, 7, std::string(64, '7')).ok());
  std::optional<Env::Appended> part = log.Unwritten();
  ASSERT_TRUE(part.has_value());
  EXPECT_EQ(part->path, file());
  EXPECT_NE(part->data.find("a.json"), std::string::npos);
  log.Wrote(Status::Io("the disk said no"));
  EXPECT_TRUE(log.Unwritten().has_value()) << "kept after a failed append";
  ASSERT_TRUE(RealEnv()->AppendDurable(part->path, part->data).ok());
  log.Wrote(Status::Ok());
  EXPECT_FALSE(log.Unwritten().has_value());
  EXPECT_EQ(reopened(), "7 7 2") << "followed 7, made 2";
  ASSERT_TRUE(log.Add(d, {Log{"x"}}, State{}, 9, std::string(64, '9')).ok());
  ASSERT_TRUE(log.Flush().ok());
  EXPECT_EQ(reopened(), "9 9 0") << "a line that only logs, after 9";
}

TEST_F(SignalLogTest, ALastLineThatDoesNotReadRefusesTheStart) {
  std::filesystem::create_directories(dir_.path() + "/signals/live");
  std::ofstream(file()) << "{\"n\":\"one\"}\n";
  ledger::SignalLog log(RealEnv(), dir_.path(), "live");
  std::string said;
  Status s = log.Open(&said);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find(file() + ": its last line does not read"), std::string::npos)
      << s.message();
}

TEST_F(SignalLogTest, TheReaderRefusesAnEditedLineOrBlobNamingIt) {
  {
    ledger::SignalLog log(RealEnv(), dir_.path(), "live");
    std::string said;
    ASSERT_TRUE(log.Open(&said).ok());
    ASSERT_TRUE(log.Start(Facts(), 0, std::string(64, '0'), 0).ok());
    State st;
    ASSERT_TRUE(
        log.Add(Dropped{"b.json", Mission("B", ledger::kInlineBlobBytes + 1), "", kT, {}, kRoot},
                {}, st, 0, std::string(64, '0'))
            .ok());
    ASSERT_TRUE(log.Flush().ok());
  }
  const std::string saved = Slurp(file());
  std::string edited = saved;
  edited.replace(edited.find("b.json"), 6, "c.json");
  std::ofstream(file(), std::ios::trunc) << edited;
  Result<std::vector<ledger::Line>> lines = ReadAll();
  ASSERT_FALSE(lines.ok());
  EXPECT_NE(lines.status().message().find("line 2: its hash does not recompute"), std::string::npos)
      << lines.status().message();
  std::ofstream(file(), std::ios::trunc) << saved;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path() + "/signals/live/blobs"))
    std::ofstream(e.path(), std::ios::app) << "!";
  lines = ReadAll();
  ASSERT_FALSE(lines.ok());
  EXPECT_NE(lines.status().message().find("does not have that sha256"), std::string::npos)
      << lines.status().message();
}

}  // namespace
}  // namespace hangar
