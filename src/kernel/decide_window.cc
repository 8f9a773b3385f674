// The window: a running drone's op requests (man/hangar-ops.5) are judged (kernel/window.h),
// recorded and run by their handler, or refused; each gets its answer, and the drone's end is
// observed once no handler runs for it.
#include <algorithm>

#include "base/sha256.h"
#include "kernel/decision.h"
#include "kernel/window.h"

namespace hangar::decide {

namespace {

json::Object OpBody(const std::string& id, const std::string& name, const std::string& op,
                    const std::string& key) {
  json::Object o{{"id", id}, {"request", name}};
  o["op"] = op.empty() ? json::Value(nullptr) : json::Value(op);
  o["key"] = key.empty() ? json::Value(nullptr) : json::Value(key);
  return o;
}

// Records `kind` with `body`, then answers the request with `result` (which names that entry).
void Answer(Decision& d, const std::string& id, const std::string& name, const std::string& key,
            json::Object result, const std::string& kind, json::Object body,
            std::map<std::string, std::string> files, bool keep, bool release, TimeMs now) {
  result["hangar"] = 1;
  result["time"] = FormatTime(now);
  result["ledger_seq"] = d.st.ledger_seq + 1;
  std::string text = Text(json::Value(std::move(result)));
  body["result_sha256"] = Sha256Hex(text);
  d.Ledger(kind, std::move(body), now);
  files[name + ".result.json"] = text;
  d.out.push_back(AnswerOp{id, name, key, std::move(text), std::move(files), keep, release});
}

}  // namespace

void On(Decision& d, const OpRequested& q) {
  MissionRec* rec = d.Running(q.id, false);
  // A request after the drone's end, or one already answered, stays in the room as evidence.
  if (!rec || !rec->mission || !rec->ops.mut().seen.insert(q.name).second) return;
  std::map<std::string, std::string> files;
  if (q.read_error.empty()) files[q.name + ".request.json"] = q.bytes;
  json::Object body = OpBody(q.id, q.name, "", "");
  body["request_sha256"] = q.read_error.empty() ? json::Value(Sha256Hex(q.bytes)) : nullptr;
  // [OpRefused]
  auto refuse = [&](const std::string& op, const std::string& key, const std::string& rule,
                    const std::string& reason) {
    json::Object res = OpBody(q.id, q.name, op, key);
    res["status"] = "refused";
    res["rule"] = rule;
    res["reason"] = reason;
    body["op"] = res["op"];
    body["key"] = res["key"];
    body["rule"] = rule;
    body["reason"] = reason;
    d.Log(q.id + " op request ops/" + q.name + ".json refused (" + rule + "): " + reason);
    Answer(d, q.id, q.name, key, std::move(res), "op.refused", std::move(body), std::move(files),
           false, false, q.now);
  };
  if (!q.read_error.empty()) return refuse("", "", "op.request", q.read_error);
  OpRequestOrError parsed = ParseOpRequest(q.bytes);
  if (auto* e = std::get_if<ParseError>(&parsed))
    return refuse("", "", "op.request", "ops/" + q.name + ".json: " + e->Text());
  const OpRequest& r = std::get<OpRequest>(parsed);
  if (rec->ops.get().running.count(r.key))
    return refuse(r.op, r.key, "op.key_running",
                  "an act under key " + r.key + " runs now; ask again once its result is in");
  auto handler = d.setup.config.ops.find(r.op);
  const OpContext ctx{&*rec->mission,
                      &q.declaration,
                      &d.setup.policy,
                      &d.st.grants,
                      d.st.fail_closed,
                      handler != d.setup.config.ops.end(),
                      std::max(q.now, d.st.ledger_time)};  // a clock set back revives no grant
  const OpJudgement j = JudgeOp(r, ctx);
  if (!j.allowed) return refuse(r.op, r.key, j.rule, j.reason);
  if (q.key == OpKeyState::kTaken)
    return refuse(r.op, r.key, "op.key_in_doubt",
                  "key " + r.key +
                      " was taken before and holds no result (its act ran, or was running when "
                      "hangard stopped): an act runs at most once, so it is not run again");
  body["op"] = r.op;
  body["key"] = r.key;
  std::vector<TimeMs>& starts = rec->ops.mut().starts;
  starts.erase(starts.begin(), std::find_if(starts.begin(), starts.end(),
                                            [&](TimeMs t) { return t > q.now - 60000; }));
  if (q.key != OpKeyState::kDone && int(starts.size()) >= d.setup.config.limits.ops_per_minute)
    return refuse(r.op, r.key, "op.rate",
                  "the window started " + std::to_string(starts.size()) +
                      " handlers for this mission in the last 60 s, the config's "
                      "limits.ops_per_minute; ask again later");
  if (q.key == OpKeyState::kDone) {  // [OpRepeated]
    Result<json::Value> stored = json::Parse(q.stored_result);
    json::Object res = stored.ok() && stored->is_object() ? stored->as_object() : json::Object{};
    res["repeat_of"] = res.count("request") ? res["request"] : json::Value(nullptr);
    res["request"] = q.name;
    res["repeat"] = true;
    body["stored_sha256"] = Sha256Hex(q.stored_result);
    d.Log(q.id + " op " + r.op + " key " + r.key + ": done before, its result given again");
    return Answer(d, q.id, q.name, r.key, std::move(res), "op.repeated", std::move(body),
                  std::move(files), false, false, q.now);
  }
  // [OpAllowed]
  body["args_sha256"] = Sha256Hex(json::Write(r.args));
  body["handler"] = json::Array(handler->second.argv.begin(), handler->second.argv.end());
  d.Ledger("op.allowed", std::move(body), q.now);
  rec->ops.mut().running.insert(r.key);
  rec->ops.mut().starts.push_back(q.now);
  files[q.name + ".args.json"] = json::Write(r.args) + "\n";
  std::map<std::string, std::string> env = handler->second.env;
  env["HANGAR_MISSION"] = q.id;
  env["HANGAR_REQUESTER"] = rec->mission->requester;
  env["HANGAR_OP"] = r.op;
  env["HANGAR_OP_KEY"] = r.key;
  env["HANGAR_OP_REQUEST"] = q.name;
  d.Log(q.id + " op " + r.op + " (ops/" + q.name + ".json, key " + r.key + ") allowed: running " +
        handler->second.argv[0]);
  d.out.push_back(
      RunOp{q.id, q.name, r.op, r.key, handler->second, std::move(env), std::move(files)});
}

// [OpFinished]
void On(Decision& d, const OpFinished& f) {
  auto it = d.st.missions.find(f.id);
  if (it == d.st.missions.end() || it->second.phase != Phase::kRunning) return;
  MissionRec& rec = it->second;
  rec.ops.mut().running.erase(f.key);
  json::Object res = OpBody(f.id, f.name, f.op, f.key);
  json::Object body = OpBody(f.id, f.name, f.op, f.key);
  if (!f.started) {
    res["status"] = "error";
    res["error"] = f.error;
    body["error"] = f.error;
    d.Log(f.id + " op " + f.op + " key " + f.key + " could not run: " + f.error);
    Answer(d, f.id, f.name, f.key, std::move(res), "op.unrun", std::move(body), {}, false, true,
           f.now);
  } else {
    auto opt = [](const std::optional<int>& v) { return v ? json::Value(*v) : json::Value(); };
    res["status"] = "executed";
    for (json::Object* o : {&res, &body}) {
      (*o)["rc"] = opt(f.rc);
      (*o)["signal"] = opt(f.signal);
      (*o)["timed_out"] = f.timed_out;
      (*o)["error"] = f.error.empty() ? json::Value(nullptr) : json::Value(f.error);
    }
    res["output"] = f.output;
    res["output_text"] = json::ValidUtf8(f.output_text) ? json::Value(f.output_text) : nullptr;
    res["output_truncated"] = f.output_cut;
    const json::Value* sha = f.output.is_object() ? f.output.find("sha256") : nullptr;
    body["output_sha256"] = sha ? *sha : json::Value(nullptr);
    d.Log(f.id + " op " + f.op + " key " + f.key + " ran: " +
          (f.timed_out ? std::string("timed out")
           : f.rc      ? "rc " + std::to_string(*f.rc)
           : f.signal  ? "signal " + std::to_string(*f.signal)
                       : f.error));
    Answer(d, f.id, f.name, f.key, std::move(res), "op.result", std::move(body), {}, true, false,
           f.now);
  }
  if (rec.exited && rec.observe_waits && rec.ops.get().running.empty()) {
    rec.observe_waits = false;
    d.EmitObserve(f.id, rec);
  }
}

}  // namespace hangar::decide
