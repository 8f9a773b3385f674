#include "kernel/decision_digest.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <type_traits>

#include "base/sha256.h"
#include "base/timefmt.h"
#include "kernel/record_fields.h"

namespace hangar {

using record::DropperJson;
using record::MaybeHex;
using record::ResolvedJson;

namespace {

json::Value GrantsJson(const State& s) {
  json::Array grants;
  for (const Grant& g : s.grants.Active(0)) {
    json::Object o;
    o["op"] = g.op;
    o["mission"] = g.mission;
    o["requester"] = g.requester;
    o["until"] = g.until ? json::Value(*g.until) : json::Value();
    o["by"] = MaybeHex(g.by);
    o["seq"] = g.seq;
    grants.emplace_back(std::move(o));  // in place: see record::ResolvedJson
  }
  return grants;
}

// The requester book, canonical: ",\"requesters\":{NAME:{...}...}".
std::string RequestersText(const State& s) {
  json::Object all;
  for (const auto& [name, r] : s.requesters.all()) {
    json::Object by_name;
    for (const auto& [request, stored] : r.by_name)
      by_name[request] = json::Array{stored.first, stored.second};
    json::Object o{{"owner", r.owner},
                   {"owner_user", MaybeHex(r.owner_user)},
                   {"bound_seq", r.bound_seq},
                   {"versions", r.versions}};
    o["by_name"] = std::move(by_name);
    all[name] = std::move(o);
  }
  return ",\"requesters\":" + json::Write(json::Value(std::move(all)));
}

// std::to_string(v) appended, without the temporary: the same digits for any integer type.
template <typename Int>
void AppendInt(std::string* t, Int v) {
  char buf[24];
  t->append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// json::Write(record::MaybeHex(s)) written straight into *t.
void AppendMaybeHex(std::string* t, const std::string& s) {
  if (json::ValidUtf8(s)) {
    json::AppendQuoted(t, s);
    return;
  }
  *t += "{\"hex\":\"";
  *t += record::Hex(s);
  *t += "\"}";
}

// json::Write(e.ToJson()) written straight into *t: a mission's part of every step digest
// carries its exit, and building the object only to write it was a twentieth of a replay's
// deciding thread. The same bytes, members in the same sorted order (tested equal).
void AppendExitText(std::string* t, const ExitInfo& e) {
  auto maybe_int = [&](const std::optional<int>& v) {
    if (v)
      AppendInt(t, *v);
    else
      *t += "null";
  };
  *t += e.cancelled ? "{\"cancelled\":true" : "{\"cancelled\":false";
  *t += ",\"ended\":";
  *t += '"';  // a time's text needs no escape
  AppendTime(t, e.ended);
  *t += '"';
  *t += ",\"error\":";
  if (e.error.empty())
    *t += "null";
  else
    json::AppendQuoted(t, e.error);
  *t += ",\"hangar\":1,\"rc\":";
  maybe_int(e.rc);
  *t += ",\"signal\":";
  maybe_int(e.signal);
  *t += ",\"started\":";
  *t += '"';
  AppendTime(t, e.started);
  *t += '"';
  *t += e.timed_out ? ",\"timed_out\":true}" : ",\"timed_out\":false}";
}

}  // namespace

// MissionJson's canonical text written straight into *out (after every decision, live and
// replayed): the same members in the same sorted order, tested equal to json::Write of it.
void AppendMissionText(std::string* out, const MissionRec& r) {
  std::string& t = *out;
  auto sha = [&](const char* key, const std::string& v) {
    t += key;
    json::AppendQuoted(&t, v);
  };
  auto set = [&](const char* key, const auto& items) {
    t += key;
    t += '[';
    bool first = true;
    for (const auto& x : items) {
      if (!first) t += ',';
      first = false;
      if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>)
        json::AppendQuoted(&t, x);
      else
        AppendInt(&t, x);
    }
    t += ']';
  };
  auto flag = [&](const char* key, bool v) {
    t += key;
    t += v ? "true" : "false";
  };
  t += "{\"accepted\":";
  AppendInt(&t, r.accepted);
  const Approval& approval = r.approval.get();
  sha(",\"approved_plan_sha256\":", approval.approved_plan_sha256);
  sha(",\"approved_sha256\":", approval.approved_sha256);
  t += ",\"attempt\":";
  AppendInt(&t, r.attempt);
  if (r.cold) t += ",\"cold\":true";  // only when set: the texts of earlier records stand
  t += ",\"error\":";
  AppendMaybeHex(&t, r.error);
  t += ",\"exit\":";
  if (r.exit)
    AppendExitText(&t, *r.exit);
  else
    t += "null";
  flag(",\"exited\":", r.exited);
  t += ",\"gate\":";
  AppendMaybeHex(&t, r.gate);
  sha(",\"held_plan_sha256\":", approval.held_plan_sha256);
  flag(",\"live\":", r.mission != nullptr);
  flag(",\"lost\":", r.lost);
  flag(",\"observe_waits\":", r.observe_waits);
  const OpsBook& ops = r.ops.get();
  set(",\"op_starts\":", ops.starts);
  set(",\"ops_running\":", ops.running);
  set(",\"ops_seen\":", ops.seen);
  t += ",\"owner\":{\"uid\":";
  AppendInt(&t, r.owner.uid);
  t += ",\"user\":";
  AppendMaybeHex(&t, r.owner.user);
  t += '}';
  t += ",\"phase\":";
  json::AppendQuoted(&t, PhaseName(r.phase));
  flag(",\"purged\":", r.purged);
  t += ",\"resolved\":";
  if (r.resolved.empty())  // most missions list no writes
    t += "[]";
  else
    json::AppendWritten(&t, ResolvedJson(r.resolved));
  sha(",\"sha256\":", r.sha256);
  flag(",\"unproven\":", r.unproven);
  if (r.warming) t += ",\"warming\":true";
  t += '}';
}

namespace {

// What a decision did, written as canonical JSON straight into a string (it is written after every
// replayed signal): each action's members in sorted order, files by name only (their texts
// explain a decision, they are not it), a Record's body without the gate's explanation.
class DecidedWriter {
 public:
  explicit DecidedWriter(std::string* out) : out_(*out) {}

