#include "cli/output.h"

#include <algorithm>

namespace hangar::cli {

std::string FormatAge(int64_t ms) {
  int64_t s = std::max<int64_t>(ms, 0) / 1000;
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m";
  if (s < 86400) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

std::string FormatTable(size_t n, const std::function<const Row&(size_t, Row&)>& row) {
  Row scratch;
  std::vector<size_t> width;
  for (size_t i = 0; i < n; ++i) {
    const Row& r = row(i, scratch);
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    const Row& r = row(i, scratch);
    for (size_t c = 0; c < r.size(); ++c) {
      out += r[c];
      if (c + 1 < r.size()) out.append(width[c] - r[c].size() + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

std::string FormatTable(const std::vector<Row>& rows) {
  return FormatTable(rows.size(), [&](size_t i, Row&) -> const Row& { return rows[i]; });
}

void PrintJson(std::ostream& out, const json::Value& v) {
  out << json::WritePretty(v);
}

int Fail(std::ostream& err, int exit_code, const std::string& message) {
  err << "hangar: " << message << "\n";
  return exit_code;
}

int FailTo(std::ostream& err, int exit_code, const std::string& verb_object,
           const std::string& reason) {
  return Fail(err, exit_code, "cannot " + verb_object + ": " + reason);
}

}  // namespace hangar::cli
