#include "base/status.h"

#include <cerrno>
#include <cstring>

namespace hangar {

Status Status::Errno(const std::string& what, int errno_value) {
  Code c = Code::kIo;
  if (errno_value == ENOENT) c = Code::kNotFound;
  if (errno_value == EEXIST) c = Code::kExists;
  return Status(c, "cannot " + what + ": " + std::strerror(errno_value), errno_value);
}

}  // namespace hangar