  void operator()(const Intake& a) {
    Begin("intake");
    Files(a.files);
    Str("id", a.id);
    Text("name", a.name);
    OptStr("notify_dir", a.notify_dir);
    Str("to", PhaseName(a.to));
    End();
  }
  void operator()(const Launch& a) {
    Begin("launch");
    Int("attempt", a.attempt);
    Str("id", a.id);
    Str("plan_sha256", a.plan_sha256);
    End();
  }
  void operator()(const Observe& a) {
    Begin("observe");
    Str("id", a.id);
    Str("room", a.room);
    Str("run", a.run);
    End();
  }
  void operator()(const Kill& a) {
    Begin("kill");
    Str("id", a.id);
    End();
  }
  void operator()(const Move& a) {
    Begin("move");
    Files(a.files);
    Str("from", PhaseName(a.from));
    Str("id", a.id);
    OptStr("notify_dir", a.notify_dir);
    Str("to", PhaseName(a.to));
    End();
  }
  void operator()(const ConsumeControl& a) {
    Begin("consume-control");
    Bool("bad", a.bad);
    Text("name", a.name);
    End();
  }
  void operator()(const Log&) {}
  void operator()(const Record& a) {
    Begin("record");
    Key("body");
    if (a.body.is_object()) {
      out_ += '{';
      bool first = true;
      for (const auto& [k, v] : a.body.as_object()) {
        if (k == "rules" || k == "reason" || k == "policy") continue;
        if (!first) out_ += ',';
        first = false;
        json::AppendQuoted(&out_, k);
        out_ += ':';
        json::AppendWritten(&out_, v);
      }
      out_ += '}';
    } else {
      json::AppendWritten(&out_, a.body);
    }
    Str("kind", a.kind);
    Bool("new_epoch", a.new_epoch);
    Int("seq", a.seq);
    Int("time", a.time);
    End();
  }
  void operator()(const RunOp& a) {
    Begin("run-op");
    Files(a.files);
    Str("id", a.id);
    Str("key", a.key);
    Text("name", a.name);
    Str("op", a.op);
    End();
  }
  void operator()(const AnswerOp& a) {
    Begin("answer-op");
    Str("id", a.id);
    Bool("keep", a.keep);
    Str("key", a.key);
    Text("name", a.name);
    Bool("release", a.release);
    End();
  }
  void operator()(const Retry& a) {
    Begin("retry");
    Files(a.files);
    Str("id", a.id);
    Int("previous", a.previous);
    End();
  }
  void operator()(const Purge& a) {
    Begin("purge");
    Str("from", PhaseName(a.from));
    Str("id", a.id);
    End();
  }
  void operator()(const Warm& a) {
    Begin("warm");
    Key("ids");
    out_ += '[';
    for (size_t i = 0; i < a.ids.size(); ++i) {
      if (i) out_ += ',';
      json::AppendQuoted(&out_, a.ids[i]);
    }
    out_ += ']';
    End();
  }
  void operator()(const WriteMemory& a) {
    Begin("write-memory");
    Str("requester", a.requester);
    Text("text", a.text);
    Int("version", a.version);
    End();
  }

 private:
  void Begin(const char* action) {
    out_ += out_.size() > 1 ? ",{" : "{";
    first_ = true;
    Str("action", action);
  }
  void End() { out_ += '}'; }
  void Key(std::string_view k) {
    if (!first_) out_ += ',';
    first_ = false;
    json::AppendQuoted(&out_, k);
    out_ += ':';
  }
  void Str(std::string_view k, std::string_view v) {
    Key(k);
    json::AppendQuoted(&out_, v);
  }
  void Text(std::string_view k, const std::string& v) {  // may not be UTF-8
    Key(k);
    out_ += json::Write(MaybeHex(v));
  }
  void OptStr(std::string_view k, const std::optional<std::string>& v) {
    Key(k);
    if (v)
      json::AppendQuoted(&out_, *v);
    else
      out_ += "null";
  }
  void Int(std::string_view k, int64_t v) {
    Key(k);
    out_ += std::to_string(v);
  }
  void Bool(std::string_view k, bool v) {
    Key(k);
    out_ += v ? "true" : "false";
  }
  void Files(const std::map<std::string, std::string>& files) {
    Key("files");
    out_ += '[';
    bool first = true;
    for (const auto& [name, text] : files) {
      if (!first) out_ += ',';
      first = false;
      out_ += json::Write(MaybeHex(name));
    }
    out_ += ']';
  }

