// Retention: hangard's own purge requests for missions past their state's span (daemon.h,
// DropRetention; man/hangar.conf.5, retention).
#include <unistd.h>

#include "base/json.h"
#include "daemon/daemon.h"
#include "kernel/control.h"
#include "shell/retention.h"

namespace hangar {

namespace {

constexpr char kRetentionPrefix[] = "purge.retention.";

// "returned 30d, rejected 7d": the spans, for the ledger's why.
std::string Spans(const Retention& r) {
  std::string out;
  auto add = [&out](const char* state, const std::optional<TimeMs>& span) {
    if (!span) return;
    const TimeMs s = *span / 1000;
    const std::string text = s % 86400 == 0  ? std::to_string(s / 86400) + "d"
                             : s % 3600 == 0 ? std::to_string(s / 3600) + "h"
                             : s % 60 == 0   ? std::to_string(s / 60) + "m"
                                             : std::to_string(s) + "s";
    out += (out.empty() ? "" : ", ") + std::string(state) + " " + text;
  };
  add("returned", r.returned);
  add("denied", r.denied);
  add("rejected", r.rejected);
  return out;
}

}  // namespace

void Daemon::DropRetention(TimeMs now) {
  if (!state_.fail_closed.empty()) return;  // the kernel would refuse it: nothing is recorded
  Result<std::vector<std::string>> pending = env_->ListDir(layout_.ControlNew());
  if (pending.ok())
    for (const std::string& n : *pending)
      if (n.starts_with(kRetentionPrefix)) return;  // the last one is not taken yet
  const Retention& r = setup_.config.retention;
  Result<std::vector<EndedMission>> ended =
      EndedMissions(env_, layout_, {Phase::kReturned, Phase::kDenied, Phase::kRejected});
  if (!ended.ok()) {
    Say("retention: " + ended.status().message() + "; tried again in " + std::to_string(r.every_s) +
            " s",
        Priority::kWarning);
    return;
  }
  std::vector<std::string> ids = Expired(*ended, r, now);
  if (ids.empty()) return;
  if (ids.size() > kMaxPurgeIds) {
    ids.resize(kMaxPurgeIds);
    retention_check_.DueNext();  // the rest once this one is taken
  }
  json::Object req{{"hangar", 1},
                   {"request", "purge"},
                   {"ids", json::Array(ids.begin(), ids.end())},
                   {"why", "retention: " + Spans(r) + " (" + setup_.config.file + ")"},
                   {"by", "hangard retention"},
                   {"time", FormatTime(now)}};
  const std::string name = kRetentionPrefix + CompactTime(now) + "." + std::to_string(getpid());
  const std::string text = json::Write(json::Value(std::move(req))) + "\n";
  Status s = env_->WriteFileAtomic(layout_.ControlTmp(), name, text);
  if (s.ok())
    s = env_->Rename(layout_.ControlTmp() + "/" + name, layout_.ControlNew() + "/" + name);
  if (!s.ok()) {
    (void)env_->Remove(layout_.ControlTmp() + "/" + name);
    Say("retention: cannot drop its purge request (" + s.message() + "); tried again in " +
            std::to_string(r.every_s) + " s",
        Priority::kWarning);
    return;
  }
  Say("retention: asked the kernel to purge " + std::to_string(ids.size()) + " ended mission" +
      (ids.size() == 1 ? "" : "s") + " (control/new/" + name + ")");
}

}  // namespace hangar
