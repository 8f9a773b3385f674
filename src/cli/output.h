// Output: how hangar prints. Aligned tables and short ages for people, one JSON document for
// scripts (--json), and every error in one shape on stderr: "hangar: cannot VERB OBJECT: reason".
//
// Text for people passes through Printable once, on its way out: what a mission, a drone, a
// request or the ledger says may hold terminal escapes, and a requester of "x\e[1A\e[2K" must not
// erase the line above its own. FormatTable and Fail do it for every cell and message; a command
// that prints a line of its own passes the untrusted parts through Printable. --json output is
// JSON text as json::WritePretty writes it (control characters escaped, the rest as is).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"

namespace hangar::cli {

using Row = std::vector<std::string>;

// s with every character that could steer a terminal or reorder what it shows written as a
// visible escape, all else (a backslash included) as is:
//   C0 controls and DEL            \t \n \r, else \x1b, \x7f, ...
//   C1 controls U+0080..U+009F     \u0085, \u009b, ... (as UTF-8, C2 80..C2 9F)
//   line and paragraph separator   \u2028 \u2029
//   bidi marks, embeddings,        \u061c \u200e \u200f \u202a..\u202e \u2066..\u2069
//     overrides and isolates
//   a byte that is not UTF-8       \xNN (each byte of a bad sequence on its own)
// The result holds no byte below 0x20, no 0x7f and no C1 byte outside a valid sequence.
std::string Printable(std::string_view s);
// Appends Printable(s) to out.
void AppendPrintable(std::string* out, std::string_view s);

// 12s, 5m, 3h, 2d (whole units, rounded down); a negative age (clock skew) prints as 0s.
std::string FormatAge(int64_t ms);

// Columns padded to their widest cell and separated by two spaces; the last column is not padded.
// Every cell is printed as Printable(cell), so no cell starts a line or moves the cursor. Every
// line ends with "\n".
std::string FormatTable(const std::vector<Row>& rows);
// The same over n rows made on demand: row(i, scratch) gives row i, a row it holds or scratch
// filled in, and is asked twice per row (to measure, then to write), so a listing of 100,000
// missions is not held a second time as a table.
std::string FormatTable(size_t n, const std::function<const Row&(size_t, Row&)>& row);

// The document indented for reading, ending with a newline; jq and json.load read it as is.
void PrintJson(std::ostream& out, const json::Value& v);

// Prints "hangar: " Printable(MESSAGE) on err and returns exit_code, so a command can
// `return Fail(...)`.
int Fail(std::ostream& err, int exit_code, const std::string& message);

// "hangar: cannot VERB OBJECT: REASON".
int FailTo(std::ostream& err, int exit_code, const std::string& verb_object,
           const std::string& reason);

}  // namespace hangar::cli
