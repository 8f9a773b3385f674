#include "kernel/decision.h"

#include <algorithm>
#include <cstdio>

#include "base/id.h"

namespace hangar::decide {

std::string Decision::FreshId(TimeMs now) {
  for (;;) {
    char n[16];
    snprintf(n, sizeof n, "%06llu", static_cast<unsigned long long>(++st.counter % 1000000));
    std::string id = CompactTime(now) + "-" + n;
    if (!Used(id)) return id;
  }
}

std::string Decision::IdFromName(const std::string& name) const {
  std::string n = name;
  if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) n.resize(n.size() - 5);
  return ValidId(n) && !Used(n) ? n : "";
}

int64_t Decision::Ledger(std::string kind, json::Object body, TimeMs now, bool new_epoch) {
  const int64_t seq = ++st.ledger_seq;
  // Never dated before an earlier entry, whatever the clock says now.
  st.ledger_time = std::max(st.ledger_time, now);
  out.push_back(
      Record{seq, std::move(kind), json::Value(std::move(body)), st.ledger_time, new_epoch});
  return seq;
}

json::Object Decision::GateBody(const std::string& id, int stage, const GateResult& g) {
  json::Array rules;
  std::string noted = "stage " + std::to_string(stage) + " " + VerdictName(g.verdict) + " ";
  for (const std::string& r : g.rules) {
    rules.push_back(r);
    noted += (rules.size() > 1 ? "," : "") + r;
  }
  gates[id] = std::move(noted);
  // Member by member in key order, each added at the end: an initializer list is copied member by
  // member into place, and this body is built for every gate verdict (twice a mission).
  json::Object body;
  body["id"] = id;
  body["policy"] = setup.policy_sha256;
  body["reason"] = g.reason;
  body["rules"] = std::move(rules);
  body["stage"] = stage;
  body["verdict"] = VerdictName(g.verdict);
  return body;
}

json::Object Decision::Asked(json::Object body) const {
  PutDropper(body, asker);
  if (!claimed.empty()) body["claimed_by"] = claimed;
  return body;
}

MissionRec NewRec(Phase p, TimeMs accepted) {
  MissionRec r;
  r.phase = p;
  r.accepted = accepted;
  return r;
}

MissionRec PurgedRec(Phase p, TimeMs accepted, int attempt, const Dropper& owner) {
  MissionRec r = NewRec(p, accepted);
  r.attempt = attempt;
  r.owner = owner;
  r.purged = true;
  return r;
}

std::string Text(const json::Value& v) {
  return json::WritePretty(v);
}

json::Value Why(const std::string& id, const std::string& field, const std::string& reason,
                TimeMs now) {
  json::Object o;
  o["hangar"] = 1;
  o["id"] = id;
  o["field"] = field;
  o["reason"] = reason;
  o["time"] = FormatTime(now);
  return o;
}

void PutDropper(json::Object& o, const Dropper& by) {
  o["uid"] = by.uid >= 0 ? json::Value(by.uid) : json::Value(nullptr);
  o["user"] = by.uid >= 0 ? json::Value(by.user) : json::Value(nullptr);
}

std::string Shown(const std::string& name) {
  return json::ValidUtf8(name) ? name : std::string("(not UTF-8)");
}

}  // namespace hangar::decide
