#include "kernel/signal_record.h"

#include <optional>
#include <set>
#include <type_traits>

#include "base/sha256.h"
#include "base/simdjson_util.h"
#include "base/strict_json.h"
#include "kernel/record_fields.h"

namespace hangar {

namespace {

using record::DropperJson;
using record::Fields;
using record::MaybeHex;
using record::ReadText;
using record::ResolvedJson;
using simdjson::dom::element;
using simdjson::dom::element_type;
using strict::Fail;

// ---- writing ----

json::Value Opt(const std::optional<int>& v) {
  return v ? json::Value(*v) : json::Value(nullptr);
}

json::Value ExitJson(const std::optional<ExitInfo>& e) {
  return e ? e->ToJson() : json::Value();
}

json::Value ObservationJson(const Observation& o) {
  json::Object j{{"room", o.room},       {"declaration", o.declaration},
                 {"checks", o.checks},   {"checks_passed", o.checks_passed},
                 {"files", o.files},     {"ops", o.ops},
                 {"harness", o.harness}, {"connections", o.connections}};
  if (!o.change.is_null()) j["change"] = o.change;  // a workspace mission's only
  return j;
}

const char* KeyStateName(OpKeyState k) {
  return k == OpKeyState::kTaken ? "taken" : k == OpKeyState::kDone ? "done" : "free";
}

struct Writer {
  const BlobOut& blob;

  // Many items, and the same at every start of a spool that keeps them: one blob of canonical
  // text, a JSON array written an item (OBJECT(item)) at a time.
  template <typename T, typename ObjectFn>
  json::Value ListBlob(const std::vector<T>& items, ObjectFn object) const {
    std::string list = "[";
    for (const T& m : items) {
      if (list.size() > 1) list += ',';
      list += json::Write(object(m));
    }
    list += ']';
    return blob(list);
  }

