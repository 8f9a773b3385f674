// Input a user names on the command line: a file (symlinks followed, a regular file only, at most
// a size) or standard input, read whole. Errors come with the exit status and message to print.
#pragma once

#include <cstddef>
#include <string>
#include <variant>

#include "env/env.h"

namespace hangar::cli {

struct Failure {
  int exit_code;
  std::string message;  // printed after "hangar: "
};

// PATH's bytes; WHAT names the act in messages ("cannot WHAT: reason"): 66 when missing or not a
// regular file, 65 when larger than MAX_BYTES, the read's status otherwise.
std::variant<std::string, Failure> ReadUserFile(Env* env, const std::string& path,
                                                const std::string& what, size_t max_bytes);
// Standard input's bytes: 65 when larger than MAX_BYTES, 74 on a read error.
std::variant<std::string, Failure> ReadStdin(const std::string& what, size_t max_bytes);

}  // namespace hangar::cli
