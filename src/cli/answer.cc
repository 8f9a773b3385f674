#include "cli/answer.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/drop.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/spool_view.h"

namespace hangar::cli {

std::string WaitedText(double seconds) {
  char b[32];
  snprintf(b, sizeof b, seconds == double(int64_t(seconds)) ? "%.0f s" : "%.1f s", seconds);
  return b;
}

int AwaitAnswer(const Context& ctx, const std::string& id, const std::string& name,
                const std::string& what, const std::string& said) {
  const std::string file = "control/new/" + name;
  if (ctx.answer_wait_s <= 0) {
    PrintDropped(ctx, id, file, what + ": requested in " + file + " (not waiting for the answer)");
    return kExitOk;
  }
  const std::string path = ctx.layout.ControlDone() + "/" + name + ".json";
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(int64_t(ctx.answer_wait_s * 1000));
  Result<json::Value> answer = Status::NotFound(path);
  for (;;) {
    Result<std::string> text = ctx.env->ReadFile(path, 1 << 20);
    if (text.ok()) answer = json::Parse(*text);
    if (answer.ok() && answer->is_object()) break;
    if (std::chrono::steady_clock::now() >= until)
      return FailTo(ctx.err, kExitTimeout, what,
                    "hangard did not answer within " + WaitedText(ctx.answer_wait_s) +
                        "; the request waits in " + file + " (is hangard running?)");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string status = StringField(*answer, "status");
  const std::string rule = StringField(*answer, "rule");
  const std::string reason = StringField(*answer, "reason");
  if (status == "refused")
    return FailTo(ctx.err, kExitNoPerm, what, "refused (" + rule + "): " + reason);
  if (status != "done") return FailTo(ctx.err, kExitData, what, reason.empty() ? status : reason);
  if (ctx.json) {
    json::Object o{{"id", id}, {"file", file}, {"answer", *answer}};
    PrintJson(ctx.out, o);
    return kExitOk;
  }
  const json::Value* seq = answer->find("ledger_seq");
  const std::string effect = StringField(*answer, "effect");
  ctx.out << Printable(said) << " (" << Printable(effect.empty() ? "done" : effect)
          << (seq && seq->is_int() ? ", ledger seq " + std::to_string(seq->as_int()) : "") << ")\n";
  return kExitOk;
}

}  // namespace hangar::cli
