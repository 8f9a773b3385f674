// What every fuzz target (fuzz/NAME_fuzz.cc) shares. A target hands libFuzzer's bytes to one
// parser and checks what that parser's header promises of its answer; FUZZ_CHECK aborts on a
// broken promise, so libFuzzer keeps the input as a crash, as it does for a sanitizer report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string_view>
#include <utility>

#define FUZZ_CHECK(cond)                                                              \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)

// For a target whose parser reads local times (Slurm's): defines libFuzzer's initializer to run in
// TZ=UTC, so a time reads the same on every machine. Once, at file scope.
#define FUZZ_IN_UTC()                                  \
  extern "C" int LLVMFuzzerInitialize(int*, char***) { \
    setenv("TZ", "UTC", 1);                            \
    tzset();                                           \
    return 0;                                          \
  }

namespace hangar::fuzz {

inline std::string_view Bytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// For a parser of two inputs: the bytes before the first "\n", and those after it (all of the
// input and "" when there is no "\n"). The seeds put the second argument on their first line.
inline std::pair<std::string_view, std::string_view> FirstLine(std::string_view s) {
  size_t nl = s.find('\n');
  if (nl == std::string_view::npos) return {s, {}};
  return {s.substr(0, nl), s.substr(nl + 1)};
}

}  // namespace hangar::fuzz