  std::string& out_;
  bool first_ = true;
};

}  // namespace

std::string DecisionText(const std::vector<Action>& acts) {
  std::string out = "[";
  DecidedWriter w(&out);
  for (const Action& a : acts) std::visit(w, a);
  out += ']';
  return out;
}

bool Acts(const std::vector<Action>& acts) {
  return std::any_of(acts.begin(), acts.end(),
                     [](const Action& a) { return !std::holds_alternative<Log>(a); });
}

std::vector<std::string> TouchedIds(const Signal& s, const std::vector<Action>& acts) {
  std::set<std::string> ids;
  std::visit(
      [&](const auto& x) {
        if constexpr (requires { x.id; })
          if (!x.id.empty()) ids.insert(x.id);
        if constexpr (requires { x.missions; })  // RecoveredEnded, RecoveredCold: each named
          for (const auto& m : x.missions) ids.insert(m.id);
      },
      s);
  for (const Action& a : acts)
    std::visit(
        [&](const auto& x) {
          if constexpr (requires { x.id; }) {
            if (!x.id.empty()) ids.insert(x.id);
          } else if constexpr (std::is_same_v<std::decay_t<decltype(x)>, Record>) {
            if (const json::Value* id = x.body.find("id"); id && id->is_string())
              ids.insert(id->as_string());
          }
        },
        a);
  return {ids.begin(), ids.end()};
}

std::string StepDigest(const State& s, const std::vector<std::string>& ids) {
  return Sha256Hex(StepText(s, ids));
}

std::string StepText(const State& s, const std::vector<std::string>& ids) {
  std::string text;
  text.reserve(64 + 768 * ids.size());  // a mission's text: some 500 to 600 bytes
  text += "{\"grants\":";
  json::AppendWritten(&text, GrantsJson(s));
  text += ",\"missions\":{";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) text += ',';
    json::AppendQuoted(&text, ids[i]);
    text += ':';
    auto it = s.missions.find(ids[i]);
    if (it == s.missions.end())
      text += "null";
    else
      AppendMissionText(&text, it->second);
  }
  text += "}}";
  return text;
}

// Everything of the state beside its missions and grants, as canonical JSON.
std::string GlobalText(const State& s) {
  std::string t = "{\"canaries\":";
  json::AppendQuoted(&t, s.canaries.digest());
  size_t held = 0;
  for (const auto& [profile, ids] : s.canary_held) held += ids.size();
  t += ",\"canary_held\":";
  AppendInt(&t, held);
  t += ",\"clock_behind\":";
  t += s.clock_behind ? "true" : "false";
  t += ",\"counter\":";
  AppendInt(&t, s.counter);
  t += ",\"fail_closed\":";
  AppendMaybeHex(&t, s.fail_closed);
  t += ",\"ledger_seq\":";
  AppendInt(&t, s.ledger_seq);
  t += ",\"ledger_time\":";
  AppendInt(&t, s.ledger_time);
  t += ",\"queue_head\":";
  if (s.queue.empty())
    t += "null";
  else
    json::AppendQuoted(&t, s.queue.front());
  t += ",\"queue_length\":";
  AppendInt(&t, s.queue.size());
  t += ",\"ready\":";
  t += s.ready ? "true" : "false";
  t += ",\"rolled_back\":";
  t += s.rolled_back ? "true" : "false";
  t += ",\"requesters\":";
  json::AppendQuoted(&t, s.requesters.digest());
  t += ",\"running\":";
  AppendInt(&t, s.running);
  t += ",\"unvouched_grants\":[";
  for (size_t i = 0; i < s.unvouched_grants.size(); ++i) {
    if (i) t += ',';
    AppendInt(&t, s.unvouched_grants[i]);
  }
  t += "]}";
  return t;
}

std::string GlobalDigest(const State& s) {
  return Sha256Hex(GlobalText(s));
}

std::string StateDigest(const State& s) {
  std::string text = "{\"global\":" + GlobalText(s) + ",\"grants\":" + json::Write(GrantsJson(s)) +
                     ",\"missions\":{";
  bool first = true;
  for (const auto& [id, r] : s.missions) {
    if (!first) text += ',';
    first = false;
    json::AppendQuoted(&text, id);
    text += ':';
    AppendMissionText(&text, r);
  }
  json::Object held;
  for (const auto& [profile, ids] : s.canary_held)
    held[profile] = json::Array(ids.begin(), ids.end());
  text += "},\"queue\":" + json::Write(json::Array(s.queue.begin(), s.queue.end())) +
          ",\"queue_held\":" + json::Write(json::Value(std::move(held))) + RequestersText(s) + "}";
  return Sha256Hex(text);
}

}  // namespace hangar
