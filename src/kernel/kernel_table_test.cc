// The kernel's state table is written twice: in kernel.h, beside the code, and in hangard(8), for
// the operator. This test reads both and holds them equal, row by row (state, signal, next; the
// actions column is worded for each reader), so neither drifts without the other. Each row of
// kernel.h is named ("[Name]" opening its actions): the code that carries it out is marked with
// that name, and kernel_rows_test.cc has a test of that name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace hangar {
namespace {

using Row = std::vector<std::string>;  // state, signal, next, actions

std::string SourceRoot() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && std::filesystem::exists(exe.parent_path().parent_path() / "src/kernel/kernel.h"))
    return exe.parent_path().parent_path().string();
  return ".";
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Whitespace runs made one space, troff's \- made '-', trimmed.
std::string Norm(const std::string& s) {
  std::string t, out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '-') {
      t += '-';
      ++i;
    } else {
      t += s[i];
    }
  }
  for (char c : t) {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// kernel.h: "//   state | signal | next | actions" lines under the header and its rule; a line
// whose state cell is empty continues the row above.
std::vector<Row> HeaderTable(const std::string& text) {
  std::vector<Row> rows;
  const size_t from = text.find("//   state     | signal");
  const size_t to = text.find("// The ledger: every decision");
  if (from == std::string::npos || to == std::string::npos) return rows;
  std::istringstream lines(text.substr(from, to - from));
  std::string line;
  std::getline(lines, line);  // the header
  std::getline(lines, line);  // its rule
  while (std::getline(lines, line)) {
    if (!line.starts_with("//  ")) continue;
    Row cells;
    std::string rest = line.substr(2);
    for (int k = 0; k < 3; ++k) {  // the actions cell may itself hold a '|'
      size_t bar = rest.find('|');
      if (bar == std::string::npos) break;
      cells.push_back(rest.substr(0, bar));
      rest = rest.substr(bar + 1);
    }
    cells.push_back(rest);
    if (cells.size() != 4) continue;
    if (Norm(cells[0]).empty() && !rows.empty()) {
      for (int k = 0; k < 4; ++k) rows.back()[k] += " " + cells[k];
    } else {
      rows.push_back(cells);
    }
  }
  for (Row& r : rows)
    for (std::string& c : r) c = Norm(c);
  return rows;
}

// hangard(8): the tbl(1) table after its header and "_" line; cells split at '|', rows at a
// newline, a T{ ... T} block one cell whatever it holds (.na and .nh lines dropped).
std::vector<Row> ManTable(const std::string& text) {
  std::vector<Row> rows;
  const size_t ts = text.find(".TS\ntab(|) box;");
  if (ts == std::string::npos) return rows;
  const size_t head = text.find("\n_\n", ts), te = text.find("\n.TE", ts);
  if (head == std::string::npos || te == std::string::npos || head > te) return rows;
  const std::string body = text.substr(head + 3, te + 1 - (head + 3));
  Row cells;
  std::string cur;
  for (size_t i = 0; i < body.size();) {
    if (body.compare(i, 3, "T{\n") == 0) {
      const size_t end = body.find("\nT}", i);
      if (end == std::string::npos) break;
      std::istringstream block(body.substr(i + 3, end - (i + 3)));
      std::string l;
      while (std::getline(block, l))
        if (l != ".na" && l != ".nh") cur += " " + l;
      i = end + 3;
      continue;
    }
    const char c = body[i++];
    if (c == '|') {
      cells.push_back(Norm(cur));
      cur.clear();
    } else if (c == '\n') {
      cells.push_back(Norm(cur));
      cur.clear();
      if (cells.size() == 4) rows.push_back(cells);
      cells.clear();
    } else {
      cur += c;
    }
  }
  return rows;
}

TEST(KernelTable, TheHeaderAndTheManPageHaveTheSameRows) {
  const std::string root = SourceRoot();
  const std::vector<Row> code = HeaderTable(Read(root + "/src/kernel/kernel.h"));
  const std::vector<Row> man = ManTable(Read(root + "/man/hangard.8"));
  ASSERT_GE(code.size(), 30u) << "the table in src/kernel/kernel.h was not found whole";
  ASSERT_EQ(code.size(), man.size()) << "rows in kernel.h and in man/hangard.8";
  for (size_t i = 0; i < code.size(); ++i)
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(code[i][k], man[i][k]) << "row " << i + 1 << ", column "
                                       << (k == 0   ? "state"
                                           : k == 1 ? "signal"
                                                    : "next");
}

// NAME of a row whose actions open with "[NAME]"; "" when they do not.
std::string RowName(const Row& r) {
  static const std::regex label(R"(^\[([A-Za-z]+)\])");
  std::smatch m;
  return std::regex_search(r[3], m, label) ? m[1].str() : "";
}

TEST(KernelTable, EveryRowIsNamedMarkedInTheCodeAndTested) {
  const std::string root = SourceRoot();
  const std::vector<Row> rows = HeaderTable(Read(root + "/src/kernel/kernel.h"));
  ASSERT_GE(rows.size(), 30u);
  std::string code, tests;
  for (const auto& e : std::filesystem::directory_iterator(root + "/src/kernel")) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(".cc")) continue;
    (name.ends_with("_test.cc") ? tests : code) += Read(e.path().string());
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string name = RowName(rows[i]);
    ASSERT_FALSE(name.empty()) << "row " << i + 1 << " of kernel.h has no [Name]: " << rows[i][3];
    EXPECT_TRUE(seen.insert(name).second) << "two rows are named " << name;
    // A mark is a comment opening with one or more names: "// [A]", "// [A] [B] text".
    EXPECT_TRUE(
        std::regex_search(code, std::regex("//\\s*(\\[[A-Za-z]+\\]\\s*)*\\[" + name + "\\]")))
        << "no code in src/kernel/*.cc is marked // [" << name << "]";
    EXPECT_TRUE(std::regex_search(tests, std::regex("TEST(_F)?\\(KernelRow\\w*, " + name + "\\)")))
        << "no TEST(KernelRow, " << name << ") in src/kernel/*_test.cc";
  }
}

// The reader itself: a row split over lines, an action holding a '|'.
TEST(KernelTable, TheReadersJoinContinuedRows) {
  const std::vector<Row> code = HeaderTable(
      "//   state     | signal | next | actions\n"
      "//   ----------+--------+------+--------\n"
      "//   running   | OpFinished      | running   | Record(op.result | op.unrun),\n"
      "//             |   late          |           |   AnswerOp\n"
      "// The ledger: every decision\n");
  ASSERT_EQ(code.size(), 1u);
  EXPECT_EQ(code[0], (Row{"running", "OpFinished late", "running",
                          "Record(op.result | op.unrun), AnswerOp"}));
  const std::vector<Row> man = ManTable(
      ".TS\ntab(|) box;\nlb lb lb lb\nstate|signal|next|actions\n_\n"
      "running|T{\n.na\n.nh\nOpFinished\nlate\nT}|running|T{\n.na\nRecord(a | b)\nT}\n.TE\n");
  ASSERT_EQ(man.size(), 1u);
  EXPECT_EQ(man[0], (Row{"running", "OpFinished late", "running", "Record(a | b)"}));
}

}  // namespace
}  // namespace hangar
