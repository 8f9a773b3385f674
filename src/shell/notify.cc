#include "shell/notify.h"

namespace hangar {

namespace {

// Creates DIR/SUB unless it is there; a concurrent delivery creating it first is fine.
Status EnsureDir(Env* env, const std::string& path) {
  if (env->Exists(path)) return Status::Ok();
  Status s = env->MakeDir(path);
  return s.code() == Code::kExists ? Status::Ok() : s;
}

}  // namespace

Status DeliverMaildir(Env* env, const std::string& dir, const std::string& name,
                      std::string_view data) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return Status::Invalid("cannot deliver \"" + name + "\": not a plain file name");
  }
  if (!env->Exists(dir)) {
    return Status::NotFound("cannot deliver " + name + " to " + dir + ": no such directory");
  }
  const std::string tmp = dir + "/tmp", fresh = dir + "/new";
  for (const std::string& sub : {tmp, fresh}) {
    Status s = EnsureDir(env, sub);
    if (!s.ok()) return s;
  }
  Status s = env->WriteFileAtomic(tmp, name, data);
  if (!s.ok()) return s;
  return env->Rename(tmp + "/" + name, fresh + "/" + name);
}

}  // namespace hangar
