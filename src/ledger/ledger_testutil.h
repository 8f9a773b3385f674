// Scratch directories and small file surgery for the ledger tests (header only: the Makefile
// links only *.cc files it knows into the library and tests).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ledger/anchor.h"
#include "ledger/store.h"

namespace hangar::ledger::testing {

inline constexpr TimeMs kT0 = 1767225600000;  // 2026-01-01T00:00:00.000Z

class Scratch {
 public:
  Scratch() {
    char tmpl[] = "/tmp/hangar-ledger-test-XXXXXX";
    base_ = mkdtemp(tmpl);
    std::filesystem::create_directories(base_ + "/anchor");
    std::filesystem::create_directories(base_ + "/spool");
  }
  ~Scratch() { std::filesystem::remove_all(base_); }
  const std::string& base() const { return base_; }
  std::string spool() const { return base_ + "/spool"; }
  std::string anchor_path(const std::string& name = "live") const {
    return base_ + "/anchor/" + name + ".anchor";
  }

 private:
  std::string base_;
};

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

inline void AppendText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::app) << text;
}

// Lines of a file, each without its "\n".
inline std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(ReadText(path));
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

inline void WriteLines(const std::string& path, const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  WriteText(path, text);
}

// Appends n entries {"n":i} to store and their lines to anchor, as hangard will.
inline std::vector<Entry> Grow(LedgerStore* store, Anchor* anchor, int n) {
  std::vector<Entry> out;
  for (int i = 0; i < n; i++) {
    int64_t seq = store->head_seq() + 1;
    Result<Entry> e = store->Append("test.step", json::Object{{"n", seq}}, kT0 + seq);
    EXPECT_TRUE(e.ok()) << e.status().message();
    if (!e.ok()) return out;
    if (anchor) {
      Status s = anchor->Append(e->epoch, e->seq, e->hash);
      EXPECT_TRUE(s.ok()) << s.message();
    }
    out.push_back(e.value());
  }
  return out;
}

}  // namespace hangar::ledger::testing
