// What the hangar-bench-* programs share: a steady clock read in seconds, the CPU time getrusage
// counts, a fatal error that names the program, and their options parsed by CLI11 (--help and a
// bad option exit as CLI11 says).
#pragma once

#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace hangar::bench {

using Clock = std::chrono::steady_clock;

inline double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The CPU seconds, user and system, getrusage(2) gives WHO (RUSAGE_SELF, RUSAGE_CHILDREN) so far.
inline double CpuSeconds(int who) {
  rusage r{};
  getrusage(who, &r);
  return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

// The name Die prints: argv[0]'s last component, once Parse has run.
inline std::string& Program() {
  static std::string name = "hangar-bench";
  return name;
}

[[noreturn]] inline void Die(const std::string& what) {
  fprintf(stderr, "%s: %s\n", Program().c_str(), what.c_str());
  std::exit(1);
}

inline void Parse(CLI::App& app, int argc, char** argv) {
  if (argc > 0) Program() = std::filesystem::path(argv[0]).filename().string();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
}

}  // namespace hangar::bench
