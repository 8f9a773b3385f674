// What every hangar binary prints for --version: the release, and the kernel build whose
// decide() it carries (kernel/decision_digest.h: the build a signal record and a replay name).
// The release is raised with each landing that changes a file format or a command's interface.
#pragma once

#include <string>
#include <string_view>

#include "kernel/decision_digest.h"

namespace hangar {

inline constexpr std::string_view kHangarVersion = "0.1.0";

// "PROGRAM 0.1.0 (hangar-kernel/4)".
inline std::string VersionLine(std::string_view program) {
  return std::string(program) + " " + std::string(kHangarVersion) + " (" +
         std::string(kKernelBuild) + ")";
}

}  // namespace hangar
