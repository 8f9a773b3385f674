// Ids: the names of missions, requesters' files, ledgers and keys in the spool. One grammar,
// [A-Za-z0-9][A-Za-z0-9._-]{0,63}: safe as a file name (no '/', no leading '.', never "." or
// ".."), as a shell word and in a log line.
#pragma once

#include <string_view>

namespace hangar {

// The grammar in words, for error messages.
inline constexpr const char* kIdGrammar = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";

// Whether id matches kIdGrammar.
bool ValidId(std::string_view id);

}  // namespace hangar