  json::Value operator()(const Dropped& s) const {
    return json::Object{{"signal", "dropped"},
                        {"name", MaybeHex(s.name)},
                        {"bytes", blob(s.bytes)},
                        {"read_error", MaybeHex(s.read_error)},
                        {"now", s.now},
                        {"resolved", ResolvedJson(s.resolved)},
                        {"by", DropperJson(s.by)},
                        {"found_at_start", s.found_at_start}};
  }
  json::Value operator()(const Recovered& s) const {
    return json::Object{{"signal", "recovered"},
                        {"id", s.id},
                        {"phase", std::string(PhaseName(s.phase))},
                        {"mission_bytes", blob(s.mission_bytes)},
                        {"accepted", s.accepted},
                        {"attempt", s.attempt},
                        {"exit", ExitJson(s.exit)},
                        {"supervisor_alive", s.supervisor_alive},
                        {"now", s.now},
                        {"intake_sha256", s.intake_sha256},
                        {"held_plan_sha256", s.held_plan_sha256},
                        {"approved_sha256", s.approved_sha256},
                        {"approved_plan_sha256", s.approved_plan_sha256},
                        {"resolved", ResolvedJson(s.resolved)},
                        {"by", DropperJson(s.by)},
                        {"purged", s.purged}};
  }
  json::Value operator()(const ControlDropped& s) const {
    json::Value retry, signature;
    if (s.retry) {
      const RetryFacts& f = *s.retry;
      retry = json::Object{{"read_error", MaybeHex(f.read_error)},
                           {"outcome", MaybeHex(f.outcome)},
                           {"ran", f.ran},
                           {"attempt", f.attempt},
                           {"mission_bytes", blob(f.mission_bytes)},
                           {"intake_sha256", MaybeHex(f.intake_sha256)},
                           {"accepted", f.accepted},
                           {"owner_uid", f.owner_uid},
                           {"owner_user", MaybeHex(f.owner_user)},
                           {"resolved", ResolvedJson(f.resolved)},
                           {"alive", MaybeHex(f.alive)}};
    }
    if (s.signature)
      signature = json::Object{{"verified", s.signature->verified},
                               {"error", MaybeHex(s.signature->error)},
                               {"mission_sha256", MaybeHex(s.signature->mission_sha256)},
                               {"plan_sha256", MaybeHex(s.signature->plan_sha256)}};
    json::Value o = json::Object{{"signal", "control"},
                                 {"name", MaybeHex(s.name)},
                                 {"bytes", blob(s.bytes)},
                                 {"read_error", MaybeHex(s.read_error)},
                                 {"now", s.now},
                                 {"by", DropperJson(s.by)},
                                 {"retry", std::move(retry)},
                                 {"signature", std::move(signature)}};
    if (s.cancel_mission) o["cancel_mission"] = blob(*s.cancel_mission);  // a cancel's only
    return o;
  }
  json::Value operator()(const LaunchDone& s) const {
    return json::Object{{"signal", "launch-done"},
                        {"id", s.id},
                        {"ok", s.ok},
                        {"key_existed", s.key_existed},
                        {"in_running", s.in_running},
                        {"error", MaybeHex(s.error)},
                        {"now", s.now}};
  }
  json::Value operator()(const DroneExited& s) const {
    return json::Object{
        {"signal", "drone-exited"}, {"id", s.id}, {"exit", s.exit.ToJson()}, {"now", s.now}};
  }
  json::Value operator()(const SupervisorGone& s) const {
    return json::Object{{"signal", "supervisor-gone"}, {"id", s.id}, {"now", s.now}};
  }
  json::Value operator()(const Observed& s) const {
    // The observation can be large (a room manifest): a blob of its canonical text.
    return json::Object{{"signal", "observed"},
                        {"id", s.id},
                        {"observation", blob(json::Write(ObservationJson(s.obs)))},
                        {"now", s.now}};
  }
  json::Value operator()(const Ready& s) const {
    return json::Object{{"signal", "ready"}, {"now", s.now}};
  }
  json::Value operator()(const RecoveredEnded& s) const {
    return json::Object{{"signal", "recovered-ended"},
                        {"missions", ListBlob(s.missions,
                                              [](const EndedFound& m) {
                                                return json::Object{
                                                    {"id", m.id},
                                                    {"phase", std::string(PhaseName(m.phase))},
                                                    {"accepted", m.accepted},
                                                    {"attempt", m.attempt},
                                                    {"by", DropperJson(m.by)},
                                                    {"purged", m.purged}};
                                              })},
                        {"now", s.now}};
  }
  json::Value operator()(const RecoveredCold& s) const {
    return json::Object{
        {"signal", "recovered-cold"},
        {"missions", ListBlob(s.missions,
                              [](const ColdFound& m) {
                                return json::Object{
                                    {"id", m.id},
                                    {"accepted", m.accepted},
                                    {"attempt", m.attempt},
                                    {"by", DropperJson(m.by)},
                                    {"intake_sha256", MaybeHex(m.intake_sha256)},
                                    {"approved_sha256", MaybeHex(m.approved_sha256)},
                                    {"approved_plan_sha256", MaybeHex(m.approved_plan_sha256)}};
                              })},
        {"now", s.now}};
  }
  json::Value operator()(const Warmed& s) const {
    return json::Object{{"signal", "warmed"},
                        {"id", s.id},
                        {"bytes", blob(s.bytes)},
                        {"read_error", MaybeHex(s.read_error)},
                        {"resolved", ResolvedJson(s.resolved)},
                        {"now", s.now}};
  }
  json::Value operator()(const Tick& s) const {
    return json::Object{{"signal", "tick"}, {"now", s.now}};
  }
  json::Value operator()(const LedgerFailed& s) const {
    return json::Object{
        {"signal", "ledger-failed"},
        {"reason", MaybeHex(s.reason)},
        {"now", s.now},
        {"rolled_back", s.rolled_back},
        {"unvouched_grants", json::Array(s.unvouched_grants.begin(), s.unvouched_grants.end())}};
  }
  json::Value operator()(const OpRequested& s) const {
    return json::Object{{"signal", "op-requested"},
                        {"id", s.id},
                        {"name", MaybeHex(s.name)},
                        {"bytes", blob(s.bytes)},
                        {"read_error", MaybeHex(s.read_error)},
                        {"declaration", s.declaration},
                        {"key", KeyStateName(s.key)},
                        {"stored_result", blob(s.stored_result)},
                        {"now", s.now}};
  }
  json::Value operator()(const OpFinished& s) const {
    return json::Object{{"signal", "op-finished"},
                        {"id", s.id},
                        {"name", MaybeHex(s.name)},
                        {"op", MaybeHex(s.op)},
                        {"key", MaybeHex(s.key)},
                        {"started", s.started},
                        {"rc", Opt(s.rc)},
                        {"signal_number", Opt(s.signal)},
                        {"timed_out", s.timed_out},
                        {"error", MaybeHex(s.error)},
                        {"output", s.output},
                        {"output_text", blob(s.output_text)},
                        {"output_cut", s.output_cut},
                        {"now", s.now}};
  }
  json::Value operator()(const IntakeFailed& s) const {
    return json::Object{{"signal", "intake-failed"},
                        {"name", MaybeHex(s.name)},
                        {"id", s.id},
                        {"reason", MaybeHex(s.reason)},
                        {"now", s.now}};
  }
};

// ---- reading ----

struct Reader {
  const BlobIn& in;

