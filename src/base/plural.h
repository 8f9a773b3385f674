// "1 mission", "2 missions": a count with its noun, for messages people read.
#pragma once

#include <cstdint>
#include <string>

namespace hangar {

inline std::string Plural(int64_t n, const std::string& one, const std::string& many = "") {
  return std::to_string(n) + " " + (n == 1 ? one : many.empty() ? one + "s" : many);
}

}  // namespace hangar
