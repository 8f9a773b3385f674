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

std::string FormatTable(const std::vector<Row>& rows) {
  std::vector<size_t> width;
  for (const Row& r : rows) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const Row& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
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
