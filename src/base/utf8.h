// Text that may not be UTF-8 (file names, a drone's output), made safe to show and to put in JSON.
#pragma once

#include <string>
#include <string_view>

namespace hangar {

// S with each invalid UTF-8 sequence replaced by U+FFFD (the longest valid-looking prefix becoming
// one, as Unicode recommends); S itself when it is valid.
std::string ReplaceInvalidUtf8(std::string_view s);

}  // namespace hangar
