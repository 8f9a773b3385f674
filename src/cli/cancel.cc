// hangar cancel: asks the kernel to stop a mission. The CLI moves nothing itself: it drops a
// control request (control/tmp, then one rename into control/new) and the kernel acts on it.
#include <unistd.h>

#include "cli/answer.h"
#include "cli/commands.h"
#include "cli/drop.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/spool_view.h"

namespace hangar::cli {

json::Value CancelRequest(const std::string& id, const std::string& by, TimeMs now) {
  json::Object o;
  o["hangar"] = 1;
  o["request"] = "cancel";
  o["id"] = id;
  o["by"] = by;
  o["time"] = FormatTime(now);
  return o;
}

std::string CancelRequestName(const std::string& id, TimeMs now, pid_t pid) {
  return "cancel." + id + "." + CompactTime(now) + "." + std::to_string(pid);
}

int RunCancel(const Context& ctx, const std::string& id) {
  SpoolView view(ctx.env, ctx.layout);
  Result<MissionRef> ref = view.Find(id);
  if (!ref.ok()) return FailTo(ctx.err, kExitNoInput, "cancel " + id, ref.status().message());
  if (!ref->phase)
    return FailTo(ctx.err, kExitNoInput, "cancel " + id,
                  "not taken by the kernel yet (still in incoming/new); try again in a moment");
  if (Terminal(*ref->phase))
    return FailTo(ctx.err, kExitNoInput, "cancel " + id, "already " + ref->state);

  const TimeMs now = ctx.env->Now();
  const std::string name = CancelRequestName(id, now, getpid());
  const std::string text = json::Write(CancelRequest(id, Asker(), now)) + "\n";
  Status s = Drop(ctx.env, ctx.layout.ControlTmp(), ctx.layout.ControlNew(), name, text);
  if (!s.ok()) return FailTo(ctx.err, kExitCantCreate, "cancel " + id, s.message());
  return AwaitAnswer(ctx, id, name, "cancel " + id, "cancelled " + id);
}

}  // namespace hangar::cli
