// What a JSON syntax error says: simdjson's reason and, where the document shows it, the line and
// column it was found at ("not valid JSON: REASON (line 3, column 9)"). simdjson's DOM parser
// gives no position, so on an error the bytes are walked once more with its on-demand parser,
// which stops at the first bad token and says where it stands. An error found before any token
// (an unclosed string, bytes that are not UTF-8) has no position and is said without one.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace hangar::json {

// "not valid JSON: REASON" with " (line L, column C)" when the position is known. L and C count
// from 1; C counts bytes.
std::string SyntaxError(std::string_view bytes, simdjson::error_code err);

}  // namespace hangar::json
