#include "shell/json_file.h"

namespace hangar {

Result<json::Value> ReadObject(Env* env, const std::string& path, size_t max) {
  Result<std::string> text = env->ReadFile(path, max);
  if (!text.ok()) return text.status();
  Result<json::Value> v = json::Parse(*text);
  if (!v.ok()) return Status::Invalid("cannot read " + path + ": " + v.status().message());
  if (!v->is_object()) return Status::Invalid("cannot read " + path + ": expected an object");
  return v;
}

}  // namespace hangar