  // The blob at member K of F, a JSON document of its own, read by READ(root, path) as strictly as
  // the record around it: a failure names the member when the blob is no JSON, else the field.
  template <typename T, typename ReadFn>
  T BlobDocument(Fields& f, const char* k, ReadFn read) const {
    const std::string at = f.Path(k);
    std::variant<T, ParseError> got =
        strict::ReadDocument<T>(Blob(f[k], at), [&](element root) { return read(root, at); });
    if (auto* e = std::get_if<ParseError>(&got)) {
      if (e->field.empty()) Fail(at, e->reason);
      throw strict::Failure{*e};
    }
    return std::get<T>(std::move(got));
  }
  // The blob at member K of F holding a JSON array (WHAT: the error when it is none) of objects,
  // each read by ITEM(fields) as one T (its fields' Done checked here), in order.
  template <typename T, typename ItemFn>
  std::vector<T> BlobList(Fields& f, const char* k, const char* what, ItemFn item) const {
    return BlobDocument<std::vector<T>>(f, k, [&](element root, const std::string& at) {
      std::vector<T> list;
      strict::Items(root, at, what, [&](element e, const std::string& where) {
        Fields g(e, where);
        list.push_back(item(g));
        g.Done();
      });
      return list;
    });
  }
  std::string Blob(element e, const std::string& field) const {
    return record::ReadBlob(e, field, in);
  }
  TimeMs Time(element e, const std::string& field) const { return strict::Integer(e, field); }
  int Int(element e, const std::string& field) const {
    return int(strict::IntegerIn(e, field, INT32_MIN, INT32_MAX));
  }
  std::optional<int> OptInt(element e, const std::string& field) const {
    if (e.type() == element_type::NULL_VALUE) return std::nullopt;
    return Int(e, field);
  }
  Dropper By(element e, const std::string& field) const {
    Fields f(e, field);
    Dropper by{strict::Integer(f["uid"], f.Path("uid")), ReadText(f["user"], f.Path("user"))};
    f.Done();
    return by;
  }
  ResolvedWrites Resolved(element e, const std::string& field) const {
    ResolvedWrites r;
    strict::Items(e, field, "expected a list of resolved paths",
                  [&](element v, const std::string& vf) {
                    Fields f(v, vf);
                    ResolvedPath& p = r[ReadText(f["as_written"], f.Path("as_written"))];
                    p.path = ReadText(f["path"], f.Path("path"));
                    p.error = ReadText(f["error"], f.Path("error"));
                    if (f.Has("git")) {
                      Fields g(f["git"], f.Path("git"));
                      p.git = GitResolution{strict::String(g["commit"], g.Path("commit")),
                                            ReadText(g["objects"], g.Path("objects")),
                                            strict::String(g["field"], g.Path("field")),
                                            ReadText(g["error"], g.Path("error"))};
                      g.Done();
                    }
                    f.Done();
                  });
    return r;
  }
  ExitInfo Exit(element e, const std::string& field) const {
    Result<ExitInfo> x = ExitInfo::FromJson(json::FromElement(e));
    if (!x.ok()) Fail(field, x.status().message());
    return *x;
  }
  Phase PhaseOf(element e, const std::string& field) const {
    if (std::optional<Phase> p = PhaseFromName(strict::String(e, field))) return *p;
    Fail(field, "expected a state (hold, queued, running, returned, denied, rejected)");
  }

  Signal Read(element root, const std::string& field) const {
    Fields f(root, field);
    if (strict::Integer(f["hangar"], f.Path("hangar")) != 1)
      Fail(f.Path("hangar"), "expected 1, the signal record's version");
    const std::string kind = strict::String(f["signal"], f.Path("signal"));
    Signal s = ReadKind(f, kind);
    f.Done();
    return s;
  }

