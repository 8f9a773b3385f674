#include "kernel/grants.h"

#include <algorithm>

namespace hangar {

namespace {

std::string Member(const json::Value& body, const char* k) {
  const json::Value* v = body.find(k);
  return v && v->is_string() ? v->as_string() : "";
}

}  // namespace

Status GrantBook::Apply(const GrantRecord& e) {
  auto bad = [&](const std::string& why) {
    return Status::Invalid("ledger entry seq " + std::to_string(e.seq) + " (" + e.kind +
                           "): " + why);
  };
  if (e.kind == "ledger.reanchor") {
    const json::Value* v = e.body.find("void");
    if (!v) return Status::Ok();
    if (!v->is_array()) return bad("void: expected an array of seqs");
    for (const json::Value& seq : v->as_array()) {
      if (!seq.is_int()) return bad("void: expected an array of seqs");
      std::erase_if(grants_, [&](const Grant& g) { return g.seq == seq.as_int(); });
    }
    return Status::Ok();
  }
  if (e.kind != "grant" && e.kind != "revoke") return Status::Ok();
  Grant g;
  g.op = Member(e.body, "op");
  g.mission = Member(e.body, "mission");
  g.requester = Member(e.body, "requester");
  g.by = Member(e.body, "by");
  g.seq = e.seq;
  if (g.op.empty()) return bad("op: expected a string");
  if (g.mission.empty() == g.requester.empty())
    return bad("expected exactly one of mission and requester");
  if (e.kind == "revoke") {
    std::erase_if(grants_, [&](const Grant& o) {
      return o.op == g.op && o.mission == g.mission && o.requester == g.requester;
    });
    return Status::Ok();
  }
  const json::Value* until = e.body.find("until");
  if (until && until->is_string()) {
    g.until = ParseTime(until->as_string());
    if (!g.until) return bad("until: expected an RFC 3339 time");
  } else if (until && !until->is_null()) {
    return bad("until: expected a time or null");
  }
  grants_.push_back(std::move(g));
  return Status::Ok();
}

std::vector<Grant> GrantBook::Active(TimeMs now) const {
  std::vector<Grant> out;
  for (const Grant& g : grants_)
    if (!g.until || *g.until > now) out.push_back(g);
  return out;
}

bool GrantBook::Allows(const std::string& op, const std::string& mission,
                       const std::string& requester, TimeMs now) const {
  return std::any_of(grants_.begin(), grants_.end(), [&](const Grant& g) {
    return g.op == op && (!g.until || *g.until > now) &&
           ((!g.mission.empty() && g.mission == mission) ||
            (!g.requester.empty() && g.requester == requester));
  });
}

}  // namespace hangar
