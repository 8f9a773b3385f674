// Work states: a control request "memory" from the uid that owns its requester (decide_rights.cc)
// is stored as the requester's next version, recorded before it is written (man/hangar-memory.5).
#include "base/sha256.h"
#include "kernel/decision.h"

namespace hangar::decide {

std::string StoreMemory(Decision& d, const ControlRequest& r, const ControlDropped& c) {
  const RequesterMemory& m = *r.memory;
  const std::string text = m.StoredText();
  const std::string sha = Sha256Hex(text);
  const RequesterRec* rec = d.st.requesters.Find(m.requester);
  // [MemoryStoredBefore]: recorded before a stop that came before its answer; the request is
  // still in control/new. Written again under the version the ledger gave it, not a new one.
  if (rec)
    if (auto it = rec->by_name.find(Shown(c.name));
        it != rec->by_name.end() && it->second.second == sha) {
      const int64_t v = it->second.first;
      d.out.push_back(WriteMemory{m.requester, v, text});
      d.effect = "stored as v" + std::to_string(v);
      d.Log("memory of " + m.requester + ": " + Shown(c.name) + " was stored as v" +
            std::to_string(v) + " before a stop; written again, not stored anew");
      return "";
    }
  // [MemoryStored]
  const int64_t version = (rec ? rec->versions : 0) + 1;
  json::Array cited;
  for (const MemoryRef& ref : m.refs) cited.push_back(ref.ToJson());
  const int64_t seq = d.Ledger("memory.stored",
                               d.Asked({{"requester", m.requester},
                                        {"version", version},
                                        {"name", Shown(c.name)},
                                        {"sha256", sha},
                                        {"bytes", int64_t(text.size())},
                                        {"refs", std::move(cited)}}),
                               c.now);
  d.st.requesters.Stored(m.requester, version, Shown(c.name), sha, seq);
  d.out.push_back(WriteMemory{m.requester, version, text});
  d.effect = "stored as v" + std::to_string(version);
  d.Log("memory of " + m.requester + " stored as v" + std::to_string(version) + " (" +
        std::to_string(text.size()) + " bytes, by " + c.by.user + ")");
  return "";
}

}  // namespace hangar::decide
