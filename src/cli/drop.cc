#include "cli/drop.h"

#include <unistd.h>

#include <cstdlib>

#include "cli/output.h"

namespace hangar::cli {

Status Drop(Env* env, const std::string& tmp_dir, const std::string& new_dir,
            const std::string& name, std::string_view data) {
  const std::string tmp = tmp_dir + "/" + name;
  Status s = env->WriteFileAtomic(tmp_dir, name, data);
  if (s.ok()) s = env->Rename(tmp, new_dir + "/" + name);
  if (!s.ok() && env->Exists(tmp)) (void)env->Remove(tmp);
  return s;
}

std::string Asker() {
  const char* user = std::getenv("USER");
  if (user && *user) return user;
  return std::to_string(getuid());
}

void PrintDropped(const Context& ctx, const std::string& id, const std::string& file,
                  const std::string& line) {
  if (!ctx.json) {
    ctx.out << Printable(line) << "\n";
    return;
  }
  json::Object o;
  o["id"] = id;
  o["file"] = file;
  PrintJson(ctx.out, o);
}

}  // namespace hangar::cli