  Signal ReadKind(Fields& f, const std::string& kind) const {
    auto text = [&](const char* k) { return ReadText(f[k], f.Path(k)); };
    auto str = [&](const char* k) { return strict::String(f[k], f.Path(k)); };
    auto time = [&](const char* k) { return Time(f[k], f.Path(k)); };
    auto flag = [&](const char* k) { return strict::Bool(f[k], f.Path(k)); };
    auto blob = [&](const char* k) { return Blob(f[k], f.Path(k)); };
    if (kind == "dropped") {
      Dropped d{text("name"),
                blob("bytes"),
                text("read_error"),
                time("now"),
                Resolved(f["resolved"], f.Path("resolved")),
                By(f["by"], f.Path("by")),
                flag("found_at_start")};
      // Parsed by the reader: a replay reads on one thread and decides on another (Dropped).
      if (d.read_error.empty())
        d.parsed = std::make_shared<const MissionOrError>(ParseMission(d.bytes));
      return d;
    }
    if (kind == "recovered") {
      Recovered r;
      r.id = str("id");
      r.phase = PhaseOf(f["phase"], f.Path("phase"));
      r.mission_bytes = blob("mission_bytes");
      r.accepted = time("accepted");
      r.attempt = Int(f["attempt"], f.Path("attempt"));
      if (element e = f["exit"]; e.type() != element_type::NULL_VALUE)
        r.exit = Exit(e, f.Path("exit"));
      r.supervisor_alive = flag("supervisor_alive");
      r.now = time("now");
      r.intake_sha256 = str("intake_sha256");
      r.held_plan_sha256 = str("held_plan_sha256");
      r.approved_sha256 = str("approved_sha256");
      r.approved_plan_sha256 = str("approved_plan_sha256");
      r.resolved = Resolved(f["resolved"], f.Path("resolved"));
      r.by = By(f["by"], f.Path("by"));
      r.purged = f.Has("purged") && flag("purged");  // absent in records made before purge was
      return r;
    }
    if (kind == "control") {
      ControlDropped c{text("name"), blob("bytes"), text("read_error"), time("now"),
                       By(f["by"], f.Path("by"))};
      if (element e = f["retry"]; e.type() != element_type::NULL_VALUE) {
        Fields g(e, f.Path("retry"));
        RetryFacts x;
        x.read_error = ReadText(g["read_error"], g.Path("read_error"));
        x.outcome = ReadText(g["outcome"], g.Path("outcome"));
        x.ran = strict::Bool(g["ran"], g.Path("ran"));
        x.attempt = Int(g["attempt"], g.Path("attempt"));
        x.mission_bytes = Blob(g["mission_bytes"], g.Path("mission_bytes"));
        x.intake_sha256 = ReadText(g["intake_sha256"], g.Path("intake_sha256"));
        x.accepted = Time(g["accepted"], g.Path("accepted"));
        x.owner_uid = strict::Integer(g["owner_uid"], g.Path("owner_uid"));
        x.owner_user = ReadText(g["owner_user"], g.Path("owner_user"));
        x.resolved = Resolved(g["resolved"], g.Path("resolved"));
        x.alive = ReadText(g["alive"], g.Path("alive"));
        g.Done();
        c.retry = std::move(x);
      }
      if (element e = f["signature"]; e.type() != element_type::NULL_VALUE) {
        Fields g(e, f.Path("signature"));
        c.signature = SignatureCheck{strict::Bool(g["verified"], g.Path("verified")),
                                     ReadText(g["error"], g.Path("error")),
                                     ReadText(g["mission_sha256"], g.Path("mission_sha256")),
                                     ReadText(g["plan_sha256"], g.Path("plan_sha256"))};
        g.Done();
      }
      if (f.Has("cancel_mission")) c.cancel_mission = blob("cancel_mission");
      return c;
    }
    if (kind == "launch-done")
      return LaunchDone{str("id"),          flag("ok"),    flag("key_existed"),
                        flag("in_running"), text("error"), time("now")};
    if (kind == "drone-exited")
      return DroneExited{str("id"), Exit(f["exit"], f.Path("exit")), time("now")};
    if (kind == "supervisor-gone") return SupervisorGone{str("id"), time("now")};
    if (kind == "observed") {
      Observed o{str("id"), {}, 0};
      // The blob is ObservationJson's text.
      o.obs = BlobDocument<Observation>(f, "observation", [&](element root, const std::string& at) {
        Fields g(root, at);
        Observation obs;
        obs.room = json::FromElement(g["room"]);
        obs.declaration = json::FromElement(g["declaration"]);
        obs.checks = json::FromElement(g["checks"]);
        obs.checks_passed = strict::Bool(g["checks_passed"], g.Path("checks_passed"));
        obs.files = json::FromElement(g["files"]);
        obs.ops = json::FromElement(g["ops"]);
        obs.harness = json::FromElement(g["harness"]);
        obs.connections = json::FromElement(g["connections"]);
        if (g.Has("change")) obs.change = json::FromElement(g["change"]);
        g.Done();
        return obs;
      });
      o.now = time("now");
      return o;
    }
    if (kind == "ready") return Ready{time("now")};
    if (kind == "tick") return Tick{time("now")};
    if (kind == "recovered-ended") {
      RecoveredEnded r;
      r.missions = BlobList<EndedFound>(f, "missions", "expected an array of ended missions",
                                        [&](Fields& g) {
                                          EndedFound m;
                                          m.id = strict::String(g["id"], g.Path("id"));
                                          m.phase = PhaseOf(g["phase"], g.Path("phase"));
                                          m.accepted = Time(g["accepted"], g.Path("accepted"));
                                          m.attempt = Int(g["attempt"], g.Path("attempt"));
                                          m.by = By(g["by"], g.Path("by"));
                                          m.purged = strict::Bool(g["purged"], g.Path("purged"));
                                          return m;
                                        });
      r.now = time("now");
      return r;
    }
    if (kind == "recovered-cold") {
      RecoveredCold r;
      r.missions = BlobList<ColdFound>(
          f, "missions", "expected an array of cold queued missions", [&](Fields& g) {
            ColdFound m;
            m.id = strict::String(g["id"], g.Path("id"));
            m.accepted = Time(g["accepted"], g.Path("accepted"));
            m.attempt = Int(g["attempt"], g.Path("attempt"));
            m.by = By(g["by"], g.Path("by"));
            m.intake_sha256 = ReadText(g["intake_sha256"], g.Path("intake_sha256"));
            m.approved_sha256 = ReadText(g["approved_sha256"], g.Path("approved_sha256"));
            m.approved_plan_sha256 =
                ReadText(g["approved_plan_sha256"], g.Path("approved_plan_sha256"));
            return m;
          });
      r.now = time("now");
      return r;
    }
    if (kind == "warmed")
      return Warmed{str("id"), blob("bytes"), text("read_error"),
                    Resolved(f["resolved"], f.Path("resolved")), time("now")};
    if (kind == "ledger-failed") {
      LedgerFailed l{text("reason"), time("now"), flag("rolled_back")};
      strict::Items(f["unvouched_grants"], f.Path("unvouched_grants"), "expected a list of seqs",
                    [&](element x, const std::string& xf) {
                      l.unvouched_grants.push_back(strict::Integer(x, xf));
                    });
      return l;
    }
    if (kind == "op-requested") {
      OpRequested q;
      q.id = str("id");
      q.name = text("name");
      q.bytes = blob("bytes");
      q.read_error = text("read_error");
      q.declaration = json::FromElement(f["declaration"]);
      const std::string key = str("key");
      if (key != "free" && key != "taken" && key != "done")
        Fail(f.Path("key"), "expected free, taken or done");
      q.key = key == "taken"  ? OpKeyState::kTaken
              : key == "done" ? OpKeyState::kDone
                              : OpKeyState::kFree;
      q.stored_result = blob("stored_result");
      q.now = time("now");
      return q;
    }
    if (kind == "op-finished") {
      OpFinished o;
      o.id = str("id");
      o.name = text("name");
      o.op = text("op");
      o.key = text("key");
      o.started = flag("started");
      o.rc = OptInt(f["rc"], f.Path("rc"));
      o.signal = OptInt(f["signal_number"], f.Path("signal_number"));
      o.timed_out = flag("timed_out");
      o.error = text("error");
      o.output = json::FromElement(f["output"]);
      o.output_text = blob("output_text");
      o.output_cut = flag("output_cut");
      o.now = time("now");
      return o;
    }
    if (kind == "intake-failed")
      return IntakeFailed{text("name"), str("id"), text("reason"), time("now")};
    Fail("signal", "unknown signal \"" + kind + "\" (see hangar-signals(5))");
  }
};

}  // namespace

const char* SignalKind(const Signal& s) {
  static constexpr const char* kKinds[] = {
      "dropped",       "recovered",       "control",        "launch-done",
      "drone-exited",  "supervisor-gone", "observed",       "ready",
      "ledger-failed", "op-requested",    "op-finished",    "intake-failed",
      "tick",          "recovered-ended", "recovered-cold", "warmed"};
  static_assert(std::size(kKinds) == std::variant_size_v<Signal>);
  return kKinds[s.index()];
}

json::Value SignalToJson(const Signal& s, const BlobOut& out) {
  json::Value v = std::visit(Writer{out}, s);
  v["hangar"] = 1;
  return v;
}

Result<Signal> ParseSignal(std::string_view text, const BlobIn& in) {
  std::variant<Signal, ParseError> read =
      strict::ReadDocument<Signal>(text, [&](element root) { return Reader{in}.Read(root, ""); });
  if (auto* e = std::get_if<ParseError>(&read))
    return Status::Invalid("signal record: " + e->Text());
  return std::get<Signal>(std::move(read));
}

Signal ReadSignalAt(simdjson::dom::element e, const std::string& field, const BlobIn& in) {
  return Reader{in}.Read(e, field);
}

}  // namespace hangar
