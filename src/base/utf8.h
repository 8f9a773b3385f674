// Text that may not be UTF-8 (file names, a drone's output), made safe to show and to put in JSON.
#pragma once

#include <string>
#include <string_view>

namespace hangar {

// S with each invalid UTF-8 sequence replaced by U+FFFD (the longest valid-looking prefix becoming
// one, as Unicode recommends); S itself when it is valid.
std::string ReplaceInvalidUtf8(std::string_view s);

// The longest prefix of S of at most MAX bytes that does not end inside a UTF-8 sequence.
std::string_view Utf8Prefix(std::string_view s, size_t max);

}  // namespace hangar
