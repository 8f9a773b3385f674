// bin/hangar-shim, beside the running test binary (bin/hangar_test): the shim the launch tests
// start.
#pragma once

#include <filesystem>
#include <string>

namespace hangar {

inline std::string BuiltShimPath() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path() / "hangar-shim";
}

}  // namespace hangar
