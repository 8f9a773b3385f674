#include "shell/notify.h"

namespace hangar {

Status DeliverMaildir(Env* env, const std::string& dir, const std::string& name,
                      std::string_view data, int64_t owner) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return Status::Invalid("cannot deliver \"" + name + "\": not a plain file name");
  }
  return env->WriteMaildir(dir, name, data, owner);
}

}  // namespace hangar
