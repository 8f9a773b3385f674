// Purge: an approver's (or hangard's retention's) request that the directories and rooms of
// missions that will not move again go, recorded on the ledger first. Each leaves a tombstone,
// purged/ID.json, so its id stays taken and its launch keys stay honoured (man/hangar-spool.5
// "PURGE"); the ledger and the signal record keep everything that was decided about it.
#include "kernel/decision.h"

namespace hangar::decide {

namespace {

// Why mission ID may not be purged now, or "".
std::string NotPurgeable(const Decision& d, const std::string& id) {
  auto it = d.st.missions.find(id);
  if (it == d.st.missions.end()) return "no such mission";
  const MissionRec& rec = it->second;
  if (rec.purged) return "purged already";
  if (!Terminal(rec.phase))
    return std::string(PhaseName(rec.phase)) + ": not ended (cancel it first)";
  return "";
}

// purged/ID.json: what stays of a purged mission.
std::string Tombstone(const Decision& d, const std::string& id, const MissionRec& rec, int64_t seq,
                      TimeMs now) {
  json::Array keys;
  for (int a = 1; a <= rec.attempt; ++a) keys.emplace_back(LaunchKeyName(id, a));
  json::Object t{
      {"hangar", 1},
      {"id", id},
      {"state", std::string(PhaseName(rec.phase))},
      {"accepted", rec.accepted ? json::Value(FormatTime(rec.accepted)) : json::Value(nullptr)},
      {"attempts", rec.attempt},
      {"keys", std::move(keys)},
      {"purged", FormatTime(now)},
      {"by", d.asker.user},
      {"ledger_seq", seq}};
  json::Object owner;
  PutDropper(owner, rec.owner);
  t["owner"] = std::move(owner);
  return Text(json::Value(std::move(t)));
}

}  // namespace

std::string PurgeMissions(Decision& d, const ControlRequest& r, TimeMs now) {
  if (!d.st.fail_closed.empty())  // the ledger cannot record it: nothing is destroyed unrecorded
    return "purge: the ledger is failed closed (" + d.st.fail_closed +
           "); nothing is purged until it is trusted again";
  std::vector<std::string> ids;
  json::Array skipped;
  std::string skipped_text;
  for (const std::string& id : r.ids) {
    if (std::string why = NotPurgeable(d, id); !why.empty()) {  // [PurgeSkipped]
      skipped.emplace_back(json::Object{{"id", id}, {"reason", why}});
      skipped_text += (skipped_text.empty() ? "" : ", ") + id + " (" + why + ")";
      continue;
    }
    ids.push_back(id);
  }
  if (ids.empty()) return "purge: no mission named may be purged: " + skipped_text;
  // [Purged]
  json::Object body = d.Asked({{"ids", json::Array(ids.begin(), ids.end())},
                               {"why", r.why.empty() ? json::Value(nullptr) : json::Value(r.why)},
                               {"skipped", std::move(skipped)}});
  const int64_t seq = d.Ledger("mission.purged", std::move(body), now);
  for (const std::string& id : ids) {
    MissionRec& rec = d.st.missions.at(id);
    d.out.push_back(Purge{id, rec.phase, Tombstone(d, id, rec, seq, now)});
    rec = PurgedRec(rec.phase, rec.accepted, rec.attempt, rec.owner);  // as a restart finds it
  }
  d.effect = "purged " + std::to_string(ids.size()) +
             (skipped_text.empty() ? "" : "; skipped " + skipped_text);
  d.Log(d.effect + " (by " + d.asker.user + ", ledger seq " + std::to_string(seq) + ")");
  return "";
}

}  // namespace hangar::decide
