#include "kernel/return_record.h"

#include "base/pretty_writer.h"
#include "kernel/evidence.h"

namespace hangar {

namespace {

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

namespace {

// return.json's members in sorted order of their keys (json::PrettyWriter).
std::string ReturnText(const std::string& id, const MissionRec& rec, const Observation* obs,
                       const DroneLimits& limits, const std::string& outcome,
                       const std::string& reason, int64_t seq, TimeMs now) {
  auto time_or_null = [](json::PrettyWriter& w, bool known, TimeMs t) {
    if (known)
      w.Time(t);
    else
      w.Null();
  };
  json::PrettyWriter w(4096);
  w.Open().Key("attempt").Int(rec.attempt);
  w.Key("change");
  obs ? w.Val(obs->change) : w.Null();
  w.Key("connections");
  obs ? w.Val(obs->connections) : w.Null();
  if (rec.mission) {
    w.Key("deadline")
        .Open()
        .Key("fired")
        .Bool(rec.exit && rec.exit->timed_out)
        .Key("max_minutes")
        .Int(rec.mission->max_minutes)
        .Key("ms")
        .Int(rec.mission->deadline_ms())
        .Close();
  }
  w.Key("declaration");
  obs ? w.Val(obs->declaration) : w.Null();
  w.Key("done_checks");
  if (obs)
    w.Open().Key("passed").Bool(obs->checks_passed).Key("results").Val(obs->checks).Close();
  else
    w.Null();
  if (rec.mission) w.Key("drone").Str(rec.mission->drone);
  w.Key("exit");
  if (rec.exit) {
    const ExitInfo& e = *rec.exit;
    w.Open().Key("cancelled").Bool(e.cancelled).Key("error");
    e.error.empty() ? w.Null() : w.Str(e.error);
    w.Key("rc").OptInt(e.rc).Key("signal").OptInt(e.signal).Key("timed_out").Bool(e.timed_out);
    w.Close();
  } else {
    w.Null();
  }
  w.Key("files");
  obs ? w.Val(obs->files) : w.Null();
  w.Key("hangar").Int(1);
  w.Key("harness_reported");
  obs ? w.Val(obs->harness) : w.Null();
  w.Key("id").Str(id).Key("ledger_seq").Int(seq);
  w.Key("limits");
  obs ? w.Val(LimitsRecord(limits, rec, obs)) : w.Null();
  w.Key("ops");
  obs ? w.Val(obs->ops) : w.Null();
  w.Key("outcome").Str(outcome).Key("reason").Str(reason);
  if (rec.mission) w.Key("requester").Str(rec.mission->requester);
  w.Key("room");
  obs ? w.Val(obs->room) : w.Null();
  w.Key("times").Open().Key("accepted").Time(rec.accepted).Key("ended");
  time_or_null(w, rec.exit && rec.exit->ended, rec.exit ? rec.exit->ended : 0);
  w.Key("returned").Time(now).Key("started");
  time_or_null(w, rec.exit && rec.exit->started, rec.exit ? rec.exit->started : 0);
  w.Close();
  w.Key("verdict");
  obs ? w.Val(JudgeEvidence(obs->declaration, obs->ops)) : w.Null();
  w.Close();
  return w.Take();
}

}  // namespace

Returned BuildReturn(const std::string& id, const MissionRec& rec, const Observation* obs,
                     const DroneLimits& limits, int64_t seq, TimeMs now) {
  const bool passed = obs ? obs->checks_passed : false;
  const bool harness_error = HarnessError(obs);
  Returned r;
  r.outcome = DecideOutcome(rec, passed, harness_error);
  r.text = ReturnText(id, rec, obs, limits, r.outcome,
                      Reason(rec, r.outcome, passed, harness_error), seq, now);
  return r;
}

Returned BuildUnrunReturn(const std::string& id, const MissionRec& rec, const std::string& outcome,
                          const std::string& reason, const DroneLimits& limits, int64_t seq,
                          TimeMs now) {
  // The same record as a launch that never happened: nothing observed, every observation null.
  return Returned{outcome, ReturnText(id, rec, nullptr, limits, outcome, reason, seq, now)};
}

}  // namespace hangar
