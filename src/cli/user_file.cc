#include "cli/user_file.h"

#include <cstdio>
#include <filesystem>

#include "cli/exit_code.h"

namespace hangar::cli {

namespace {

std::string Limit(size_t max_bytes) {
  return max_bytes % (1 << 20) == 0 ? std::to_string(max_bytes >> 20) + " MiB"
                                    : std::to_string(max_bytes) + " bytes";
}

}  // namespace

std::variant<std::string, Failure> ReadUserFile(Env* env, const std::string& path,
                                                const std::string& what, size_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    return Failure{kExitNoInput, "cannot " + what + ": " + (ec ? ec.message() : "no such file")};
  if (!fs::is_regular_file(st))
    return Failure{kExitNoInput, "cannot " + what + ": not a regular file"};
  uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > max_bytes)
    return Failure{kExitData, "cannot " + what + ": larger than " + Limit(max_bytes) + " (" +
                                  std::to_string(size) + " bytes)"};
  fs::path real = fs::canonical(path, ec);
  auto bytes = env->ReadFile(ec ? path : real.string(), max_bytes);
  if (!bytes.ok()) return Failure{ExitForRead(bytes.status()), bytes.status().message()};
  return *bytes;
}

std::variant<std::string, Failure> ReadStdin(const std::string& what, size_t max_bytes) {
  std::string bytes;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) {
    bytes.append(buf, n);
    if (bytes.size() > max_bytes)
      return Failure{kExitData, "cannot " + what + ": larger than " + Limit(max_bytes)};
  }
  if (ferror(stdin)) return Failure{kExitIo, "cannot " + what + ": read error"};
  return bytes;
}

}  // namespace hangar::cli
