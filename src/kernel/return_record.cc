#include "kernel/return_record.h"

#include "kernel/evidence.h"

namespace hangar {

namespace {

json::Value OptInt(const std::optional<int>& v) {
  return v ? json::Value(*v) : json::Value(nullptr);
}

json::Object Base(const std::string& id, const MissionRec& rec, TimeMs now) {
  json::Object o;
  o["hangar"] = 1;
  o["id"] = id;
  o["attempt"] = rec.attempt;
  if (rec.mission) {
    o["requester"] = rec.mission->requester;
    o["drone"] = rec.mission->drone;
    json::Object d;
    d["max_minutes"] = rec.mission->max_minutes;
    d["ms"] = rec.mission->deadline_ms();
    d["fired"] = rec.exit && rec.exit->timed_out;
    o["deadline"] = d;
  }
  json::Object t;
  t["accepted"] = FormatTime(rec.accepted);
  t["started"] = rec.exit && rec.exit->started ? json::Value(FormatTime(rec.exit->started))
                                               : json::Value(nullptr);
  t["ended"] =
      rec.exit && rec.exit->ended ? json::Value(FormatTime(rec.exit->ended)) : json::Value(nullptr);
  t["returned"] = FormatTime(now);
  o["times"] = t;
  return o;
}

// The harness's own report said it failed (Claude Code's result "is_error": true).
bool HarnessError(const Observation* obs) {
  if (!obs || !obs->harness.is_object()) return false;
  const json::Value* h = obs->harness.find("harness");
  const json::Value* r = obs->harness.find("report");
  if (!h || !h->is_string() || h->as_string() != "claude") return false;
  if (!r || !r->is_object()) return true;  // not read: no result to trust
  const json::Value* e = r->find("is_error");
  return !e || !e->is_bool() || e->as_bool();
}

std::string Reason(const MissionRec& rec, const std::string& outcome, bool checks_passed,
                   bool harness_error) {
  if (!rec.error.empty()) return rec.error;
  if (outcome == "lost") return "the supervisor ended without recording the drone's exit";
  if (!rec.exit) return "";
  const ExitInfo& e = *rec.exit;
  if (!e.error.empty()) return e.error;
  if (outcome == "cancelled") return "cancelled on request";
  if (outcome == "timed_out") return "the deadline fired";
  if (e.signal) return "the drone was killed by signal " + std::to_string(*e.signal);
  if (e.rc && *e.rc != 0) return "the drone exited " + std::to_string(*e.rc);
  if (harness_error) return "the drone exited 0, but Claude Code's result says is_error";
  if (!checks_passed) return "a done-check failed";
  return "the drone exited 0 and every done-check passed";
}

}  // namespace

std::string DecideOutcome(const MissionRec& rec, bool checks_passed, bool harness_error) {
  if (rec.lost) return "lost";
  if (!rec.exit || !rec.error.empty()) return "failed";  // not launched, or not judgeable
  const ExitInfo& e = *rec.exit;
  // Only the supervisor's record says a cancel stopped it: a drone that ended on its own before
  // the request reached it ended as it did.
  if (e.cancelled) return "cancelled";
  if (e.timed_out) return "timed_out";
  if (e.signal) return "killed";
  if (e.rc && *e.rc == 0 && e.error.empty() && checks_passed && !harness_error) return "done";
  return "failed";
}

json::Value LimitsRecord(const DroneLimits& limits, const MissionRec& rec, const Observation* obs) {
  constexpr int kSigXfsz = 25;      // SIGXFSZ on Linux: a write past RLIMIT_FSIZE
  constexpr size_t kMaxFiles = 20;  // files at the cap named; the rest counted
  json::Array reached;
  if (rec.exit && rec.exit->signal == kSigXfsz)
    reached.push_back(json::Object{{"limit", "file_mb"}, {"signal", kSigXfsz}});
  const int64_t cap = limits.file_mb << 20;
  const json::Value* manifest = obs && obs->room.is_object() ? obs->room.find("manifest") : nullptr;
  int64_t at_cap = 0;
  if (manifest && manifest->is_array() && cap > 0)
    for (const json::Value& e : manifest->as_array()) {
      const json::Value* type = e.is_object() ? e.find("type") : nullptr;
      const json::Value* size = e.is_object() ? e.find("size") : nullptr;
      const json::Value* path = e.is_object() ? e.find("path") : nullptr;
      if (!type || !size || !path || !type->is_string() || type->as_string() != "file" ||
          !size->is_int() || size->as_int() < cap || !path->is_string())
        continue;
      if (size_t(++at_cap) <= kMaxFiles)
        reached.push_back(json::Object{{"limit", "file_mb"}, {"path", path->as_string()}});
    }
  if (size_t(at_cap) > kMaxFiles)
    reached.push_back(
        json::Object{{"limit", "file_mb"}, {"more_files", at_cap - int64_t(kMaxFiles)}});
  const json::Value* answered = obs && obs->ops.is_object() ? obs->ops.find("answered") : nullptr;
  int64_t rate = 0;
  if (answered && answered->is_array())
    for (const json::Value& a : answered->as_array()) {
      const json::Value* rule = a.is_object() ? a.find("rule") : nullptr;
      rate += rule && rule->is_string() && rule->as_string() == "op.rate";
    }
  if (rate > 0) reached.push_back(json::Object{{"limit", "ops_per_minute"}, {"refused", rate}});
  return json::Object{{"in_force", json::Object{{"processes", limits.processes},
                                                {"file_mb", limits.file_mb},
                                                {"memory_mb", limits.memory_mb},
                                                {"shm_mb", limits.shm_mb},
                                                {"ops_per_minute", limits.ops_per_minute}}},
                      {"reached", std::move(reached)}};
}

json::Value BuildReturn(const std::string& id, const MissionRec& rec, const Observation* obs,
                        const DroneLimits& limits, TimeMs now) {
  const bool passed = obs ? obs->checks_passed : false;
  json::Object o = Base(id, rec, now);
  const bool harness_error = HarnessError(obs);
  const std::string outcome = DecideOutcome(rec, passed, harness_error);
  o["outcome"] = outcome;
  o["reason"] = Reason(rec, outcome, passed, harness_error);
  if (rec.exit) {
    json::Object x;
    x["rc"] = OptInt(rec.exit->rc);
    x["signal"] = OptInt(rec.exit->signal);
    x["timed_out"] = rec.exit->timed_out;
    x["cancelled"] = rec.exit->cancelled;
    x["error"] = rec.exit->error.empty() ? json::Value(nullptr) : json::Value(rec.exit->error);
    o["exit"] = x;
  } else {
    o["exit"] = nullptr;
  }
  if (obs) {
    json::Object checks;
    checks["passed"] = obs->checks_passed;
    checks["results"] = obs->checks;
    o["done_checks"] = checks;
    o["declaration"] = obs->declaration;
    o["files"] = obs->files;
    o["room"] = obs->room;
    o["ops"] = obs->ops;
    o["harness_reported"] = obs->harness;
    o["connections"] = obs->connections;
    o["change"] = obs->change;
    o["verdict"] = JudgeEvidence(obs->declaration, obs->ops);
    o["limits"] = LimitsRecord(limits, rec, obs);
  } else {
    for (const char* k : {"done_checks", "declaration", "files", "room", "ops", "harness_reported",
                          "connections", "change", "verdict", "limits"})
      o[k] = nullptr;
  }
  return o;
}

json::Value BuildUnrunReturn(const std::string& id, const MissionRec& rec,
                             const std::string& outcome, const std::string& reason,
                             const DroneLimits& limits, TimeMs now) {
  // The same record as a launch that never happened: nothing observed, every observation null.
  json::Value r = BuildReturn(id, rec, nullptr, limits, now);
  r["outcome"] = outcome;
  r["reason"] = reason;
  return r;
}

}  // namespace hangar
