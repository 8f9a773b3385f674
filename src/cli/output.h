// Output: how hangar prints. Aligned tables and short ages for people, one JSON document for
// scripts (--json), and every error in one shape on stderr: "hangar: cannot VERB OBJECT: reason".
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "base/json.h"

namespace hangar::cli {

using Row = std::vector<std::string>;

// 12s, 5m, 3h, 2d (whole units, rounded down); a negative age (clock skew) prints as 0s.
std::string FormatAge(int64_t ms);

// Columns padded to their widest cell and separated by two spaces; the last column is not padded.
// Every line ends with "\n".
std::string FormatTable(const std::vector<Row>& rows);
// The same over n rows made on demand: row(i, scratch) gives row i, a row it holds or scratch
// filled in, and is asked twice per row (to measure, then to write), so a listing of 100,000
// missions is not held a second time as a table.
std::string FormatTable(size_t n, const std::function<const Row&(size_t, Row&)>& row);

// The document indented for reading, ending with a newline; jq and json.load read it as is.
void PrintJson(std::ostream& out, const json::Value& v);

// Prints "hangar: MESSAGE" on err and returns exit_code, so a command can `return Fail(...)`.
int Fail(std::ostream& err, int exit_code, const std::string& message);

// "hangar: cannot VERB OBJECT: REASON".
int FailTo(std::ostream& err, int exit_code, const std::string& verb_object,
           const std::string& reason);

}  // namespace hangar::cli
