#include "cli/drop.h"

#include <unistd.h>

#include <cstdlib>

#include "base/id.h"
#include "cli/answer.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "kernel/control.h"

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

// Checks the request with the kernel's parser, then drops it as control/new/NAME.
int DropControlRequest(const Context& ctx, json::Object request, const std::string& what,
                       const std::string& subject, const std::string& said) {
  const TimeMs now = ctx.env->Now();
  request["hangar"] = 1;
  request["by"] = Asker();
  request["time"] = FormatTime(now);
  const std::string text = json::Write(json::Value(request)) + "\n";
  auto parsed = ParseControl(text);
  if (auto* e = std::get_if<ParseError>(&parsed))
    return FailTo(ctx.err, kExitUsage, what, e->Text());
  const std::string name = request["request"].as_string() + "." +
                           (ValidId(subject) ? subject + "." : "") + CompactTime(now) + "." +
                           std::to_string(getpid());
  Status s = Drop(ctx.env, ctx.layout.ControlTmp(), ctx.layout.ControlNew(), name, text);
  if (!s.ok()) return FailTo(ctx.err, kExitCantCreate, what, s.message());
  return AwaitAnswer(ctx, subject, name, what, said);
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
