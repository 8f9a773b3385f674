#include "kernel/retry.h"

namespace hangar {

std::string RetryOutcomeRefusal(const std::string& outcome, bool ran, int attempt) {
  const std::string which = "attempt " + std::to_string(attempt);
  if (outcome == "lost" || outcome == "failed" || outcome == "timed_out" || outcome == "killed")
    return "";
  if (outcome == "cancelled" && ran) return "";
  if (outcome == "done")
    return which + " is done; only an attempt that did not end normally is retried";
  if (outcome == "cancelled")
    return "it was cancelled before it ran (a person decided it should not run); submit it again "
           "to run it";
  return "its return.json says outcome \"" + outcome +
         "\" (retried: lost, failed, timed_out, killed, cancelled while it ran)";
}

std::string RetryRecordText(const RetryRecord& r) {
  json::Object o;
  o["hangar"] = 1;
  o["id"] = r.id;
  o["attempt"] = r.previous + 1;
  o["previous"] = r.previous;
  o["previous_outcome"] = r.outcome;
  o["by"] = r.by;
  o["time"] = FormatTime(r.time);
  o["ledger_seq"] = r.ledger_seq;
  return json::WritePretty(json::Value(std::move(o)));
}

}  // namespace hangar
